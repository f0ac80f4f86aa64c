"""`loreline connect|disconnect <assistant>`: install or remove continuous capture, for every
assistant the registry can connect (`loreline.assistants`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..api.imports import ASSISTANTS
from ..api.connect import Change

PAUSE_HINT = ("Capture runs for every project; LORELINE_OFF=1 in a session's environment pauses it, "
              "capture.exclude in the config skips folders, and `loreline status` shows the queue.")
CONNECTABLE = {a.name: a for a in ASSISTANTS if a.connector is not None}


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    labels = ", ".join(a.label for a in CONNECTABLE.values())
    described = "; ".join(f"{a.name} ({a.connector.summary})" for a in CONNECTABLE.values() if a.connector)
    scoped = [a.name for a in CONNECTABLE.values() if a.connector and a.connector.project_scope]
    for name, verb, func in (("connect", "install", run_connect), ("disconnect", "remove", run_disconnect)):
        p = sub.add_parser(name, help=f"{verb} Loreline's capture hooks in {labels}")
        p.add_argument("tool", choices=tuple(CONNECTABLE), help=described)
        p.add_argument("--project", nargs="?", const=".", metavar="DIR",
                       help=f"{', '.join(scoped)} only: use DIR/.claude/settings.local.json, the personal file "
                            "teams do not commit (default DIR: this project), instead of the user "
                            "settings; Loreline entries an older version put in DIR/.claude/settings.json "
                            "are removed from it")
        p.set_defaults(func=func)


def run_connect(args: argparse.Namespace) -> int:
    assistant = CONNECTABLE[args.tool]
    assert assistant.connector is not None
    applied = assistant.connector.connect(_project_dir(args, assistant.connector.project_scope))
    change = applied.hooks
    for old in applied.moved:
        print(_moved(args.tool, old))
    hooks = change.path.suffix == ".json"
    if not change.changed:
        print(f"{assistant.label} is already connected in {change.path}; nothing changed.")
    else:
        what = f"hooks ({change.detail})" if hooks else "notify program"
        print(f"Connected {assistant.label}: Loreline's {what} in {change.path}.")
        if change.backup is not None:
            print(f"The previous file is kept as {change.backup}.")
        print(PAUSE_HINT)
        print(_consent())
    if applied.mcp is not None:
        _say_mcp(applied.mcp, connected=True)
    if assistant.connector.after_connect and hooks:
        print(assistant.connector.after_connect)
    return 0


def _consent() -> str:
    from ..api.connect import consent
    from ..errors import LorelineError

    try:
        return consent()
    except LorelineError as err:
        return f"Which model distills captured sessions is unknown: {err}"


def _moved(tool: str, old: Change) -> str:
    if old.path.suffix == ".toml":
        return f"Removed Loreline's notify program from {old.path}; its Stop hook records each turn now."
    return (f"Removed Loreline's entries ({old.detail}) from the shared {old.path}; "
            "they now live in the personal file below.")


def run_disconnect(args: argparse.Namespace) -> int:
    assistant = CONNECTABLE[args.tool]
    assert assistant.connector is not None
    applied = assistant.connector.disconnect(_project_dir(args, assistant.connector.project_scope))
    for change in (applied.hooks, *applied.moved):
        if not change.changed:
            print(f"{assistant.label}: {change.detail} in {change.path}; nothing changed.")
        else:
            print(f"Disconnected {assistant.label}: removed Loreline's entries ({change.detail}) "
                  f"from {change.path}.")
    if applied.mcp is not None:
        _say_mcp(applied.mcp, connected=False)
    return 0


def _say_mcp(change: Change, *, connected: bool) -> None:
    if connected and change.changed:
        print(f"Registered Loreline's MCP server (`loreline mcp`: recall, list, show, remember, forget) "
              f"in {change.path}.")
    elif not connected and change.changed:
        print(f"Removed Loreline's MCP server from {change.path}.")


def _project_dir(args: argparse.Namespace, scoped: bool) -> Path | None:
    value = args.project
    if value is None:
        return None
    if not scoped:
        from ..errors import ConfigError

        label = CONNECTABLE[args.tool].label
        raise ConfigError(f"--project applies to claude-code only; Loreline connects {label} once per user")
    from ..api import project_of

    return Path(project_of(str(Path(value).expanduser().resolve())))
