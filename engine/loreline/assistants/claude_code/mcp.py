"""Claude Code's entry for Loreline's MCP server, where its own `claude mcp add` puts one: the
user scope is `mcpServers` at the top of its global config (`~/.claude.json`, or
`$CLAUDE_CONFIG_DIR/.claude.json`); the local scope, personal to one project and never
committed, is `projects[<folder>].mcpServers` in the same file."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ...connect import Change
from ...connect.mcp import USER_KEY, connect_json, disconnect_json, loreline_argv

CLAUDE_TOOL = "claude-code-mcp"


def claude_config_path() -> Path:
    base = os.environ.get("CLAUDE_CONFIG_DIR", "").strip()
    return (Path(base).expanduser() if base else Path.home()) / ".claude.json"


def claude_entry() -> dict[str, Any]:
    command, *args = loreline_argv()
    return {"type": "stdio", "command": command, "args": args, "env": {}}


def connect_claude(project: Path | None = None, path: Path | None = None) -> Change:
    """Add the server to the user scope, or to `project`'s local scope."""
    path = path or claude_config_path()
    return connect_json(path, USER_KEY if project is None else str(project), CLAUDE_TOOL, claude_entry())


def disconnect_claude(project: Path | None = None, path: Path | None = None) -> Change:
    path = path or claude_config_path()
    return disconnect_json(path, USER_KEY if project is None else str(project), CLAUDE_TOOL, claude_entry(),
                            "no Claude Code config")
