"""The real Codex CLI (`codex exec`) against a fake OpenAI Responses API: its hooks reach
Loreline, its rollout is imported once, and provenance points at the rollout lines.

The story, told once per module:

1. `loreline connect codex` writes Loreline's hooks into `$CODEX_HOME/hooks.json` and leaves
   the user's config.toml (which points the model provider at the fake server) as it was;
   every run passes `--dangerously-bypass-hook-trust`, standing in for the user's trust;
2. `codex exec` stating a preference and a decision (worker lock held: the Stop record is
   read from the spool, then `loreline worker --drain` imports it);
3. `codex exec resume --last` adding a fact and repeating the preference (no lock: the worker
   the SessionEnd hook starts imports it by itself);
4. `codex exec` under `LORELINE_OFF=1` stating a decision: nothing is captured.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.e2e_real.fake_models import Replies
from tests.e2e_real.harness import (
    Clients,
    Isolation,
    Run,
    Sandbox,
    hover_text,
    language_server,
    normalized,
    transcript_line,
    wait_for,
)

pytestmark = pytest.mark.real_clients

PREFERENCE = "In this repo we use uv, never pip."
DECISION = "We'll use SQLite WAL mode because the CLI and the editor read at the same time."
FACT = "The fix was to set PYTHONUTF8=1 in the CI job."
PAUSED = "We decided to use Redis streams because the audit log must stay ordered."
REPLIES = Replies("Understood.", (
    ("wal mode", "Noted: uv only, and SQLite in WAL mode."),
    ("pythonutf8", "Noted: PYTHONUTF8=1 in CI."),
    ("redis streams", "Noted: Redis streams for the audit log."),
))
#: the user's own Codex settings (a comment, a custom provider): connect must keep all of it
USER_CONFIG = """\
# my Codex settings: a local model provider
model = "gpt-fake"
model_provider = "fake"
approval_policy = "never"
sandbox_mode = "read-only"
check_for_update_on_startup = false

[model_providers.fake]
name = "fake"
base_url = "http://127.0.0.1:9/v1"  # replaced per run with -c
env_key = "FAKE_OPENAI_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false

