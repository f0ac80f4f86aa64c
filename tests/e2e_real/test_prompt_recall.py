"""Per-prompt recall through the real CLIs, offline: Claude Code (`claude -p`) and Codex
(`codex exec --dangerously-bypass-hook-trust`), each connected by `loreline connect`, send
the fake model the memory a prompt is about, in the request that follows that prompt, and
nothing for an unrelated prompt.

The store holds a preference, a decision and a fact, imported from a session in the project;
`capture.session_start_chars = 400` lets SessionStart show only the preference, so what the
decision's words bring is per-prompt recall's doing, and the preference (already shown at
SessionStart) must not come again though the prompt names it. The warm recall process is started
and waited for before the first session, so the prompts are answered by meaning (`loreline_warm`):
the decision comes because the prompt's words chose it and it is near the prompt in meaning.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass, field
from typing import Any

import pytest

from loreline.samples.builder import ClaudeSession
from tests.e2e_real.fake_models import Replies
from tests.e2e_real.harness import Clients, Isolation, Run, Sandbox
from tests.e2e_real.test_codex import USER_CONFIG

pytestmark = pytest.mark.real_clients

PREFERENCE = "In this repo we use pnpm, never npm."
DECISION = "We'll use Postgres advisory locks because each billing job needs one worker."
FACT = "The fix was to pin node to 20 in .nvmrc."
RELEVANT = "Which pnpm script starts the billing job, and how does it take its advisory lock?"
UNRELATED = "What is the capital of France?"
#: shares no word with the decision: only recall by meaning (the warm process) brings it
BY_MEANING = "What keeps concurrent payment jobs from running twice?"
REPLIES = Replies("Understood.")
BLOCK = "<loreline-memories>"
RECALL_HEADER = "may bear on this prompt"


@dataclass(repr=False)
class Story:
    box: Sandbox
    ids: dict[str, int] = field(default_factory=dict)
    runs: dict[str, Run] = field(default_factory=dict)
    warm: bool = False

    def __repr__(self) -> str:
        return f"Story({self.box.root})"

    def requests_after(self, step: str, prompt: str, api: str) -> list[str]:
        """The bodies of the model requests whose last user message carries `prompt`."""
        return [json.dumps(r["body"], ensure_ascii=False) for r in self.runs[step].requests
                if r["api"] == api and r["method"] == "POST" and prompt in _last_user(r["body"])]


def _last_user(body: dict[str, Any]) -> str:
    messages = body.get("messages") or body.get("input") or []
    users = [m for m in messages if isinstance(m, dict) and m.get("role") == "user"]
    return json.dumps(users[-1], ensure_ascii=False) if users else ""


def tell(story: Story) -> Story:
    box = story.box
    session = ClaudeSession(cwd=str(box.repo))
    for said in (PREFERENCE, DECISION, FACT):
        session.user(said)
        session.assistant("Noted.")
    path = session.write(box.root / "earlier" / f"{session.session_id}.jsonl")
    box.loreline("import", "sessions", "--path", str(path))
    story.ids = {m["text"]: m["id"] for m in box.memories()}
    box.loreline("config", "set", "capture.session_start_chars", "400")
    box.loreline("connect", "claude-code")
    (box.codex_home / "config.toml").write_text(USER_CONFIG, encoding="utf-8")
    box.loreline("connect", "codex")
    story.warm = box.warm(start=True)  # the sessions' prompts are answered by meaning
    for step, prompt in (("relevant", RELEVANT), ("unrelated", UNRELATED), ("meaning", BY_MEANING)):
        story.runs[f"claude-{step}"] = box.claude(f"claude-{step}", ["-p", prompt, "--output-format", "json"],
                                                  REPLIES).check()
        story.runs[f"codex-{step}"] = box.codex(f"codex-{step}", ["exec", "--dangerously-bypass-hook-trust", prompt],
                                                REPLIES).check()
    return story


@pytest.fixture(scope="module")
def story(real_clients: Clients, isolation: Isolation, tmp_path_factory: pytest.TempPathFactory) -> Story:
    return tell(Story(Sandbox(tmp_path_factory.mktemp("recall-e2e"), real_clients, isolation)))


def _recalled(bodies: list[str]) -> list[str]:
    return [b for b in bodies if RECALL_HEADER in b]


@pytest.mark.parametrize(("client", "api"), [("claude", "anthropic"), ("codex", "openai")])
def test_the_request_after_a_prompt_carries_the_memory_it_is_about(story: Story, client: str, api: str) -> None:
    assert sorted(story.ids) == sorted([PREFERENCE, DECISION, FACT])
    bodies = story.requests_after(f"{client}-relevant", RELEVANT, api)
    assert bodies, f"no request carried the prompt ({story.runs[f'{client}-relevant'].folder})"
    carrying = _recalled(bodies)
    assert carrying, f"no request after the prompt carried the recalled memory ({story.runs[f'{client}-relevant'].folder})"
    for body in carrying:
        assert f"#{story.ids[DECISION]} decision: {DECISION}" in body.replace("\\u2019", "'")
        recall = body[body.index(RECALL_HEADER):]
        assert f"#{story.ids[PREFERENCE]} " not in recall[: recall.find("loreline-memories>")], \
            "the preference SessionStart showed came again"
        assert FACT not in recall[: recall.find("loreline-memories>")]


def test_the_prompts_were_answered_by_the_warm_recall_process(story: Story) -> None:
    assert story.warm, "the warm recall process did not start"
    assert story.box.warm(start=False), "the warm recall process did not stay up through the sessions"
    errors = story.box.loreline_home / "state" / "hook-errors.log"
    assert not errors.exists() or "UserPromptSubmit" not in errors.read_text(encoding="utf-8")


@pytest.mark.parametrize(("client", "api"), [("claude", "anthropic"), ("codex", "openai")])
def test_a_prompt_worded_apart_from_a_memory_gets_it_by_meaning(story: Story, client: str, api: str) -> None:
    carrying = _recalled(story.requests_after(f"{client}-meaning", BY_MEANING, api))
    assert carrying, f"no request after the prompt carried a memory ({story.runs[f'{client}-meaning'].folder})"
    assert all(f"#{story.ids[DECISION]} decision: " in body for body in carrying)
    # by words alone the same prompt brings nothing: the warm process made the difference
    payload = {"session_id": "by-words", "cwd": str(story.box.repo), "hook_event_name": "UserPromptSubmit",
               "prompt": BY_MEANING}
    words = subprocess.run([sys.executable, "-m", "loreline_hooks.entry", "UserPromptSubmit"],
                           input=json.dumps(payload).encode(), capture_output=True, cwd=story.box.repo,
                           env={**story.box.loreline_env(), "LORELINE_PROMPT_RECALL": "words"}, timeout=60)
    assert words.returncode == 0 and words.stdout.strip() == b""


@pytest.mark.parametrize(("client", "api"), [("claude", "anthropic"), ("codex", "openai")])
def test_session_start_showed_only_the_preference(story: Story, client: str, api: str) -> None:
    bodies = story.requests_after(f"{client}-unrelated", UNRELATED, api)
    assert bodies and all(BLOCK in b and PREFERENCE in b for b in bodies), "SessionStart's block (control)"


@pytest.mark.parametrize(("client", "api"), [("claude", "anthropic"), ("codex", "openai")])
def test_an_unrelated_prompt_brings_no_memory(story: Story, client: str, api: str) -> None:
    bodies = story.requests_after(f"{client}-unrelated", UNRELATED, api)
    assert bodies
    assert not _recalled(bodies) and not any(DECISION in b or FACT in b for b in bodies)
