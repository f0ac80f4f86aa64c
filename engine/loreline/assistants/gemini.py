"""Gemini CLI: `~/.gemini` (`$GEMINI_CLI_HOME/.gemini`), sessions in
`tmp/<project>/chats/session-<time>-<id8>.jsonl`, hooks (SessionStart, BeforeAgent, SessionEnd)
and the MCP server in `settings.json`, native memory in GEMINI.md files. No distillation backend
uses its login yet."""

from __future__ import annotations

import glob
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .base import Applied, Assistant, Connector

if TYPE_CHECKING:
    from ..transcripts.discover import Discovery, Found

NAME = "gemini"
MEMORY_NAME = "GEMINI.md"


def find_sessions(root: Path, result: Discovery) -> list[Found]:
    from ..transcripts import discover

    return discover.gemini_sessions(root, result)


def locate_session(root: Path, session_id: str) -> Path | None:
    """The session file whose name ends with the id's first eight characters and whose first
    line names the whole id."""
    short = glob.escape(session_id[:8])
    for name in sorted(glob.glob(str(root / "tmp" / "*" / "chats" / f"session-*-{short}.jsonl")), reverse=True):
        try:
            with open(name, "rb") as handle:
                head = handle.readline(64 * 1024)
        except OSError:
            continue
        if session_id.encode() in head:
            return Path(name)
    return None


def memory_files(root: Path) -> list[Path]:
    """The global GEMINI.md (every session loads it)."""
    path = root / MEMORY_NAME
    return [path] if path.is_file() else []


def connect(project: Path | None) -> Applied:
    from ..connect import all_or_nothing, gemini

    path = gemini.settings_path()
    with all_or_nothing(path):
        hooks, server = gemini.connect(path)
    return Applied(hooks, (), server)


def disconnect(project: Path | None) -> Applied:
    from ..connect import all_or_nothing, gemini

    path = gemini.settings_path()
    with all_or_nothing(path):
        hooks, server = gemini.disconnect(path)
    return Applied(hooks, (), server)


def status() -> dict[str, Any]:
    from ..connect import gemini

    events = gemini.installed()
    return {"path": str(gemini.settings_path()), "installed": bool(events), "events": events}


def _files() -> list[Path]:
    from ..connect import gemini

    return [gemini.settings_path()]


ASSISTANT = Assistant(
    name=NAME, label="Gemini CLI", home_default=".gemini", home_env="GEMINI_CLI_HOME", home_env_parent=True,
    home_option="--gemini-dir", find_sessions=find_sessions, locate_session=locate_session,
    memory_files=memory_files,
    connector=Connector(connect, disconnect, status, summary="settings.json hooks and MCP server",
                        files=lambda: _files()),
)