[feedback]
enabled = false
"""


@dataclass(repr=False)
class Story:
    box: Sandbox
    runs: dict[str, Run] = field(default_factory=dict)
    spools: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    memories: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    jobs: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    def __repr__(self) -> str:
        return f"Story({self.box.root})"

    def rollouts(self) -> list[Path]:
        return sorted((self.box.codex_home / "sessions").glob("*/*/*/rollout-*.jsonl"))

    def jobs_of(self, path: Path) -> list[dict[str, Any]]:
        return [j for j in self.box.jobs() if j["session_key"] == str(path)]


def codex(story: Story, step: str, *args: str, **env: str) -> Run:
    run = story.box.codex(step, ["exec", "--dangerously-bypass-hook-trust", *args], REPLIES, **env).check()
    story.runs[step] = run
    return run


def tell(story: Story) -> Story:
    box = story.box
    (box.codex_home / "config.toml").write_text(USER_CONFIG, encoding="utf-8")
    box.loreline("connect", "codex")
    with box.worker_lock():
        codex(story, "startup", f"{PREFERENCE} {DECISION}")
        wait_for(lambda: any(r["event"] == "SessionEnd" for r in box.spool_records()),
                 "the SessionEnd hook to reach Loreline's spool", timeout=20)
        story.spools["startup"] = box.spool_records()
    box.drain()
    story.memories["startup"] = box.memories()

    codex(story, "resume", "resume", "--last", f"{FACT} {PREFERENCE}")
    rollout = story.rollouts()[0]

    def imported() -> bool:
        found = story.jobs_of(rollout)
        return len(found) == 2 and all(j["state"] == "done" for j in found)
    wait_for(imported, f"the worker started by SessionEnd to import the resumed rollout (jobs: {box.jobs()})")
    story.memories["resume"] = box.memories()

    story.jobs["before-paused"] = box.jobs()
    codex(story, "paused", PAUSED, LORELINE_OFF="1")
    wait_for(lambda: len(story.rollouts()) == 2, "the paused session's rollout", timeout=20)
    story.spools["paused"], story.jobs["paused"] = box.spool_records(), box.jobs()
    box.drain()
    story.memories["paused"], story.jobs["after-paused"] = box.memories(), box.jobs()
    return story


@pytest.fixture(scope="module")
def story(real_clients: Clients, isolation: Isolation, tmp_path_factory: pytest.TempPathFactory) -> Story:
    return tell(Story(Sandbox(tmp_path_factory.mktemp("codex-e2e"), real_clients, isolation)))


def first_rollout(story: Story) -> Path:
    return min(story.rollouts(), key=lambda p: p.name)


def test_the_pinned_client_ran_offline_against_the_fake_api(story: Story, real_clients: Clients) -> None:
    for step, run in story.runs.items():
        assert run.offline or not story.box.isolation.netns, f"{step}: a route left the namespace"
        posts = [r for r in run.requests if r["method"] == "POST"]
        assert posts and {r["path"] for r in posts} == {"/v1/responses"}, (step, [r["path"] for r in posts])
        assert all(r["body"].get("stream") is True for r in posts), f"{step}: a non-streaming request"
        assert real_clients.versions["codex"] in posts[0]["headers"].get("user-agent", "")
    assert story.runs["startup"].stdout.strip() == "Noted: uv only, and SQLite in WAL mode."


def test_connect_added_hooks_and_kept_the_users_config(story: Story) -> None:
    config = (story.box.codex_home / "config.toml").read_text(encoding="utf-8")
    assert config.startswith(USER_CONFIG) and "[mcp_servers.loreline]" in config  # kept, plus the MCP server
    hooks = json.loads((story.box.codex_home / "hooks.json").read_text(encoding="utf-8"))["hooks"]
    assert list(hooks) == ["SessionStart", "UserPromptSubmit", "Stop", "PreCompact", "SessionEnd"]
    for event, groups in hooks.items():
        [[handler]] = [g["hooks"] for g in groups]
        assert handler["command"].endswith(f"loreline-hook {event}") and Path(handler["command"].split()[0]).is_absolute()


def test_the_stop_and_session_end_hooks_reached_loreline(story: Story) -> None:
    records = story.spools["startup"]
    assert [r["event"] for r in records] == ["Stop", "SessionEnd"], records
    rollout = first_rollout(story)
    thread = rollout.stem.split("-", 6)[-1]
    for record in records:
        assert (record["tool"], record["session_id"]) == ("codex", thread), record
        assert record["transcript_path"] == str(rollout) and record["cwd"] == str(story.box.repo)
    assert records[0]["last_assistant_message"] == "Noted: uv only, and SQLite in WAL mode."
    assert records[0]["extra"].get("turn_id"), records[0]


def test_the_rollout_was_imported_once(story: Story) -> None:
    rollout = first_rollout(story)
    resumed = [p for p in story.rollouts() if PREFERENCE in p.read_text(encoding="utf-8")]
    assert resumed == [rollout], "`exec resume --last` appended to the same rollout"
    jobs = story.jobs_of(rollout)
    assert [j["state"] for j in jobs] == ["done", "done"] and all(j["last_error"] is None for j in jobs), jobs
    final = story.memories["paused"]
    assert sorted(m["text"] for m in final) == sorted([PREFERENCE, DECISION, FACT])
    assert story.memories["resume"] == final
    assert story.box.rows("SELECT count(*) FROM ledger WHERE session_path = ?", (str(rollout),)) == [(1,)]
    adds = story.box.rows("SELECT memory_id, count(*) FROM audit WHERE action = 'add' GROUP BY memory_id")
    assert sorted(adds) == sorted((m["id"], 1) for m in final), adds
    repeated = next(m for m in final if m["text"] == PREFERENCE)
    assert len(repeated["provenance"]) == 2, "one source per time it was said (not per Codex log stream)"


def test_provenance_points_at_the_rollout_lines(story: Story) -> None:
    rollout = first_rollout(story)
    for memory in story.memories["paused"]:
        for source in memory["provenance"]:
            assert (source["tool"], source["session_path"]) == ("codex", str(rollout)), source
            line = transcript_line(rollout, source["line_start"])
            assert line["type"] == "response_item" and line["payload"]["role"] == "user", line
            assert normalized(memory["text"]) in normalized(json.dumps(line["payload"]["content"])), (memory, line)


def test_loreline_off_captures_nothing(story: Story, tmp_path: Path) -> None:
    assert story.spools["paused"] == []
    assert story.jobs["paused"] == story.jobs["before-paused"] == story.jobs["after-paused"]
    assert story.memories["paused"] == story.memories["resume"]
    paused = max(story.rollouts(), key=lambda p: p.name)
    assert PAUSED in paused.read_text(encoding="utf-8")
    left = story.box.loreline_json("import", "sessions", "--path", str(paused), "--dry-run")
    assert left["preview"] == [] and [p["reason"][:7] for p in left["sessions"]["left_out"]] == ["paused:"]
    report = story.box.loreline_json("import", "sessions", "--path", str(paused), "--dry-run", "--include-paused")
    assert [m["text"] for c in report["preview"] for m in c["memories"]] == [PAUSED], "control: it had a decision"


async def test_the_language_server_shows_codex_provenance(story: Story) -> None:
    box = story.box
    script = box.repo / "ci.sh"
    script.write_text("export PYTHONUTF8=1\n", encoding="utf-8")
    async with language_server(box) as client:
        page = await client.protocol.send_request_async("loreline/memories", {})
        assert sorted(m.text for m in page.items) == sorted([PREFERENCE, DECISION, FACT])
        shown = await hover_text(client, script, line=0, character=9)
    assert shown is not None, "no hover on `PYTHONUTF8`"
    fact = next(m for m in story.memories["paused"] if m["text"] == FACT)
    (source,) = fact["provenance"]
    assert FACT in shown and f"codex · session `{source['session_id'][:8]}`" in shown, shown
    assert f"lines {source['line_start']}*" in shown, shown
