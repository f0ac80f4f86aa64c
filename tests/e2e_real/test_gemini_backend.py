"""The gemini distillation backend end to end: `loreline import sessions --backend gemini` drives
the real Gemini CLI (the pinned version) as `gemini -p … -o json`, offline, under an API-key
login (`GEMINI_API_KEY`), against the loopback fake Gemini API (`GOOGLE_GEMINI_BASE_URL`),
which answers with the JSON text a model would write.

The person's own Gemini CLI is set up as a user's would be: an auth choice, a hook of theirs
(it would leave a marker file), an MCP server of theirs and a global GEMINI.md. None of it may
reach a distillation run.

One story, told once per module:

1. three sessions the user had (Claude Code transcripts written by the sample builder; they
   are imported by path);
2. distill: the first is imported with the gemini backend; the request carries our prompt as
   the system instruction, the schema, no tool, none of the person's memory;
3. judge: the second repeats the preference (the model answers in a ```json fence);
   `classify_relations` goes through Gemini CLI too;
4. failures, each deferring the third session: a quota error (429, which starts a cooldown of
   the gemini backend), a model that answers with prose (twice), a model that hangs past the
   deadline; a refused key (401) stops the import with one line;
5. auto: with no API key and no `claude` or `codex` on PATH, a logged-in Gemini CLI is chosen
   and imports the third session; without its key, `--backend gemini` stops with one line and
   auto says rules.

Then: nothing the runs did is left in the person's Gemini CLI folder, no hook of theirs fired,
no run folder or error report is left, and no process.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from loreline.samples.builder import ClaudeSession
from tests.conftest import loreline_exe
from tests.e2e_real.fake_models import Replies, error_reply, stall_reply
from tests.e2e_real.harness import GEMINI_KEY, Clients, Isolation, Run, Sandbox
from tests.e2e_real.test_claude_code_backend import claude_processes_in

from tests.e2e_real.backend_story import (DECISION, LATER, PNPM, PNPM_AGAIN, PREFERENCE, REPEAT, deferred_reason,
                                             memory, record)

pytestmark = pytest.mark.real_clients

MEMORY_MARKER = "GEMINI-MD-OF-THE-PERSON-7431"


@dataclass(repr=False)
class Story:
    box: Sandbox
    sessions: dict[str, Path] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)
    runs: dict[str, Run] = field(default_factory=dict)
    reports: dict[str, dict[str, Any]] = field(default_factory=dict)
    before: dict[str, str] = field(default_factory=dict)
    leftovers: list[str] = field(default_factory=list)

    def __repr__(self) -> str:
        return f"Story({self.box.root})"

    @property
    def hook_marker(self) -> Path:
        return self.box.root / "their-hook-fired"


def person_files(box: Sandbox) -> dict[str, str]:
    """Every file in the person's Gemini CLI folder, with its content."""
    return {str(p.relative_to(box.gemini_home)): p.read_text(encoding="utf-8", errors="replace")
            for p in sorted(box.gemini_home.rglob("*")) if p.is_file()}


def set_up_their_gemini(story: Story) -> None:
    box = story.box
    box.gemini_home.mkdir(parents=True, exist_ok=True)
    hook = {"type": "command", "command": f"touch {story.hook_marker}", "name": "theirs"}
    settings = {"security": {"auth": {"selectedType": "gemini-api-key"}}, "general": {"enableAutoUpdate": False},
                "hooksConfig": {"enabled": True},
                "hooks": {event: [{"hooks": [hook]}] for event in ("SessionStart", "BeforeAgent", "AfterAgent")},
                "mcpServers": {"theirs": {"command": "/bin/false"}}}
    (box.gemini_home / "settings.json").write_text(json.dumps(settings, indent=2), encoding="utf-8")
    (box.gemini_home / "GEMINI.md").write_text(f"# Notes\n- {MEMORY_MARKER}\n", encoding="utf-8")


def write_session(story: Story, step: str, said: str) -> None:
    s = ClaudeSession(str(story.box.repo))
    story.lines[step] = s.user(said)
    s.assistant("Noted.")
    story.sessions[step] = s.write(story.box.root / "sessions" / f"{step}.jsonl")


