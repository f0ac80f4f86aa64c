"""`loreline connect|disconnect claude-code|codex`: install or remove continuous capture."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..connect import Change

TOOLS = ("claude-code", "codex")
PAUSE_HINT = ("Capture runs for every project; LORELINE_OFF=1 in a session's environment pauses it, "
              "capture.exclude in the config skips folders, and `loreline status` shows the queue.")


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    for name, verb, func in (("connect", "install", run_connect), ("disconnect", "remove", run_disconnect)):
        p = sub.add_parser(name, help=f"{verb} Loreline's capture hooks in Claude Code or Codex")
        p.add_argument("tool", choices=TOOLS, help="claude-code (settings.json hooks) or codex (config.toml notify)")
        p.add_argument("--project", nargs="?", const=".", metavar="DIR",
                       help="Claude Code only: use DIR/.claude/settings.json (default DIR: this project) "
                            "instead of the user settings")
        p.set_defaults(func=func)


def run_connect(args: argparse.Namespace) -> int:
    change = _apply(args, connect=True)
    if not change.changed:
        print(f"{_label(args.tool)} is already connected in {change.path}; nothing changed.")
        return 0
    what = "notify program" if args.tool == "codex" else f"hooks ({change.detail})"
    print(f"Connected {_label(args.tool)}: Loreline's {what} in {change.path}.")
    if change.backup is not None:
        print(f"The previous file is kept as {change.backup}.")
    print(PAUSE_HINT)
    return 0


def run_disconnect(args: argparse.Namespace) -> int:
    change = _apply(args, connect=False)
    if not change.changed:
        print(f"{_label(args.tool)}: {change.detail} in {change.path}; nothing changed.")
        return 0
    print(f"Disconnected {_label(args.tool)}: removed Loreline's entries ({change.detail}) from {change.path}.")
    return 0


def _apply(args: argparse.Namespace, *, connect: bool) -> Change:
    if args.tool == "codex":
        from ..connect import codex

        if args.project is not None:
            from ..errors import ConfigError

            raise ConfigError("--project applies to claude-code only; Codex reads one notify program per user")
        return codex.connect() if connect else codex.disconnect()
    from ..connect import claude_code

    path = claude_code.settings_path(_project_dir(args.project))
    return claude_code.connect(path) if connect else claude_code.disconnect(path)


def _project_dir(value: str | None) -> Path | None:
    if value is None:
        return None
    from ..project import project_key

    return Path(project_key(str(Path(value).expanduser().resolve())))


def _label(tool: str) -> str:
    return "Claude Code" if tool == "claude-code" else "Codex"
