"""Codex CLI: Loreline as the `notify` program in `$CODEX_HOME/config.toml` (`~/.codex`).

Codex runs one notify program after each agent turn, passing the JSON as the last argument:
`notify = ["<absolute loreline-hook>", "codex-notify"]`. The file is edited with tomlkit, so
the user's comments, order and other keys survive. A notify program that is not Loreline's is
never replaced: connect stops with a message saying how to chain Loreline from it.
See `loreline.connect` for the backup, lock and atomic-write rules.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from . import Change, backup_once, hook_argv, is_ours, locked, write_atomic

EVENT_ARG = "codex-notify"


def codex_home() -> Path:
    return Path(os.environ.get("CODEX_HOME", "").strip() or "~/.codex").expanduser()


def config_path() -> Path:
    return codex_home() / "config.toml"


def notify_argv() -> list[str]:
    return [*hook_argv(), EVENT_ARG]


def connect(path: Path | None = None) -> Change:
    path = path or config_path()
    with locked():
        doc = _load(path)
        current = doc.get("notify")
        wanted = notify_argv()
        if current is not None and not is_ours(_as_list(current)):
            raise ConfigError(_clobber_message(path, _as_list(current), wanted))
        if current is not None and _as_list(current) == wanted:
            return Change(path, False, detail="already connected")
        doc["notify"] = wanted
        backup = backup_once(path)
        write_atomic(path, _dumps(doc))
    return Change(path, True, backup, detail="notify")


def disconnect(path: Path | None = None) -> Change:
    path = path or config_path()
    with locked():
        if not path.exists():
            return Change(path, False, detail="no config file")
        doc = _load(path)
        current = doc.get("notify")
        if current is None or not is_ours(_as_list(current)):
            return Change(path, False, detail="not connected" if current is None else "notify runs another program")
        del doc["notify"]
        backup = backup_once(path)
        write_atomic(path, _dumps(doc))
    return Change(path, True, backup, detail="notify")


def installed(path: Path | None = None) -> bool:
    path = path or config_path()
    try:
        current = _load(path).get("notify") if path.exists() else None
    except (ConfigError, OSError):
        return False
    return current is not None and is_ours(_as_list(current))


def _load(path: Path) -> Any:
    import tomlkit
    from tomlkit.exceptions import ParseError

    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return tomlkit.document()
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError(f"cannot read {path}: {getattr(err, 'strerror', None) or err}") from None
    try:
        return tomlkit.parse(text)
    except ParseError as err:
        raise ConfigError(f"{path} is not valid TOML ({err}); fix it, then connect again. Nothing was changed.") from None


def _dumps(doc: Any) -> str:
    import tomlkit

    return tomlkit.dumps(doc)


def _as_list(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    try:
        return [str(v) for v in value]
    except TypeError:
        return [str(value)]


def _clobber_message(path: Path, current: list[str], wanted: list[str]) -> str:
    return (f"Codex already runs a notify program ({shlex.join(current)}) in {path}, and Codex runs only one. "
            f"Nothing was changed. To capture Codex too, have that program also run "
            f"`{shlex.join(wanted)} \"$LAST_ARG\"` with the same JSON argument it receives, "
            "or remove its `notify` line and run `loreline connect codex` again.")