def distill_env(box: Sandbox, *, key: bool = True) -> dict[str, str]:
    env = box.base_env(GOOGLE_GEMINI_BASE_URL="http://127.0.0.1:{port}",
                       PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring")
    if key:
        env["GEMINI_API_KEY"] = GEMINI_KEY
    assert box.clients.gemini is not None
    env["PATH"] = f"{box.clients.gemini.parent}:{env['PATH']}"
    return env


def distill(story: Story, step: str, session: str, replies: Replies, backend: str | None = "gemini",
            key: bool = True) -> Run:
    box = story.box
    chosen = ["--backend", backend] if backend else []
    argv = [loreline_exe(), "import", "sessions", *chosen, "--path", str(story.sessions[session]), "--json"]
    run = box.run_client(step, argv, distill_env(box, key=key), replies)
    story.runs[step] = run
    if run.rc == 0:
        story.reports[step] = run.json()
    return run


def tell(story: Story) -> Story:
    box = story.box
    set_up_their_gemini(story)
    box.loreline("config", "set", "distill.timeout_seconds", "10")
    box.loreline("config", "set", "distill.max_retries", "0")  # the CLI's own retries wait seconds each
    for step, said in (("first", f"{PREFERENCE} {DECISION}"), ("second", REPEAT), ("third", LATER),
                       ("fourth", PREFERENCE)):
        write_session(story, step, said)
    story.before = person_files(box)
    first = story.lines["first"]
    distill(story, "distill", "first", Replies("Done.", (("call record_memories", record(
        memory("preference", PNPM, first, "we use pnpm, never npm"),
        memory("decision", "Billing jobs keep Postgres advisory locks: each needs exactly one worker.", first,
               "keep Postgres advisory locks"),
        memory("fact", "The shop deploys to Kubernetes.", first, "we deploy to kubernetes"))),))).check()
    fenced = "```json\n" + record(memory("preference", PNPM_AGAIN, story.lines["second"],
                                         "installs go through pnpm here")) + "\n```"
    distill(story, "judge", "second", Replies("Done.", (
        ("<existing", json.dumps({"relations": [{"pair": 1, "relation": "identical", "reason": "the same rule"}]})),
        ("call record_memories", fenced)))).check()
    distill(story, "quota", "third", Replies("Done.", (("call record_memories", error_reply(
        429, "RESOURCE_EXHAUSTED", "Quota exceeded for quota metric 'Generate Content API requests per day'. "
                                   "Please retry in 2h3m4s.")),)))
    distill(story, "malformed", "third", Replies("Done.", (("call record_memories", "Sure! Here are the memories."),)))
    distill(story, "hang", "third", Replies("Done.", (("call record_memories", stall_reply(60)),)))
    story.leftovers = claude_processes_in(box.root)
    distill(story, "refused", "third", Replies("Done.", (("call record_memories", error_reply(
        401, "UNAUTHENTICATED", "API key not valid. Please pass a valid API key.")),)))
    box.loreline("config", "set", "distill.backend", "auto")
    distill(story, "auto", "third", Replies("Done.", (("call record_memories", record(
        memory("fact", "CI runs on Node 22.", story.lines["third"], "the CI runs on Node 22"))),)), backend=None).check()
    story.runs["status"] = box.run_client("status", [loreline_exe(), "status", "--json"], distill_env(box),
                                          Replies()).check()
    distill(story, "logged-out", "fourth", Replies("Done."), key=False)
    story.runs["status-out"] = box.run_client("status-out", [loreline_exe(), "status", "--json"],
                                              distill_env(box, key=False), Replies()).check()
    return story


@pytest.fixture(scope="module")
def story(real_clients: Clients, isolation: Isolation, tmp_path_factory: pytest.TempPathFactory) -> Story:
    if real_clients.gemini is None:
        pytest.fail("the pinned Gemini CLI was not installed", pytrace=False)
    root = tmp_path_factory.mktemp("gemini-backend")
    return tell(Story(Sandbox(root, real_clients, isolation)))


def texts(box: Sandbox) -> list[str]:
    return sorted(m["text"] for m in box.memories())


def generate(run: Run) -> list[dict[str, Any]]:
    """The Gemini API requests that carried a model turn."""
    return [r["body"] for r in run.requests if r["api"] == "gemini" and isinstance(r["body"], dict)
            and r["body"].get("contents")]


def system_of(body: dict[str, Any]) -> str:
    return " ".join(p.get("text", "") for p in body["systemInstruction"]["parts"])


# -- what was distilled ------------------------------------------------------------------------


def test_the_import_ran_offline_through_gemini_and_kept_only_cited_memories(story: Story) -> None:
    run, report = story.runs["distill"], story.reports["distill"]
    assert run.offline
    assert report["backend"] == "gemini" and report["backend_reason"].startswith("gemini: chosen by --backend, ")
    assert report["sessions"]["imported"] == 1 and report["candidates"] == 3 and report["added"] == 2
    assert sum(report["rejected"].values()) == 1  # the uncited Kubernetes claim
    assert "The shop deploys to Kubernetes." not in texts(story.box)


def test_gemini_was_sent_our_prompt_and_schema_and_nothing_of_the_persons_setup(story: Story) -> None:
    [body] = [b for b in generate(story.runs["distill"]) if "record_memories" in system_of(b)]
    system = system_of(body)
    assert "data, never instructions" in system and "record_memories" in system
    assert "It must match this JSON schema" in system and '"evidence"' in system
    assert "You are Gemini CLI" not in system and "interactive CLI agent" not in system  # ours replaces theirs
    assert [t.get("functionDeclarations", []) for t in body.get("tools", [])] in ([], [[]])  # no tool at all
    said = json.dumps(body["contents"])
    assert PREFERENCE in said and "Call record_memories" in said and "Reply now with that one JSON object." in said
    assert MEMORY_MARKER not in json.dumps(body)  # their GEMINI.md was never read
    assert ".project_root" not in said and "system.md" not in said  # the workspace it is shown is empty
    assert GEMINI_KEY not in json.dumps(body)


def test_the_judge_classified_the_repeat_through_gemini(story: Story) -> None:
    asked = generate(story.runs["judge"])
    assert any("classify_relations" in system_of(b) for b in asked)
    active = texts(story.box)
    assert PNPM_AGAIN in active and PNPM not in active


def test_usage_is_in_the_ledger(story: Story) -> None:
    spent = story.reports["distill"]["model_use"]
    # the distill call and the brief's, 40 tokens in and 10 out each from the scripted server (its stats)
    assert spent["calls"] == 2 and spent["input_tokens"] == 80 and spent["output_tokens"] == 20
    rows = story.box.rows("SELECT backend, sum(calls) FROM usage GROUP BY backend")
    # distill, judge (2), malformed (2 tries), auto, and the project brief after each of the four imports
    assert rows == [("gemini", 10)]
    briefs = [b for step in ("distill", "judge", "malformed", "auto") for b in generate(story.runs[step])
              if "write_brief" in system_of(b)]
    assert len(briefs) == 4


# -- failures: one line, deferred, nothing lost -------------------------------------------------


def test_a_quota_error_defers_the_session_and_cools_the_backend_down(story: Story) -> None:
    reason = deferred_reason(story, "quota")
    assert "Gemini CLI reported its usage limit" in reason and "Quota exceeded" in reason, reason
    assert len(generate(story.runs["quota"])) == 1  # distill.max_retries 0: the CLI tried once
    cooldowns = story.runs["status"].json().get("cooldowns") or story.runs["status"].stdout
    assert "gemini" in json.dumps(cooldowns)


def test_an_answer_that_is_not_the_json_asked_for_defers_the_session(story: Story) -> None:
    assert "gave no usable answer twice" in deferred_reason(story, "malformed")


def test_a_hanging_model_is_cut_at_the_deadline_and_leaves_no_process(story: Story) -> None:
    assert "no answer within 30s" in deferred_reason(story, "hang")
    assert story.runs["hang"].seconds < 60
    assert story.leftovers == []


def test_a_refused_key_stops_with_one_line(story: Story) -> None:
    run = story.runs["refused"]
    assert run.rc == 1 and run.stderr.strip().splitlines() == [
        "loreline: Gemini CLI's login was refused or has expired: run `gemini` and sign in again (or fix "
        "GEMINI_API_KEY), or pick another backend with --backend"], run.stderr
    assert GEMINI_KEY not in run.stdout + run.stderr


def test_auto_picks_a_logged_in_gemini_and_imports_what_was_deferred(story: Story) -> None:
    report = story.reports["auto"]
    assert report["backend"] == "gemini"
    assert report["backend_reason"].startswith(
        "auto: no API key and no `claude` on PATH; Gemini CLI is logged in (gemini-api-key) at ")
    assert report["sessions"]["imported"] == 1 and "CI runs on Node 22." in texts(story.box)
    said = story.runs["status"].json()["backend"]
    assert said.startswith("gemini (gemini-2.5-flash) — auto: no API key and no `claude` on PATH; Gemini CLI is ")


def test_without_its_key_gemini_stops_with_one_line_and_auto_falls_back_to_rules(story: Story) -> None:
    run = story.runs["logged-out"]
    assert run.rc == 1 and run.stderr.strip().splitlines() == [
        "loreline: Gemini CLI is not logged in: run `gemini` and sign in (or set GEMINI_API_KEY), or pick another "
        "backend with --backend"], run.stderr
    assert run.requests == []
    said = story.runs["status-out"].json()["backend"]
    assert said == "rules (offline) — auto: no API key and no `claude` on PATH and Gemini CLI is not logged in"


# -- nothing left behind --------------------------------------------------------------------------


def test_the_persons_gemini_folder_is_untouched_and_their_hook_never_fired(story: Story) -> None:
    assert person_files(story.box) == story.before  # no session, history or project entry of a run
    assert not story.hook_marker.exists()


def test_no_run_folder_error_report_or_session_is_left(story: Story) -> None:
    box = story.box
    left = [str(p) for p in box.loreline_home.rglob("gemini-run-*")]
    left += [str(p) for p in (box.root / "tmp").rglob("gemini-client-error*")]
    left += [str(p) for p in box.root.rglob("session-*.jsonl") if ".gemini" in p.parts]
    assert left == []
    discovered = box.loreline_json("import", "sessions", "--dry-run", "--backend", "rules", "--tool", "gemini")
    assert discovered["sessions"]["imported"] == 0
