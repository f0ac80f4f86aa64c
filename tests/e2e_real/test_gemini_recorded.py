"""The recorded-answers eval through the gemini backend's real client: the real Gemini CLI (the
pinned version) against the loopback Gemini API answering from the project's set of recorded
answers (`fake_models --answers`), offline.

`scripts/eval backend --backend gemini --set real --half test --max-calls 12` runs inside the
runner as a person would run it (the gemini backend built by `loreline.backends.choose`, one
`gemini -p … -o json` run per chunk, the answer unwrapped from the CLI's JSON and held to the
schema, the tokens from its stats). The model it names is the set's, as a recorded run stands
for that model. Its figures must be those `--backend recorded:DIR` gives on the same chunks,
and every request the CLI made must have been answered from the set.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from loreline.assistants.gemini import distill as gemini_distill
from loreline.distill import recorded
from loreline.distill.recorded import AnswerSet, request_key
from tests.conftest import ROOT
from tests.e2e_real import fake_models
from tests.e2e_real.fake_models import Replies
from tests.e2e_real.harness import Clients, Isolation, Sandbox
from tests.e2e_real.test_gemini_backend import distill_env

pytestmark = pytest.mark.real_clients

ANSWERS = ROOT / "tests" / "eval" / "answers"
CALLS = 12  # about two seconds of the CLI each


def test_the_servers_reading_of_a_request_agrees_with_the_backend_and_recorded() -> None:
    """The answer rule and `-p` prompt the server looks for are the backend's, and its key is recorded's."""
    rule = gemini_distill.ANSWER_RULE.format(tool="record_memories", schema="{}")
    assert rule == fake_models.ANSWER_RULE_HEAD + "record_memories" + fake_models.ANSWER_RULE_MIDDLE + "{}"
    assert fake_models.CLI_PROMPT == "\n\n" + gemini_distill.PROMPT
    tool = {"name": "t", "description": "d\u00e9", "input_schema": {"type": "object"}}
    assert fake_models.request_key(tool, "s\n", "u\u2013", "m") == request_key(tool, "s\n", "u\u2013", "m")


def backend_run(box: Sandbox, answers: Path) -> tuple[str, list[dict[str, object]], float]:
    box.gemini_home.mkdir(parents=True, exist_ok=True)
    (box.gemini_home / "settings.json").write_text(json.dumps(
        {"security": {"auth": {"selectedType": "gemini-api-key"}}, "general": {"enableAutoUpdate": False}}),
        encoding="utf-8")
    box.loreline("config", "set", "distill.gemini_model", AnswerSet(answers).model())
    box.loreline("config", "set", "distill.timeout_seconds", "30")
    box.loreline("config", "set", "distill.max_retries", "0")
    env = distill_env(box)
    env["PYTHONPATH"] = f"{ROOT / 'scripts'}:{env['PYTHONPATH']}"
    argv = [sys.executable, "-m", "evallib", "backend", "--backend", "gemini", "--set", "real", "--half", "test",
            "--max-calls", str(CALLS)]
    run = box.run_client("eval-gemini", argv, env, Replies("fake: not a recorded request"), timeout=300,
                         answers=answers).check()
    assert run.offline
    return run.stdout, run.requests, run.seconds


@pytest.fixture(scope="module")
def answers(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("answers") / "answers"
    shutil.copytree(ANSWERS, folder)
    return folder


def test_the_eval_through_gemini_cli_gives_the_recorded_figures(real_clients: Clients, isolation: Isolation,
                                                               tmp_path: Path, answers: Path) -> None:
    from evallib import backendrun

    if real_clients.gemini is None:
        pytest.fail("the pinned Gemini CLI was not installed", pytrace=False)
    recorded.MISSING.clear()
    replayed = backendrun.run(f"recorded:{answers}", "test", CALLS)
    assert not recorded.MISSING, recorded.MISSING[:3]
    said, requests, seconds = backend_run(Sandbox(tmp_path, real_clients, isolation), answers)
    assert said.strip() == backendrun.render(replayed).replace("backend recorded ", "backend gemini ", 1)
    assert replayed.usage.calls == CALLS and replayed.capped and replayed.usage.input_tokens > 50_000
    looked_up = [r for r in requests if r["api"] == "recorded"]
    asked = [r for r in requests if r["api"] == "gemini" and isinstance(r["body"], dict) and r["body"].get("contents")]
    assert [r["found"] for r in looked_up] == [True] * CALLS  # every request answered from the set
    assert len(asked) == CALLS  # and the CLI asked nothing else (no routing, no retries)
    assert {r["model"] for r in looked_up} == {AnswerSet(answers).model()}
    assert seconds < 120
