"""The claude-code distillation backend end to end: `loreline import sessions --backend
claude-code` drives the real Claude Code CLI (the pinned version) as `claude -p --json-schema`,
offline, against the loopback fake model, which answers with a call of Claude Code's
`StructuredOutput` tool. No agent SDK is importable in any Loreline run (a plain install).

One story, told once per module:

1. the user works: two real `claude -p` sessions under `LORELINE_OFF=1` (Loreline's hooks are
   connected but capture nothing, so every memory below comes from the claude-code backend);
   a marker hook of the user's own settings records every hook run;
2. distill: the first session is imported with the claude-code backend (worker lock held, so
   a spool file any hook wrote would stay to be seen);
3. judge: the second session repeats the preference in new words; the belief judge's
   `classify_relations` goes through Claude Code too;
4. outage: a third session meets a 529, then a model that does not answer in time, and is
   deferred both times (a refused login in between stops that import with one line), then a
   model so slow that the CLI's own retries would outlast our deadline, which cuts the run and
   defers it again; then a structured answer the schema refuses, twice, defers it too; the
   next run (`--backend` left to `auto`, no API key, Claude Code logged in with a token)
   imports it.

Then: what was stored and rejected, the usage ledger, what Claude Code was sent, and that the
distillation runs left no transcript, fired no hook and queued nothing.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil
import pytest

from tests.conftest import loreline_exe
from tests.e2e_real.conftest import missing
from tests.e2e_real.fake_models import Replies, error_reply, stall_reply, tool_reply
from tests.e2e_real.harness import CLAUDE_KEY, CLAUDE_QUIET, Clients, Isolation, Run, Sandbox

from tests.e2e_real.backend_story import DECISION, LATER, PNPM, PNPM_AGAIN, PREFERENCE, REPEAT, memory

pytestmark = pytest.mark.real_clients

STRUCTURED = "StructuredOutput"


def record(*memories: dict[str, Any]) -> str:
    return tool_reply(STRUCTURED, {"memories": list(memories)})


@dataclass(repr=False)
class Story:
    box: Sandbox
    marker: Path
    sessions: dict[str, Path] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)
    runs: dict[str, Run] = field(default_factory=dict)
    reports: dict[str, dict[str, Any]] = field(default_factory=dict)
    hook_runs: dict[str, int] = field(default_factory=dict)
    spools: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    transcripts: dict[str, set[Path]] = field(default_factory=dict)
    leftovers: list[str] = field(default_factory=list)

    def __repr__(self) -> str:
        return f"Story({self.box.root})"

    def hooks_fired(self) -> int:
        return len(self.marker.read_text(encoding="utf-8").splitlines()) if self.marker.exists() else 0

    def all_transcripts(self) -> set[Path]:
        return set((self.box.home / ".claude" / "projects").rglob("*.jsonl"))


def add_marker_hook(box: Sandbox, marker: Path) -> None:
    """A hook of the user's own (beside Loreline's): it appends a line for every run."""
    path = box.home / ".claude" / "settings.json"
    settings = json.loads(path.read_text(encoding="utf-8"))
    command = f"echo fired >> {shlex.quote(str(marker))}"
    for event in ("SessionStart", "UserPromptSubmit", "Stop", "SessionEnd"):
        settings.setdefault("hooks", {}).setdefault(event, []).append({"hooks": [{"type": "command",
                                                                                  "command": command}]})
    path.write_text(json.dumps(settings, indent=2), encoding="utf-8")


def user_session(story: Story, step: str, said: str) -> None:
    """A real Claude Code session the user had (Loreline paused for it)."""
    run = story.box.claude(step, ["-p", said, "--output-format", "json"], Replies("Noted."), LORELINE_OFF="1").check()
    found = list((story.box.home / ".claude" / "projects").glob(f"*/{run.json()['session_id']}.jsonl"))
    assert len(found) == 1, found
    story.sessions[step] = found[0]
    story.lines[step] = user_line(found[0], said)


def user_line(path: Path, said: str) -> int:
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        entry = json.loads(line)
        if entry.get("type") == "user" and said in json.dumps(entry.get("message", {}), ensure_ascii=False):
            return number
    raise AssertionError(f"{said!r} is not in {path}")


def distill_env(box: Sandbox) -> dict[str, str]:
    env = box.base_env(ANTHROPIC_BASE_URL="http://127.0.0.1:{port}", ANTHROPIC_API_KEY=CLAUDE_KEY,
                       PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring", **CLAUDE_QUIET)
    env["PATH"] = f"{box.clients.claude.parent}:{env['PATH']}"
    env["PYTHONPATH"] = f"{no_sdk(box)}:{env['PYTHONPATH']}"
    return env


def no_sdk(box: Sandbox) -> Path:
    """A folder that makes `claude_agent_sdk` unimportable, as in a plain install."""
    folder = box.root / "plain-install"
    (folder / "claude_agent_sdk").mkdir(parents=True, exist_ok=True)
    (folder / "claude_agent_sdk" / "__init__.py").write_text('raise ImportError("not installed")\n')
    return folder


def distill(story: Story, step: str, session: str, replies: Replies, auto: bool = False) -> dict[str, Any]:
    """`loreline import sessions --backend claude-code` beside the fake model, worker lock held;
    with `auto`, no --backend and no API key: Claude Code is logged in with a token."""
    box = story.box
    env = distill_env(box)
    if auto:
        env["ANTHROPIC_AUTH_TOKEN"] = env.pop("ANTHROPIC_API_KEY")
    backend = [] if auto else ["--backend", "claude-code"]
    # the person's sessions ran under LORELINE_OFF=1 (so no hook captured them): paused, and
    # imported here because they are named by path with --include-paused
    argv = [loreline_exe(), "import", "sessions", *backend, "--path", str(story.sessions[session]), "--include-paused",
            "--json"]
    with box.worker_lock():
        run = box.run_client(step, argv, env, replies).check()
        story.spools[step] = box.spool_records()
    story.runs[step] = run
    story.reports[step] = run.json()
    story.hook_runs[step] = story.hooks_fired()
    story.transcripts[step] = story.all_transcripts()
    return story.reports[step]


def claude_processes_in(root: Path) -> list[str]:
    """Processes still running with a working directory inside `root` (a `claude` left behind)."""
    found = []
    for proc in psutil.process_iter(["pid", "cwd", "cmdline"]):
        cwd = proc.info.get("cwd") or ""
        if cwd.startswith(str(root)):
            found.append(f"{proc.info['pid']} {' '.join(proc.info.get('cmdline') or [])[:120]}")
    return found


def refuse(story: Story, step: str, session: str) -> None:
    """An import whose login the API refuses: it stops with one line and moves nothing."""
    box = story.box
    argv = [loreline_exe(), "import", "sessions", "--backend", "claude-code", "--path", str(story.sessions[session]),
            "--include-paused"]
    replies = Replies("Done.", (("call record_memories", error_reply(401, "authentication_error")),))
    story.runs[step] = box.run_client(step, argv, distill_env(box), replies)
    story.transcripts[step] = story.all_transcripts()


def logged_out(story: Story, step: str, session: str) -> None:
    """An import through a `claude` with no login at all: one line, nothing sent anywhere."""
    box = story.box
    env = distill_env(box)
    env.pop("ANTHROPIC_API_KEY")
    argv = [loreline_exe(), "import", "sessions", "--backend", "claude-code", "--path", str(story.sessions[session]),
            "--include-paused"]
    story.runs[step] = box.run_client(step, argv, env, Replies("Done."))
    story.transcripts[step] = story.all_transcripts()


def tell(story: Story) -> Story:
    box = story.box
    box.loreline("connect", "claude-code")
    add_marker_hook(box, story.marker)
    box.loreline("config", "set", "distill.max_retries", "0")
    user_session(story, "first", f"{PREFERENCE} {DECISION}")
    user_session(story, "second", REPEAT)
    user_session(story, "third", LATER)
    story.hook_runs["users"] = story.hooks_fired()
    story.transcripts["users"] = story.all_transcripts()
    first = story.lines["first"]
    distill(story, "distill", "first", Replies("Done.", (("call record_memories", record(
        memory("preference", PNPM, first, "we use pnpm, never npm"),
        memory("decision", "Billing jobs keep Postgres advisory locks: each needs exactly one worker.", first,
               "keep Postgres advisory locks"),
        memory("fact", "The shop deploys to Kubernetes.", first, "we deploy to kubernetes"))),)))
    distill(story, "judge", "second", Replies("Done.", (
        ("<existing", tool_reply(STRUCTURED, {"relations": [
            {"pair": 1, "relation": "identical", "reason": "the same install rule"}]})),
        ("call record_memories", record(memory("preference", PNPM_AGAIN, story.lines["second"],
                                               "installs go through pnpm here"))))))
    distill(story, "outage", "third", Replies("Done.", (("call record_memories", error_reply(529)),)))
    refuse(story, "refused", "third")
    logged_out(story, "logged-out", "third")
    box.loreline("config", "set", "distill.timeout_seconds", "2")
    distill(story, "stalled", "third", Replies("Done.", (("call record_memories", stall_reply(30)),)))
    box.loreline("config", "set", "distill.timeout_seconds", "1")
    box.loreline("config", "set", "distill.max_retries", "4")  # the CLI would retry past our deadline
    distill(story, "deadline", "third", Replies("Done.", (("call record_memories", stall_reply(30)),)))
    story.leftovers = claude_processes_in(box.root)
    box.loreline("config", "set", "distill.timeout_seconds", "90")
    box.loreline("config", "set", "distill.max_retries", "0")
    distill(story, "malformed", "third", Replies("Done.", (("call record_memories", tool_reply(
        STRUCTURED, {"memories": [{"kind": "fact", "text": "no evidence list"}]})),)))
    box.loreline("config", "set", "distill.backend", "auto")
    distill(story, "recovered", "third", Replies("Done.", (("call record_memories", record(
        memory("fact", "CI runs on Node 22.", story.lines["third"], "the CI runs on Node 22"))),)), auto=True)
    return story


@pytest.fixture(scope="module")
def story(real_clients: Clients, isolation: Isolation, tmp_path_factory: pytest.TempPathFactory) -> Story:
    root = tmp_path_factory.mktemp("claude-code-backend")
    return tell(Story(Sandbox(root, real_clients, isolation), root / "hook-runs.txt"))


def texts(box: Sandbox) -> list[str]:
    return sorted(m["text"] for m in box.memories())


# -- what was distilled ------------------------------------------------------------------------


def test_the_import_ran_offline_through_claude_code_and_says_why(story: Story) -> None:
    run, report = story.runs["distill"], story.reports["distill"]
    assert run.offline, "the import was not in a network namespace without routes"
    assert report["backend"] == "claude-code"
    assert report["backend_reason"].startswith("claude-code: chosen by --backend, ")
    assert str(story.box.clients.claude.resolve()) in str(Path(report["backend_reason"].split(", ", 1)[1]).resolve())
    assert report["sessions"]["imported"] == 1 and report["sessions"]["deferred"] == []


def test_evidence_validation_kept_the_cited_memories_and_rejected_the_invented_one(story: Story) -> None:
    report = story.reports["distill"]
    assert report["candidates"] == 3 and report["added"] == 2
    assert sum(report["rejected"].values()) == 1, report["rejected"]
    memories = {m["text"]: m for m in story.box.memories()}
    assert "The shop deploys to Kubernetes." not in memories
    decision = memories["Billing jobs keep Postgres advisory locks: each needs exactly one worker."]
    source = decision["provenance"][0]
    assert source["session_path"] == str(story.sessions["first"])
    assert source["line_start"] <= story.lines["first"] <= source["line_end"]


def test_claude_code_was_sent_our_prompt_and_only_the_structured_answer_tool(story: Story) -> None:
    asked = [r["body"] for r in story.runs["distill"].requests if r["api"] == "anthropic" and r["body"]]
    # the structured answer ends the distill run; the import then asks the same login for the
    # project's brief (the scripted server has no brief to give: the rules brief stands in)
    distilled = [b for b in asked if b["tools"][0]["input_schema"]["required"] == ["memories"]]
    briefed = [b for b in asked if b["tools"][0]["input_schema"]["required"] == ["sections"]]
    assert len(distilled) == 1 and briefed and len(asked) == len(distilled) + len(briefed)
    assert "write_brief" in json.dumps(briefed[0]["system"]) and PREFERENCE not in json.dumps(briefed[0]["messages"])
    [body] = distilled
    assert [t["name"] for t in body["tools"]] == [STRUCTURED]
    assert body["tools"][0]["input_schema"]["required"] == ["memories"]
    assert body["model"] == "claude-haiku-4-5"
    system = json.dumps(body["system"])
    assert "record_memories" in system and "call the StructuredOutput tool instead" in system
    assert PREFERENCE in json.dumps(body["messages"]) and "Call record_memories" in json.dumps(body["messages"])


def test_the_judge_classified_the_repeat_through_claude_code(story: Story) -> None:
    asked = [r["body"] for r in story.runs["judge"].requests if r["api"] == "anthropic" and r["body"]]
    classify = [b for b in asked if "relations" in b["tools"][0]["input_schema"]["properties"]]
    assert classify, [b["tools"][0]["input_schema"] for b in asked]
    assert PNPM in json.dumps(classify[0]["messages"]) and PNPM_AGAIN in json.dumps(classify[0]["messages"])
    active = texts(story.box)
    assert PNPM_AGAIN in active and PNPM not in active  # identical: a new version superseded the old wording


def test_usage_is_in_the_ledger_and_the_report(story: Story) -> None:
    spent = story.reports["distill"]["model_use"]
    # the distill call and the brief's (the scripted server answers each request with 40 in, 10 out;
    # the brief's run asks twice: the CLI asks again itself when no structured answer came)
    assert spent["model"] == "claude-haiku-4-5" and spent["calls"] == 2
    assert spent["input_tokens"] == 40 + 80 and spent["output_tokens"] == 10 + 20
    rows = story.box.rows("SELECT backend, model, attended, sum(calls), sum(input_tokens) FROM usage "
                          "GROUP BY backend, model, attended")
    # distill, judge (2 calls), malformed (2 tries of 3 requests each: the CLI asks again itself),
    # recovered: 6 calls, 400 tokens; and the brief asked for after the four imports that changed
    # the memories: 4 calls of 80
    assert rows == [("claude-code", "claude-haiku-4-5", 1, 10, 720)]


def test_an_outage_defers_the_session_and_the_next_run_imports_it(story: Story) -> None:
    outage = story.reports["outage"]
    assert outage["sessions"]["imported"] == 0 and outage["sessions"]["failed"] == []
    [(path, reason)] = [(d["path"], d["reason"]) for d in outage["sessions"]["deferred"]]
    assert path == str(story.sessions["third"]) and "deferred" in reason and "529" in reason
    refused = story.runs["refused"]
    assert refused.rc == 1 and refused.stderr.strip().splitlines() == [
        "loreline: Claude Code's login was refused (401): run `claude` and /login, or pick another backend with "
        "--backend"], refused.stderr
    out = story.runs["logged-out"]
    assert out.rc == 1 and out.stderr.strip().splitlines() == [
        "loreline: Claude Code's login was refused (no login): run `claude` and /login, or pick another backend "
        "with --backend"], out.stderr
    assert [r for r in out.requests if r["api"] == "anthropic"] == []
    stalled = story.reports["stalled"]
    assert stalled["sessions"]["imported"] == 0 and stalled["sessions"]["failed"] == []
    assert [d["path"] for d in stalled["sessions"]["deferred"]] == [str(story.sessions["third"])]
    assert story.runs["stalled"].seconds < 20  # bounded: a 2 s request timeout, no retry, 6 s for the whole call
    deadline = story.reports["deadline"]
    [(path, reason)] = [(d["path"], d["reason"]) for d in deadline["sessions"]["deferred"]]
    assert path == str(story.sessions["third"]) and "no answer within 3s" in reason, reason
    assert story.runs["deadline"].seconds < 15
    assert story.leftovers == []  # the cut-off run's `claude` was stopped with it
    malformed = story.reports["malformed"]
    assert malformed["sessions"]["imported"] == 0 and malformed["sessions"]["failed"] == []
    [(path, reason)] = [(d["path"], d["reason"]) for d in malformed["sessions"]["deferred"]]
    assert path == str(story.sessions["third"]) and "gave no usable answer twice" in reason, reason
    recovered = story.reports["recovered"]
    assert recovered["sessions"]["imported"] == 1 and recovered["added"] == 1
    assert "CI runs on Node 22." in texts(story.box)


# -- what the distillation runs left behind: nothing ------------------------------------------


def test_no_hook_fired_for_any_distillation_run(story: Story) -> None:
    assert story.hook_runs["users"] >= 3  # the marker hook works: the user's sessions fired it
    distilled = ("distill", "judge", "outage", "stalled", "deadline", "malformed", "recovered")
    assert {story.hook_runs[step] for step in distilled} == {story.hook_runs["users"]}
    assert all(story.spools[step] == [] for step in story.spools)
    assert story.box.jobs() == []


def test_no_distillation_run_left_a_transcript(story: Story) -> None:
    assert len(story.transcripts["users"]) == 3
    for step in ("distill", "judge", "outage", "refused", "logged-out", "stalled", "deadline", "malformed",
                 "recovered"):
        assert story.transcripts[step] == story.transcripts["users"], step
    discovered = story.box.loreline_json("import", "sessions", "--dry-run", "--backend", "rules",
                                         "--claude-dir", str(story.box.home / ".claude"))
    seen = {d["path"] for d in discovered["sessions"]["left_out"]}
    assert seen <= {str(p) for p in story.transcripts["users"]} | {str(story.box.home / ".claude" / "projects")}


def test_auto_picks_the_logged_in_claude_code_when_there_is_no_api_key(story: Story) -> None:
    report = story.reports["recovered"]
    assert report["backend"] == "claude-code"
    assert report["backend_reason"].startswith("auto: no API key; Claude Code is logged in (oauth_token) at ")


def test_the_wall_time_of_one_distillation_call(story: Story) -> None:
    seconds = story.runs["distill"].seconds
    print(f"\nclaude-code import of one chunk (loreline start, one Claude Code run, store): {seconds:.2f}s")
    assert seconds < 60


# -- `loreline status` says which backend auto picks, and why -----------------------------------


def status_backend(story: Story, name: str, home: Path, claude_on_path: bool = True, **extra: str) -> str:
    """`loreline status --json` with HOME at `home` and a fresh Loreline home (distill.backend
    left at auto)."""
    box = story.box
    home.mkdir(parents=True, exist_ok=True)
    env = box.base_env(HOME=str(home), LORELINE_HOME=str(home / "loreline"),
                       PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring", **CLAUDE_QUIET, **extra)
    if claude_on_path:
        env["PATH"] = f"{box.clients.claude.parent}:{env['PATH']}"
    run = box.run_client(name, [loreline_exe(), "status", "--json"], env, Replies()).check()
    return str(run.json()["backend"])


def test_status_without_key_or_login_says_rules_and_why(story: Story) -> None:
    said = status_backend(story, "status-none", story.box.root / "status-none")
    assert said == "rules (offline) — auto: no API key and Claude Code is not logged in"
    assert status_backend(story, "status-no-cli", story.box.root / "status-no-cli", claude_on_path=False) == (
        "rules (offline) — auto: no API key and no `claude` on PATH")


def test_status_with_a_claude_login_says_claude_code(story: Story) -> None:
    home = story.box.root / "status-login"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / ".credentials.json").write_text(json.dumps({"claudeAiOauth": {
        "accessToken": "sk-ant-oat01-fake", "refreshToken": "sk-ant-ort01-fake", "expiresAt": 4102444800000,
        "scopes": ["user:inference"], "subscriptionType": "pro"}}), encoding="utf-8")
    said = status_backend(story, "status-login", home)
    assert said.startswith("claude-code (claude-haiku-4-5) — auto: no API key; Claude Code is logged in (claude.ai) at ")


def test_status_with_an_api_key_says_anthropic_first(story: Story) -> None:
    said = status_backend(story, "status-key", story.box.root / "status-key", ANTHROPIC_API_KEY=CLAUDE_KEY)
    assert said == ("anthropic (claude-haiku-4-5, key from ANTHROPIC_API_KEY) — auto: an Anthropic API key is "
                    "configured (ANTHROPIC_API_KEY)")
