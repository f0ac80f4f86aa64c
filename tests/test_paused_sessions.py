"""`LORELINE_OFF=1` means off: the hooks record the session as paused (by id, nothing else),
and neither `loreline import sessions`, the capture worker nor the MCP server learns from or
serves it; only a file named with `--path … --include-paused` is imported."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from loreline import capture
from loreline.capture.worker import Worker
from loreline.distill.rules import RulesDistiller
from loreline.samples.builder import ClaudeSession
from loreline.store import Store
from tests.capture_helpers import db_rows, event, hook_env, import_into_store, remembered_session, run_hook, \
    worker_lock_held
from tests.conftest import loreline_exe, subprocess_env

PNPM = "In this repo we use pnpm, never npm."


def _slug(cwd: str) -> str:
    return cwd.replace("/", "-")


def _claude_tree(tmp_path: Path) -> tuple[Path, ClaudeSession, ClaudeSession]:
    """A Claude Code folder with two sessions of one project, both an hour old (discoverable)."""
    root = tmp_path / "claude"
    (tmp_path / "shop").mkdir()
    kept = ClaudeSession(str(tmp_path / "shop"))
    kept.user(PNPM)
    kept.assistant("Noted.")
    paused = ClaudeSession(str(tmp_path / "shop"))
    paused.user("From now on we deploy with fly.io, never Heroku.")
    paused.assistant("Noted.")
    for session in (kept, paused):
        path = session.write(root / "projects" / _slug(session.cwd) / f"{session.session_id}.jsonl")
        os.utime(path, (time.time() - 3600, time.time() - 3600))
    return root, kept, paused


def _transcript(root: Path, session: ClaudeSession) -> Path:
    return root / "projects" / _slug(session.cwd) / f"{session.session_id}.jsonl"


def _pause(home: Path, session: ClaudeSession, path: Path, *names: str) -> list[bytes]:
    off = hook_env(home, LORELINE_OFF="1")
    outs = []
    for name in names or ("SessionStart", "UserPromptSubmit", "Stop", "SessionEnd"):
        result = run_hook(home, name, stdin=event(name, session, path, prompt="deploy?", source="startup",
                                                  last_assistant_message="Noted."), env=off)
        assert result.returncode == 0 and result.stderr == b""
        outs.append(result.stdout)
    return outs


def _cli(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([loreline_exe(), *args], capture_output=True, text=True, env=subprocess_env(home),
                          timeout=180)


def _texts(home: Path) -> list[str]:
    return sorted(str(r[0]) for r in db_rows(home, "SELECT text FROM memories"))


# -- the hook ------------------------------------------------------------------------------


def test_a_hook_under_loreline_off_records_the_session_id_and_nothing_else(loreline_home: Path,
                                                                          tmp_path: Path) -> None:
    root, _, session = _claude_tree(tmp_path)
    path = _transcript(root, session)
    assert _pause(loreline_home, session, path) == [b""] * 4
    [record] = sorted((loreline_home / "paused").iterdir())
    data = json.loads(record.read_text(encoding="utf-8"))
    assert data["session_id"] == session.session_id and data["transcript_path"] == str(path)
    assert data["tool"] == "claude-code" and record.stat().st_mode & 0o077 == 0
    assert sorted(p.name for p in loreline_home.iterdir()) == ["paused"], "no spool, store, config or state"


def test_codex_notify_under_loreline_off_records_the_thread(loreline_home: Path) -> None:
    thread = "0199a213-81c0-7800-8aa1-bbab2a035a53"
    notify = json.dumps({"type": "agent-turn-complete", "thread-id": thread, "turn-id": "1", "cwd": "/tmp",
                         "input-messages": ["hi"], "last-assistant-message": "hello"})
    result = run_hook(loreline_home, "codex-notify", notify, env=hook_env(loreline_home, LORELINE_OFF="1"))
    assert result.returncode == 0 and result.stdout == b"" and result.stderr == b""
    data = json.loads((loreline_home / "paused" / f"{thread}.json").read_text(encoding="utf-8"))
    assert (data["session_id"], data["tool"]) == (thread, "codex")


# -- imports -------------------------------------------------------------------------------


def test_discovery_leaves_a_paused_session_out_and_says_how_many(loreline_home: Path, tmp_path: Path) -> None:
    root, kept, paused = _claude_tree(tmp_path)
    _pause(loreline_home, paused, _transcript(root, paused), "SessionStart")
    done = _cli(loreline_home, "import", "sessions", "--claude-dir", str(root))
    assert done.returncode == 0, done.stderr
    assert "Imported 1 session " in done.stdout and "1 left out" in done.stdout
    assert "1 × paused: started with LORELINE_OFF=1" in done.stdout
    assert _texts(loreline_home) == [PNPM]
    report = json.loads(_cli(loreline_home, "import", "sessions", "--claude-dir", str(root), "--json").stdout)
    assert [(Path(p["path"]).name, p["reason"].split(":")[0]) for p in report["sessions"]["left_out"]] == \
        [(f"{paused.session_id}.jsonl", "paused")]


def test_a_paused_session_by_path_needs_the_explicit_flag(loreline_home: Path, tmp_path: Path) -> None:
    root, _, paused = _claude_tree(tmp_path)
    path = _transcript(root, paused)
    _pause(loreline_home, paused, path, "Stop")
    done = _cli(loreline_home, "import", "sessions", "--path", str(path))
    assert done.returncode == 0 and "paused" in done.stdout and _texts(loreline_home) == []
    flag_alone = _cli(loreline_home, "import", "sessions", "--include-paused")
    assert flag_alone.returncode == 2 and "--include-paused needs --path" in flag_alone.stderr
    done = _cli(loreline_home, "import", "sessions", "--path", str(path), "--include-paused")
    assert done.returncode == 0 and "Imported 1 session " in done.stdout
    assert any("fly.io" in text for text in _texts(loreline_home))


def test_a_paused_session_under_another_name_is_known_by_its_recorded_id(loreline_home: Path,
                                                                          tmp_path: Path) -> None:
    """A copy of the transcript (another name, no recorded path): the id inside it decides."""
    root, _, paused = _claude_tree(tmp_path)
    _pause(loreline_home, paused, _transcript(root, paused), "SessionStart")
    copy = tmp_path / "copy.jsonl"
    copy.write_bytes(_transcript(root, paused).read_bytes())
    done = _cli(loreline_home, "import", "sessions", "--path", str(copy))
    assert done.returncode == 0 and "paused" in done.stdout and _texts(loreline_home) == []


# -- the worker ------------------------------------------------------------------------------


def test_the_worker_learns_nothing_from_a_paused_session_resumed_with_capture_on(loreline_home: Path,
                                                                                tmp_path: Path) -> None:
    (tmp_path / "proj").mkdir()
    session, path = remembered_session(tmp_path / "proj", tmp_path / "sessions")
    _pause(loreline_home, session, path, "SessionStart")
    with worker_lock_held(loreline_home):  # resumed without LORELINE_OFF: the Stop is spooled
        assert run_hook(loreline_home, "Stop", stdin=event("Stop", session, path)).returncode == 0
    report = Worker(capture.Settings(), distiller=RulesDistiller(), lag_base=0.05, horizon=0.0).drain()
    assert report is not None and (report.ingested, report.done, report.failed) == (1, 1, 0)
    assert _texts(loreline_home) == []
    with Store() as store:
        [(state, error)] = store.rows("SELECT state, last_error FROM jobs")
    assert state == "done" and "paused" in str(error)
    # control: the same session, not paused, is learned from
    other, other_path = remembered_session(tmp_path / "proj", tmp_path / "more")
    import_into_store(other_path)
    assert PNPM in _texts(loreline_home)


# -- the MCP server --------------------------------------------------------------------------


@pytest.fixture
def project(tmp_path: Path, loreline_home: Path) -> Path:
    folder = tmp_path / "shop"
    folder.mkdir()
    _, path = remembered_session(folder, tmp_path / "sessions")
    import_into_store(path)
    return folder


async def test_the_mcp_server_under_loreline_off_says_it_is_paused(project: Path, loreline_home: Path) -> None:
    params = StdioServerParameters(command=loreline_exe(), args=["mcp"], cwd=str(project),
                                   env=subprocess_env(loreline_home, LORELINE_OFF="1"))
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        started = await session.initialize()
        assert started.server_info.name == "loreline"
        assert started.instructions is not None and "paused" in started.instructions
        assert (await session.list_tools()).tools == []
        assert (await session.list_resources()).resources == []
        for name, arguments in (("recall", {"query": "pnpm"}), ("remember", {"text": "x", "kind": "fact",
                                                                             "reason": "y"})):
            result = await session.call_tool(name, arguments)
            text = "\n".join(block.text for block in result.content if block.type == "text")
            assert result.is_error and text.startswith("Loreline is paused for this session (LORELINE_OFF=1)")
            assert "\n" not in text and "pnpm" not in text
    assert len(db_rows(loreline_home, "SELECT id FROM memories")) == 4, "nothing was stored"


async def test_the_mcp_server_serves_its_tools_when_not_paused(project: Path, loreline_home: Path) -> None:
    """Control for the test above."""
    params = StdioServerParameters(command=loreline_exe(), args=["mcp"], cwd=str(project),
                                   env=subprocess_env(loreline_home))
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        assert "recall" in {t.name for t in (await session.list_tools()).tools}
        result = await session.call_tool("recall", {"query": "which package manager, pnpm or npm?"})
        assert not result.is_error
