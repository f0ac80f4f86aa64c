"""Discovery of Claude Code sessions: window, cap, settling files, sidecars, reasons."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from loreline.assistants.registry import discover_claude, get

NOW = 2_000_000_000.0


def _session(root: Path, slug: str, name: str, age_seconds: float) -> Path:
    path = root / "projects" / slug / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('{"type":"summary","summary":"x"}\n')
    os.utime(path, (NOW - age_seconds, NOW - age_seconds))
    return path


def _uuid(n: int) -> str:
    return f"{n:08x}-0000-4000-8000-000000000000.jsonl"


def test_window_cap_settling_and_sidecars_each_have_a_reason(tmp_path: Path) -> None:
    fresh = [_session(tmp_path, "-p", _uuid(i), 3600 * (i + 1)) for i in range(5)]
    old = _session(tmp_path, "-p", _uuid(50), 86_400 * 20)
    busy = _session(tmp_path, "-p", _uuid(60), 60)
    sidecar = _session(tmp_path, "-p", "agent-3be551df.jsonl", 3600)
    nested = _session(tmp_path, "-p", f"{_uuid(1)[:-6]}/subagents/agent-a1.jsonl", 3600)
    odd = _session(tmp_path, "-p", "notes.jsonl", 3600)
    found = discover_claude(tmp_path, days=14, max_sessions=3, now=NOW)
    assert [f.path for f in found.sessions] == fresh[:3]
    reasons = dict(found.left_out)
    assert reasons[str(old)].startswith("older than 14 days")
    assert "still being written" in reasons[str(busy)]
    assert reasons[str(sidecar)] == reasons[str(nested)] == "subagent sidecar, not a session"
    assert reasons[str(odd)] == "not a session file name"
    assert all("cap of 3" in reasons[str(p)] for p in fresh[3:])
    assert len(found.left_out) == 7
    assert [p for p, _ in found.in_import_order()] == list(reversed(fresh[:3]))


def test_missing_projects_folder_is_reported(tmp_path: Path) -> None:
    found = discover_claude(tmp_path / "nothing", now=time.time())
    assert found.sessions == [] and "no Claude Code projects folder" in found.left_out[0][1]


def test_claude_dir_precedence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "env"))
    assert get("claude-code").home(str(tmp_path / "flag")) == tmp_path / "flag"
    assert get("claude-code").home(None) == tmp_path / "env"
    monkeypatch.delenv("CLAUDE_CONFIG_DIR")
    assert get("claude-code").home(None) == Path.home() / ".claude"
