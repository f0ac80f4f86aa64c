"""Gemini CLI: Loreline's hooks and MCP server in its user `settings.json` (`~/.gemini`, or
`$GEMINI_CLI_HOME/.gemini`).

Gemini CLI reads Claude Code's hook schema (`hooks.<Event>: [{matcher?, hooks: [{type:
"command", command, timeout}]}]`, the timeout in milliseconds), sends the same JSON on stdin
(`session_id`, `transcript_path`, `cwd`, `hook_event_name`, and `prompt` for BeforeAgent,
`source` / `reason` for the session events) and reads the same answer
(`hookSpecificOutput.additionalContext`). So `claude_code.connect` writes the hooks, with this
table: SessionStart injects the memory block, BeforeAgent adds the memories relevant to the
prompt, SessionEnd records the session and starts the worker. The MCP server goes under
`mcpServers.loreline` in the same file. A settings file connect created is removed again by
disconnect when nothing else is left in it. See `loreline.connect` for the ownership, backup,
symlink, lock and atomic-write rules.
"""

from __future__ import annotations

from pathlib import Path

from ..claude_code import install as claude_code
from . import mcp
from ...connect import Change, created_file, remove_if_created

TOOL = "gemini"
SETTINGS_NAME = "settings.json"
HOOKS: tuple[claude_code.Hook, ...] = (
    claude_code.Hook("SessionStart", "inject the project's memories"),
    claude_code.Hook("BeforeAgent", "add the memories relevant to the prompt", 5),
    claude_code.Hook("SessionEnd", "record, start the worker"),
)
EVENTS = tuple(hook.event for hook in HOOKS)


def settings_path() -> Path:
    from . import folder

    return folder.home() / SETTINGS_NAME


def connect(path: Path | None = None) -> tuple[Change, Change]:
    """The hooks, then the MCP server, in `path` (the user settings by default)."""
    path = path or settings_path()
    with created_file(path, TOOL):
        hooks = claude_code.connect(path, tool=TOOL, table=HOOKS)
        server = mcp.connect_gemini(path)
    return hooks, server


def disconnect(path: Path | None = None) -> tuple[Change, Change]:
    path = path or settings_path()
    hooks = claude_code.disconnect(path, tool=TOOL, table=HOOKS)
    server = mcp.disconnect_gemini(path)
    remove_if_created(path, TOOL)
    return hooks, server


def installed(path: Path | None = None) -> list[str]:
    return claude_code.installed(path or settings_path(), tool=TOOL, table=HOOKS)
