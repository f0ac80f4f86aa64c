"""Codex CLI: Loreline's hooks in `$CODEX_HOME/hooks.json` (`~/.codex`), or its `notify`
program in `config.toml` where hooks are unavailable.

Hooks (the default): `hooks.json` has Claude Code's hook schema, and Codex sends the same
payloads (`session_id`, `transcript_path` = the rollout, `cwd`, `prompt`, ...) and reads the
same answers (`hookSpecificOutput.additionalContext`, handed to the model as a developer
message). So `claude_code.connect` writes it, under this tool's manifest record: SessionStart
injection, per-prompt recall, Stop / PreCompact / SessionEnd capture. Codex runs a new or
changed hook only once the user trusted it (`/hooks` in the Codex TUI; trust is keyed to the
hook's exact definition, so a moved install asks again) and skips an untrusted one silently;
`--dangerously-bypass-hook-trust` runs them for one invocation. Once hooks are installed a
notify program Loreline set earlier is removed (the Stop hook records the same turns).

Notify (where `[features] hooks = false`, or its old alias `codex_hooks`, turns hooks off):
Codex runs one notify program after each agent turn, passing the JSON as the last argument:
`notify = ["<absolute loreline-hook>", "codex-notify"]`. The file is edited with tomlkit, so
the user's comments, order and other keys survive. The notify program is Loreline's only when
its whole argv equals the one this install builds or one the manifest recorded; any other
(even a wrapper named `loreline-hook`) is never replaced: connect stops with a message saying
how to chain Loreline from it. See `loreline.connect` for the ownership, backup, symlink, lock
and atomic-write rules.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from ...errors import ConfigError
from ..claude_code import install as claude_code
from ...connect import Change, backup_once, check_writable, hook_argv, locked, manifest, real_path, write_atomic

EVENT_ARG = "codex-notify"
TOOL = "codex"
KEY = "notify"
HOOKS_NAME = "hooks.json"
FEATURE_KEYS = ("hooks", "codex_hooks")
#: the manifest's mark for "connect created hooks.json itself"
FILE_MARK = "(file)"
#: Claude Code's table but its tool-call hook: whether Codex hands a PreToolUse hook's
#: `additionalContext` to the model is not verified with the real CLI (the offline model server
#: cannot yet ask Codex for a tool call), so connect leaves that event to Claude Code
HOOKS: tuple[claude_code.Hook, ...] = tuple(h for h in claude_code.HOOKS if h.event not in claude_code.TOOL_EVENTS)


def codex_home() -> Path:
    from . import folder

    return folder.home()


def config_path() -> Path:
    return codex_home() / "config.toml"


def hooks_path() -> Path:
    return codex_home() / HOOKS_NAME


def notify_argv() -> list[str]:
    return [*hook_argv(), EVENT_ARG]


def hooks_enabled(path: Path | None = None) -> bool:
    """False only when config.toml turns Codex's hooks off (`[features] hooks = false`)."""
    path = path or config_path()
    features: Any = _load(path).get("features") if path.exists() else None
    return not (isinstance(features, dict) and any(features.get(key) is False for key in FEATURE_KEYS))


def connect(path: Path | None = None) -> list[Change]:
    """Hooks in hooks.json (and Loreline's old notify gone), or notify where hooks are off."""
    path = path or config_path()
    if not hooks_enabled(path):
        return [connect_notify(path)]
    new_file = not hooks_path().exists()
    hooks = claude_code.connect(hooks_path(), tool=TOOL, table=HOOKS)
    if new_file and hooks.changed:
        _note_created_file()
    old = disconnect_notify(path) if path.exists() else None
    return [hooks, *([old] if old is not None and old.changed else [])]


def disconnect(path: Path | None = None) -> list[Change]:
    """Remove Loreline's hooks from hooks.json (the file too when connect created it and
    nothing else is left in it) and its notify program from config.toml."""
    path = path or config_path()
    created = FILE_MARK in manifest.recorded(real_path(hooks_path()), TOOL).created
    hooks = claude_code.disconnect(hooks_path(), tool=TOOL, table=HOOKS)
    if created and hooks.changed:
        _remove_if_empty(hooks_path())
    notify = disconnect_notify(path)
    changed = [c for c in (hooks, notify) if c.changed]
    return changed or [hooks if hooks_enabled(path) else notify]


def installed(path: Path | None = None) -> bool:
    return bool(claude_code.installed(hooks_path(), tool=TOOL, table=HOOKS)) or notify_installed(path)


def _note_created_file() -> None:
    with locked():
        real = real_path(hooks_path())
        record = manifest.recorded(real, TOOL)
        manifest.save(real, TOOL, manifest.Record(record.entries, tuple(sorted({*record.created, FILE_MARK}))))


def _remove_if_empty(path: Path) -> None:
    with locked():
        try:
            if claude_code.load(path) == {}:
                real_path(path).unlink()
        except (ConfigError, OSError):
            return


def connect_notify(path: Path | None = None) -> Change:
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


def disconnect_notify(path: Path | None = None) -> Change:
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


def notify_installed(path: Path | None = None) -> bool:
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
