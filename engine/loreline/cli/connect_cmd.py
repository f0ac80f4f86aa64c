"""`loreline connect|disconnect claude-code|codex`: install or remove continuous capture."""

from __future__ import annotations

import argparse

TYPE_CHECKING = False  # typing and pathlib are left to the commands that run: `--help` imports neither
if TYPE_CHECKING:
    from pathlib import Path

    from ..connect import Change

TOOLS = ("claude-code", "codex")
PAUSE_HINT = ("Capture runs for every project; LORELINE_OFF=1 in a session's environment pauses it, "
              "capture.exclude in the config skips folders, and `loreline status` shows the queue.")


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    for name, verb, func in (("connect", "install", run_connect), ("disconnect", "remove", run_disconnect)):
        p = sub.add_parser(name, help=f"{verb} Loreline's capture hooks in Claude Code or Codex")
        p.add_argument("tool", choices=TOOLS, help="claude-code (settings.json hooks) or codex (hooks.json hooks; "
                       "the config.toml notify program where Codex's hooks are turned off)")
        p.add_argument("--project", nargs="?", const=".", metavar="DIR",
                       help="Claude Code only: use DIR/.claude/settings.local.json, the personal file "
                            "teams do not commit (default DIR: this project), instead of the user "
                            "settings; Loreline entries an older version put in DIR/.claude/settings.json "
                            "are removed from it")
        p.set_defaults(func=func)


def run_connect(args: argparse.Namespace) -> int:
    change, *moved = _apply(args, connect=True)
    for old in moved:
        print(_moved(args.tool, old))
    hooks = args.tool == "claude-code" or change.path.name == "hooks.json"
    if not change.changed:
        print(f"{_label(args.tool)} is already connected in {change.path}; nothing changed.")
    else:
        what = f"hooks ({change.detail})" if hooks else "notify program"
        print(f"Connected {_label(args.tool)}: Loreline's {what} in {change.path}.")
        if change.backup is not None:
            print(f"The previous file is kept as {change.backup}.")
        print(PAUSE_HINT)
    _say_mcp(_apply_mcp(args, connect=True), connected=True)
    if args.tool == "codex" and hooks:
        from ..connect.codex import TRUST_HINT

        print(TRUST_HINT)
    return 0


def _moved(tool: str, old: Change) -> str:
    if tool == "codex":
        return f"Removed Loreline's notify program from {old.path}; its Stop hook records each turn now."
    return (f"Removed Loreline's entries ({old.detail}) from the shared {old.path}; "
            "they now live in the personal file below.")


def run_disconnect(args: argparse.Namespace) -> int:
    for change in _apply(args, connect=False):
        if not change.changed:
            print(f"{_label(args.tool)}: {change.detail} in {change.path}; nothing changed.")
        else:
            print(f"Disconnected {_label(args.tool)}: removed Loreline's entries ({change.detail}) "
                  f"from {change.path}.")
    _say_mcp(_apply_mcp(args, connect=False), connected=False)
    return 0


def _apply_mcp(args: argparse.Namespace, *, connect: bool) -> Change:
    """Loreline's MCP server in the tool's own MCP configuration (Claude Code: the user scope,
    or with --project that project's personal local scope; Codex: [mcp_servers.loreline])."""
    from ..connect import mcp

    if args.tool == "codex":
        return mcp.connect_codex() if connect else mcp.disconnect_codex()
    project = _project_dir(args.project)
    return mcp.connect_claude(project) if connect else mcp.disconnect_claude(project)


def _say_mcp(change: Change, *, connected: bool) -> None:
    if connected and change.changed:
        print(f"Registered Loreline's MCP server (`loreline mcp`: recall, list, show, remember, forget) "
              f"in {change.path}.")
    elif not connected and change.changed:
        print(f"Removed Loreline's MCP server from {change.path}.")


def _apply(args: argparse.Namespace, *, connect: bool) -> list[Change]:
    """The change to the file the tool reads first; for `--project`, then any change to the
    shared project file an older Loreline wrote into (only when something was removed there)."""
    if args.tool == "codex":
        from ..connect import codex

        if args.project is not None:
            from ..errors import ConfigError

            raise ConfigError("--project applies to claude-code only; Loreline connects Codex once per user")
        return codex.connect() if connect else codex.disconnect()
    from ..connect import claude_code

    project = _project_dir(args.project)
    path = claude_code.settings_path(project)
    main = claude_code.connect(path) if connect else claude_code.disconnect(path)
    if project is None:
        return [main]
    shared = claude_code.shared_project_path(project)
    legacy = claude_code.disconnect(shared) if claude_code.installed(shared) else None
    return [main, *([legacy] if legacy is not None and legacy.changed else [])]


def _project_dir(value: str | None) -> Path | None:
    from pathlib import Path

    if value is None:
        return None
    from ..project import project_key

    return Path(project_key(str(Path(value).expanduser().resolve())))


def _label(tool: str) -> str:
    return "Claude Code" if tool == "claude-code" else "Codex"
