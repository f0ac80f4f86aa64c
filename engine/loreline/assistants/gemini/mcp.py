"""Gemini CLI's entry for Loreline's MCP server: `mcpServers.loreline` (`{command, args}`) in
its user `settings.json`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...connect import Change
from ...connect.mcp import USER_KEY, connect_json, disconnect_json, loreline_argv

GEMINI_TOOL = "gemini-mcp"


def gemini_entry() -> dict[str, Any]:
    command, *args = loreline_argv()
    return {"command": command, "args": args}


def connect_gemini(path: Path) -> Change:
    """`mcpServers.loreline` in Gemini CLI's user settings.json."""
    return connect_json(path, USER_KEY, GEMINI_TOOL, gemini_entry())


def disconnect_gemini(path: Path) -> Change:
    return disconnect_json(path, USER_KEY, GEMINI_TOOL, gemini_entry(), "no Gemini CLI settings")
