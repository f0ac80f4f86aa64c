"""Codex CLI: Loreline as the `notify` program in `$CODEX_HOME/config.toml` (`~/.codex`).

Codex runs one notify program after each agent turn, passing the JSON as the last argument:
`notify = ["<absolute loreline-hook>", "codex-notify"]`. The file is edited with tomlkit, so
the user's comments, order and other keys survive. The notify program is Loreline's only when
its whole argv equals the one this install builds or one the manifest recorded; any other
(even a wrapper named `loreline-hook`) is never replaced: connect stops with a message saying
how to chain Loreline from it. See `loreline.connect` for the ownership, backup, symlink, lock
and atomic-write rules.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from . import Change, backup_once, check_writable, hook_argv, locked, manifest, real_path, write_atomic

EVENT_ARG = "codex-notify"
TOOL = "codex"
KEY = "notify"


def codex_home() -> Path:
    return Path(os.environ.get("CODEX_HOME", "").strip() or "~/.codex").expanduser()


def config_path() -> Path:
    return codex_home() / "config.toml"


def notify_argv() -> list[str]:
    return [*hook_argv(), EVENT_ARG]


def connect(path: Path | None = None) -> Change:
    path = path or config_path()
    with locked():
        real = real_path(path)
        doc = _load(path)
        record = manifest.recorded(real, TOOL)
        current = doc.get(KEY)
        wanted = notify_argv()
        if current is not None and not _is_ours(_as_list(current), record):
            raise ConfigError(_clobber_message(path, _as_list(current), wanted))
        changed = current is None or _as_list(current) != wanted
        if changed:
            check_writable(path)
            doc[KEY] = wanted
            backup = backup_once(path)
            write_atomic(path, _dumps(doc))
        if record.for_key(KEY) != [wanted]:
            manifest.save(real, TOOL, manifest.Record({KEY: [wanted]}))
    if not changed:
        return Change(path, False, detail="already connected")
    return Change(path, True, backup, detail="notify")


def disconnect(path: Path | None = None) -> Change:
    path = path or config_path()
    with locked():
        if not path.exists():
            return Change(path, False, detail="no config file")
        real = real_path(path)
        doc = _load(path)
        record = manifest.recorded(real, TOOL)
        current = doc.get(KEY)
        ours = current is not None and _is_ours(_as_list(current), record)
        if ours:
            check_writable(path)
            del doc[KEY]
            backup = backup_once(path)
            write_atomic(path, _dumps(doc))
        if record.entries:
            manifest.save(real, TOOL, None)
    if not ours:
        return Change(path, False, detail="not connected" if current is None else "notify runs another program")
    return Change(path, True, backup, detail="notify")


def installed(path: Path | None = None) -> bool:
    path = path or config_path()
    try:
        current = _load(path).get(KEY) if path.exists() else None
    except (ConfigError, OSError):
        return False
    return current is not None and _is_ours(_as_list(current), manifest.recorded(real_path(path), TOOL))


def _is_ours(argv: list[str], record: manifest.Record) -> bool:
    """Loreline's notify: exactly the argv this install builds, or one connect recorded."""
    return argv == notify_argv() or argv in record.for_key(KEY)


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
