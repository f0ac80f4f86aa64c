"""Codex CLI: `~/.codex` (`$CODEX_HOME`), rollouts in `sessions/YYYY/MM/DD/rollout-*.jsonl`
(and `archived_sessions/`), hooks in `hooks.json` (its `notify` program in `config.toml` where
hooks are off), the MCP server as `[mcp_servers.loreline]` in `config.toml`, native memory in
`memories/MEMORY.md`. Distillation with its login: the `codex` backend (`codex exec`), when
`loreline.distill` provides it."""

from __future__ import annotations

import glob
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .base import Applied, Assistant, Connector

if TYPE_CHECKING:
    from ..transcripts.discover import Discovery, Found

NAME = "codex"
TRUST_HINT = ("Codex runs new hooks only once you trust them: start `codex`, type /hooks and trust "
              "Loreline's entries (again after Loreline moves or changes them).")


def find_sessions(root: Path, result: Discovery) -> list[Found]:
    from ..transcripts import discover

    return discover.codex_sessions(root, result)


def locate_session(root: Path, session_id: str) -> Path | None:
    found = sorted(glob.glob(str(root / "sessions" / "*" / "*" / "*" / f"rollout-*-{glob.escape(session_id)}.jsonl")))
    return Path(found[-1]) if found else None


def memory_files(root: Path) -> list[Path]:
    from ..native import codex_memory

    path = codex_memory.memory_file(root)
    return [path] if path.is_file() else []


def connect(project: Path | None) -> Applied:
    from ..connect import all_or_nothing, codex, mcp

    with all_or_nothing(codex.hooks_path(), codex.config_path()):
        hooks, *moved = codex.connect()
        server = mcp.connect_codex()
    return Applied(hooks, tuple(moved), server)


def disconnect(project: Path | None) -> Applied:
    from ..connect import all_or_nothing, codex, mcp

    with all_or_nothing(codex.hooks_path(), codex.config_path()):
        hooks, *rest = codex.disconnect()
        server = mcp.disconnect_codex()
    return Applied(hooks, tuple(rest), server)


def status() -> dict[str, Any]:
    """Codex's hooks in hooks.json when there are any, else its notify program in config.toml."""
    from ..connect import claude_code, codex

    events = claude_code.installed(codex.hooks_path(), tool=NAME)
    if events:
        return {"path": str(codex.hooks_path()), "installed": True, "events": events}
    return {"path": str(codex.config_path()), "installed": codex.notify_installed(), "events": []}


def _files() -> list[Path]:
    from ..connect import codex

    return [codex.config_path(), codex.hooks_path()]


ASSISTANT = Assistant(
    name=NAME, label="Codex", home_default=".codex", home_env="CODEX_HOME", home_option="--codex-home",
    find_sessions=find_sessions, locate_session=locate_session, memory_files=memory_files,
    connector=Connector(connect, disconnect, status, after_connect=TRUST_HINT, files=lambda: _files(),
                        summary="hooks.json hooks; the config.toml notify program where Codex's hooks are off"),
    distill_backend="codex",
)
