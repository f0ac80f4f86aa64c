"""The codex distillation backend end to end: `loreline import sessions --backend codex` drives
the real Codex CLI (the pinned version) as `codex exec --output-schema`, offline, under an
API-key login kept in `$CODEX_HOME/auth.json`, against the loopback fake Responses API, which
answers with the structured JSON.

One story, told once per module:

1. three sessions the user had (Claude Code transcripts written by the sample builder; they
   are imported by path);
2. distill: the first is imported with the codex backend; the request carries our prompt as
   Codex's instructions and the strict form of the `record_memories` schema;
3. judge: the second repeats the preference; `classify_relations` goes through Codex too;
4. failures, each deferring the third session: a rate limit (429, which starts a cooldown of
   the codex backend for background runs; these imports are a person's), a model that answers with
   no JSON (twice), a model that hangs past the deadline; a refused login (401) stops the
   import with one line;
5. auto: with no API key and no `claude` on PATH, a logged-in Codex is chosen and imports the
   third session; once logged out, `--backend codex` stops with one line and auto says rules.

Then: nothing the runs did is left for discovery or `codex resume` to find, and no process.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from loreline.samples.builder import ClaudeSession
from tests.conftest import loreline_exe
from tests.e2e_real.fake_models import Replies, error_reply, stall_reply
from tests.e2e_real.harness import CODEX_KEY, Clients, Isolation, Run, Sandbox
from tests.e2e_real.test_claude_code_backend import claude_processes_in

from tests.e2e_real.backend_story import (DECISION, LATER, PNPM, PNPM_AGAIN, PREFERENCE, REPEAT, deferred_reason,
                                             memory, record)

pytestmark = pytest.mark.real_clients



@dataclass(repr=False)
class Story:
    box: Sandbox
    sessions: dict[str, Path] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)
    runs: dict[str, Run] = field(default_factory=dict)
    reports: dict[str, dict[str, Any]] = field(default_factory=dict)
    codex_files: dict[str, set[Path]] = field(default_factory=dict)
    leftovers: list[str] = field(default_factory=list)

    def __repr__(self) -> str:
        return f"Story({self.box.root})"

    def codex_sessions(self) -> set[Path]:
        return {p for p in self.box.codex_home.rglob("*") if p.is_file() and "sessions" in p.parts}


def write_session(story: Story, step: str, said: str) -> None:
    s = ClaudeSession(str(story.box.repo))
    story.lines[step] = s.user(said)
    s.assistant("Noted.")
    story.sessions[step] = s.write(story.box.root / "sessions" / f"{step}.jsonl")


def distill_env(box: Sandbox, *, claude: bool = False) -> dict[str, str]:
    env = box.base_env(OPENAI_BASE_URL="http://127.0.0.1:{port}/v1",
                       PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring")
    env["PATH"] = f"{box.clients.codex.parent}:{env['PATH']}"
    if claude:
        env["PATH"] = f"{box.clients.claude.parent}:{env['PATH']}"
    return env


def distill(story: Story, step: str, session: str, replies: Replies, backend: str | None = "codex") -> Run:
    box = story.box
    chosen = ["--backend", backend] if backend else []
    argv = [loreline_exe(), "import", "sessions", *chosen, "--path", str(story.sessions[session]), "--json"]
    run = box.run_client(step, argv, distill_env(box), replies)
    story.runs[step] = run
    if run.rc == 0:
        story.reports[step] = run.json()
    story.codex_files[step] = story.codex_sessions()
    return run


def log_in(box: Sandbox) -> None:
    subprocess.run([str(box.clients.codex), "login", "--with-api-key"], input=CODEX_KEY, text=True,
                   capture_output=True, env=box.base_env(), check=True, timeout=60)


def tell(story: Story) -> Story:
    box = story.box
    log_in(box)
    box.loreline("config", "set", "distill.timeout_seconds", "10")
    write_session(story, "first", f"{PREFERENCE} {DECISION}")
    write_session(story, "second", REPEAT)
    write_session(story, "third", LATER)
    write_session(story, "fourth", PREFERENCE)
    story.codex_files["before"] = story.codex_sessions()
    first = story.lines["first"]
    distill(story, "distill", "first", Replies("Done.", (("call record_memories", record(
        memory("preference", PNPM, first, "we use pnpm, never npm"),
        memory("decision", "Billing jobs keep Postgres advisory locks: each needs exactly one worker.", first,
               "keep Postgres advisory locks"),
        memory("fact", "The shop deploys to Kubernetes.", first, "we deploy to kubernetes"))),))).check()
    distill(story, "judge", "second", Replies("Done.", (
        ("<existing", json.dumps({"relations": [{"pair": 1, "relation": "identical", "reason": "the same install rule"}]})),
        ("call record_memories", record(memory("preference", PNPM_AGAIN, story.lines["second"],
                                               "installs go through pnpm here")))))).check()
    distill(story, "ratelimit", "third", Replies("Done.", (("call record_memories", error_reply(429, "rate_limit_exceeded")),)))
    distill(story, "malformed", "third", Replies("Done.", (("call record_memories", "Sure! Here are the memories."),)))
    distill(story, "hang", "third", Replies("Done.", (("call record_memories", stall_reply(60)),)))
    story.leftovers = claude_processes_in(box.root)
    distill(story, "refused", "third", Replies("Done.", (("call record_memories", error_reply(401, "invalid_api_key")),)))
    box.loreline("config", "set", "distill.backend", "auto")
    distill(story, "auto", "third", Replies("Done.", (("call record_memories", record(
        memory("fact", "CI runs on Node 22.", story.lines["third"], "the CI runs on Node 22"))),)), backend=None).check()
    story.runs["status"] = box.run_client("status", [loreline_exe(), "status", "--json"], distill_env(box),
                                          Replies()).check()
    (box.codex_home / "auth.json").unlink()
    distill(story, "logged-out", "fourth", Replies("Done."))
    story.runs["status-out"] = box.run_client("status-out", [loreline_exe(), "status", "--json"], distill_env(box),
                                              Replies()).check()
    return story


@pytest.fixture(scope="module")
def story(real_clients: Clients, isolation: Isolation, tmp_path_factory: pytest.TempPathFactory) -> Story:
    root = tmp_path_factory.mktemp("codex-backend")
    return tell(Story(Sandbox(root, real_clients, isolation)))


def texts(box: Sandbox) -> list[str]:
    return sorted(m["text"] for m in box.memories())


def responses(run: Run) -> list[dict[str, Any]]:
    """The Responses API requests that carried a model turn (not the WebSocket probes)."""
    return [r["body"] for r in run.requests if r["api"] == "openai" and isinstance(r["body"], dict)
            and r["body"].get("input")]


# -- what was distilled ------------------------------------------------------------------------


def test_the_import_ran_offline_through_codex_and_kept_only_cited_memories(story: Story) -> None:
    run, report = story.runs["distill"], story.reports["distill"]
    assert run.offline
    assert report["backend"] == "codex" and report["backend_reason"].startswith("codex: chosen by --backend, ")
    assert report["sessions"]["imported"] == 1 and report["candidates"] == 3 and report["added"] == 2
    assert sum(report["rejected"].values()) == 1  # the uncited Kubernetes claim
    assert "The shop deploys to Kubernetes." not in texts(story.box)


def test_codex_was_sent_our_prompt_the_strict_schema_and_no_user_config(story: Story) -> None:
    asked = responses(story.runs["distill"])
    # the distill call, then the import asks the same login for the project's brief
    distilled = [b for b in asked if b["text"]["format"]["schema"]["required"] == ["memories"]]
    briefed = [b for b in asked if b["text"]["format"]["schema"]["required"] == ["sections"]]
    assert len(distilled) == 1 and briefed and len(asked) == len(distilled) + len(briefed)
    [body] = distilled
    schema = body["text"]["format"]["schema"]
    assert body["text"]["format"]["type"] == "json_schema" and schema["additionalProperties"] is False
    assert schema["required"] == ["memories"]
    item = schema["properties"]["memories"]["items"]
    # strict mode lists every property as required; the optional retrieval cues may be null
    assert item["additionalProperties"] is False and item["required"] == ["kind", "text", "evidence", "asked",
                                                                          "questions", "topics"]
    assert all("null" in item["properties"][cue]["type"] for cue in ("asked", "questions", "topics"))
    assert "null" not in item["properties"]["text"]["type"]
    sent = json.dumps(body["input"])
    assert "record_memories" in sent and "one JSON object matching the output schema" in sent
    assert PREFERENCE in sent and "Call record_memories" in sent
    assert "You are Codex" not in sent  # our instructions replace Codex's own
    shell = [t for group in body["input"] if group.get("type") == "additional_tools"
             for ns in group["tools"] for t in ns.get("tools", []) if t.get("name") in ("shell", "exec_command")]
    assert shell == []


def test_the_judge_classified_the_repeat_through_codex(story: Story) -> None:
    asked = responses(story.runs["judge"])
    assert any("relations" in b["text"]["format"]["schema"]["properties"] for b in asked)
    active = texts(story.box)
    assert PNPM_AGAIN in active and PNPM not in active


def test_usage_is_in_the_ledger(story: Story) -> None:
    spent = story.reports["distill"]["model_use"]
    # the distill call and the brief's, 40 tokens in and 10 out each from the scripted server
    assert spent["calls"] == 2 and spent["input_tokens"] == 80 and spent["output_tokens"] == 20
    rows = story.box.rows("SELECT backend, sum(calls) FROM usage GROUP BY backend")
    # distill, judge (2), malformed (2 tries), auto; and a brief after each of the four imports
    # that changed the memories
    assert rows == [("codex", 10)]


# -- failures: one line, deferred, nothing lost -------------------------------------------------


def test_a_rate_limit_defers_the_session(story: Story) -> None:
    reason = deferred_reason(story, "ratelimit")
    # Codex retried the 429 itself, then gave up: a rate limit, so the backend cools down
    assert "Codex reported its rate limit" in reason and "429" in reason and "deferred" in reason, reason


def test_an_answer_that_is_not_the_json_asked_for_defers_the_session(story: Story) -> None:
    assert "gave no usable answer twice" in deferred_reason(story, "malformed")


def test_a_hanging_model_is_cut_at_the_deadline_and_leaves_no_process(story: Story) -> None:
    assert "no answer within 30s" in deferred_reason(story, "hang")
    assert story.runs["hang"].seconds < 60
    assert story.leftovers == []


def test_a_refused_login_stops_with_one_line(story: Story) -> None:
    run = story.runs["refused"]
    assert run.rc == 1 and run.stderr.strip().splitlines() == [
        "loreline: Codex's login was refused or has expired: run `codex login`, or pick another backend with "
        "--backend"], run.stderr


def test_auto_picks_a_logged_in_codex_and_imports_what_was_deferred(story: Story) -> None:
    report = story.reports["auto"]
    assert report["backend"] == "codex"
    assert report["backend_reason"].startswith("auto: no API key and no `claude` on PATH; Codex is logged in (apikey) at ")
    assert report["sessions"]["imported"] == 1 and "CI runs on Node 22." in texts(story.box)
    status = story.runs["status"].json()["backend"]
    assert status.startswith("codex (codex-default) — auto: no API key and no `claude` on PATH; Codex is logged in")


def test_a_logged_out_codex_stops_with_one_line_and_auto_falls_back_to_rules(story: Story) -> None:
    run = story.runs["logged-out"]
    assert run.rc == 1 and run.stderr.strip().splitlines() == [
        "loreline: Codex is not logged in: run `codex login`, or pick another backend with --backend"], run.stderr
    assert run.requests == []
    said = story.runs["status-out"].json()["backend"]
    assert said == "rules (offline) — auto: no API key and no `claude` on PATH and Codex is not logged in"


# -- nothing left behind --------------------------------------------------------------------------


def test_no_run_left_a_session_for_discovery_or_codex_resume(story: Story) -> None:
    for step, found in story.codex_files.items():
        assert found == set(), (step, found)
    discovered = story.box.loreline_json("import", "sessions", "--dry-run", "--backend", "rules", "--tool", "codex")
    assert discovered["sessions"]["imported"] == 0 and discovered["sessions"].get("found", 0) in (0, None)
