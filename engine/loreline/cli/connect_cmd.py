"""`loreline connect|disconnect <assistant>`: install or remove continuous capture, for every
assistant the registry can connect (`loreline.assistants`).

`connect` then says what background capture will do (`backends.consent`: which model, under
whose login or key, whether that is a subscription plan, the spend gate), and how large the
assistant's history is that Loreline has not imported and what importing it would take
(`api.backlog`): background capture never drains it, the person decides. Background capture
never uses the assistant's key from the environment; `--store-key` (or a yes at the prompt,
at a terminal) keeps this shell's ANTHROPIC_API_KEY in the OS keyring for it."""

from __future__ import annotations

import argparse

from ..names import CONNECTABLE

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from ..api.assistants import Assistant
    from ..api.connect import Change

PAUSE_HINT = ("Capture runs for every project; LORELINE_OFF=1 in a session's environment pauses it, "
              "capture.exclude in the config skips folders, and `loreline status` shows the queue.")


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    labels = ", ".join(CONNECTABLE.values())
    for name, verb, func in (("connect", "install", run_connect), ("disconnect", "remove", run_disconnect)):
        p = sub.add_parser(name, help=f"{verb} Loreline's capture hooks and MCP server in {labels}")
        p.add_argument("tool", choices=tuple(CONNECTABLE), help="the assistant (`loreline connect TOOL --help` "
                                                                  "and docs/capture.md say what each gets)")
        if name == "connect":
            p.add_argument("--store-key", action="store_true",
                           help="keep this shell's ANTHROPIC_API_KEY in the OS keyring for background capture, "
                                "which never uses a key from the environment (at a terminal you are asked)")
        p.add_argument("--project", nargs="?", const=".", metavar="DIR",
                       help="claude-code only: use DIR/.claude/settings.local.json, the personal file "
                            "teams do not commit (default DIR: this project), instead of the user "
                            "settings; Loreline entries an older version put in DIR/.claude/settings.json "
                            "are removed from it")
        p.set_defaults(func=func)


def _assistant(name: str) -> Assistant:
    from ..api.assistants import get

    return get(name)


def run_connect(args: argparse.Namespace) -> int:
    assistant = _assistant(args.tool)
    assert assistant.connector is not None
    applied = assistant.connector.connect(_project_dir(args, assistant.connector.project_scope))
    change = applied.hooks
    for old in applied.moved:
        print(_moved(args.tool, old))
    hooks = change.path.suffix == ".json"
    stored = _offer_key(args.store_key)
    if not change.changed:
        print(f"{assistant.label} is already connected in {change.path}; nothing changed.")
        if stored:
            print(_consent())
    else:
        what = f"hooks ({change.detail})" if hooks else "notify program"
        print(f"Connected {assistant.label}: Loreline's {what} in {change.path}.")
        if change.backup is not None:
            print(f"The previous file is kept as {change.backup}.")
        print(PAUSE_HINT)
        print(_consent())
        for line in _backlog(args.tool, assistant.label):
            print(line)
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


def _offer_key(asked: bool) -> bool:
    """Keep this shell's ANTHROPIC_API_KEY in the OS keyring for background capture: with
    `--store-key`, or when the person says yes at a terminal (asked only while the keyring
    holds no key). True when it was stored."""
    import os
    import sys

    from ..api import settings as keys
    from ..errors import KeyringUnavailableError

    key = os.environ.get(keys.KEY_ENV, "").strip()
    if not key:
        if asked:
            print(f"--store-key: {keys.KEY_ENV} is not set in this shell; `loreline auth set` asks for a key.")
        return False
    if not asked and not (sys.stdin.isatty() and _keyring_empty() and _yes(keys.KEY_ENV)):
        return False
    try:
        backend = keys.save_key(key)
    except KeyringUnavailableError as err:
        print(f"The key was not stored: {err}")
        return False
    print(f"Stored the {keys.KEY_ENV} of this shell ({keys.mask(key)}) in the OS keyring ({backend}) for "
          "Loreline's background capture.")
    return True


def _keyring_empty() -> bool:
    """Whether a usable OS keyring holds no key of Loreline's yet (only then is the person asked)."""
    from ..api import settings as keys
    from ..errors import KeyringUnavailableError

    try:
        return keys.stored_key() is None
    except KeyringUnavailableError:
        return False


def _yes(name: str) -> bool:
    answer = input(f"Background capture never uses {name} from the environment. Keep this shell's {name} in the "
                   "OS keyring so it can distil with it (billed to that key)? [y/N] ")
    return answer.strip().lower() in ("y", "yes")


def _backlog(tool: str, label: str) -> list[str]:
    """The assistant's history Loreline has not imported, and what importing it would take."""
    from ..api import backlog
    from ..errors import LorelineError

    try:
        return backlog.lines(backlog.measure(tool), label)
    except LorelineError as err:
        return [f"How much of the {label} history is not imported is unknown: {err}"]


def _moved(tool: str, old: Change) -> str:
    if old.path.suffix == ".toml":
        return f"Removed Loreline's notify program from {old.path}; its Stop hook records each turn now."
    return (f"Removed Loreline's entries ({old.detail}) from the shared {old.path}; "
            "they now live in the personal file below.")


def run_disconnect(args: argparse.Namespace) -> int:
    assistant = _assistant(args.tool)
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

        label = CONNECTABLE[args.tool]
        raise ConfigError(f"--project applies to claude-code only; Loreline connects {label} once per user")
    from pathlib import Path

    from ..api import project_of

    return Path(project_of(str(Path(value).expanduser().resolve())))
