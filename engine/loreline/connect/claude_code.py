"""Claude Code: Loreline's hooks in `settings.json` (user or project).

User file: `$CLAUDE_CONFIG_DIR/settings.json`, else `~/.claude/settings.json`; project file:
`<project>/.claude/settings.json`. Four events, each one group holding one command handler
`<absolute loreline-hook> <Event>` with a short timeout:

    SessionStart  inject the project's memories     Stop        record the turn
    PreCompact    record, start the worker          SessionEnd  record, start the worker

See `loreline.connect` for the merge, backup, lock and atomic-write rules.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..transcripts.discover import claude_dir
from . import Change, backup_once, hook_argv, is_ours, locked, write_atomic

EVENTS = ("SessionStart", "Stop", "PreCompact", "SessionEnd")
TIMEOUT_SECONDS = 10


def settings_path(project: Path | None = None) -> Path:
    if project is not None:
        return project / ".claude" / "settings.json"
    return claude_dir() / "settings.json"


def command(event: str) -> str:
    return shlex.join([*hook_argv(), event])


def handler(event: str) -> dict[str, Any]:
    return {"type": "command", "command": command(event), "timeout": TIMEOUT_SECONDS}


def connect(path: Path) -> Change:
    """Add (or update) Loreline's hooks in `path`; a no-op when they are already there."""
    with locked():
        data = load(path)
        hooks = _hooks_table(data, path, create=True)
        assert hooks is not None
        touched = [event for event in EVENTS if _install(hooks, event, path)]
        if not touched:
            return Change(path, False, detail="already connected")
        backup = backup_once(path)
        write_atomic(path, dump(data))
    return Change(path, True, backup, detail=", ".join(touched))


def disconnect(path: Path) -> Change:
    """Remove Loreline's hooks from `path`, and nothing else."""
    with locked():
        if not path.exists():
            return Change(path, False, detail="no settings file")
        data = load(path)
        hooks = _hooks_table(data, path, create=False)
        removed = [event for event in list(hooks) if _uninstall(hooks, event, path)] if hooks is not None else []
        if not removed:
            return Change(path, False, detail="not connected")
        if hooks == {}:
            del data["hooks"]
        backup = backup_once(path)
        write_atomic(path, dump(data))
    return Change(path, True, backup, detail=", ".join(removed))


def installed(path: Path) -> list[str]:
    """The events whose hooks run Loreline in `path` (empty when unreadable or absent)."""
    try:
        hooks = _hooks_table(load(path), path, create=False) if path.exists() else None
    except (ConfigError, OSError):
        return []
    if hooks is None:
        return []
    return [event for event, groups in hooks.items() if isinstance(groups, list) and _ours_in(groups)]


def load(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError(f"cannot read {path}: {getattr(err, 'strerror', None) or err}") from None
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise ConfigError(f"{path} is not valid JSON (line {err.lineno}, column {err.colno}: {err.msg}); "
                          "fix it or move it aside, then connect again. Nothing was changed.") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path} must hold a JSON object; nothing was changed")
    return data


def dump(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _hooks_table(data: dict[str, Any], path: Path, *, create: bool) -> dict[str, Any] | None:
    hooks = data.get("hooks")
    if hooks is None and create:
        hooks = data["hooks"] = {}
    if hooks is not None and not isinstance(hooks, dict):
        raise ConfigError(f"{path}: \"hooks\" must be an object; nothing was changed")
    return hooks


def _groups(hooks: dict[str, Any], event: str, path: Path) -> list[Any]:
    groups = hooks.get(event, [])
    if not isinstance(groups, list):
        raise ConfigError(f"{path}: hooks.{event} must be a list; nothing was changed")
    return groups


def _install(hooks: dict[str, Any], event: str, path: Path) -> bool:
    """Make `event` run exactly one Loreline handler, the current one; True if it changed."""
    groups = _groups(hooks, event, path)
    wanted = handler(event)
    if _ours_in(groups) == [wanted] and _alone(groups, wanted):
        return False
    kept = _without_ours(groups)
    kept.append({"hooks": [wanted]})
    hooks[event] = kept
    return True


def _uninstall(hooks: dict[str, Any], event: str, path: Path) -> bool:
    groups = _groups(hooks, event, path)
    if not _ours_in(groups):
        return False
    kept = _without_ours(groups)
    if kept:
        hooks[event] = kept
    else:
        del hooks[event]
    return True


def _handlers(group: Any) -> list[Any]:
    inner = group.get("hooks") if isinstance(group, dict) else None
    return inner if isinstance(inner, list) else []


def _is_our_handler(item: Any) -> bool:
    return isinstance(item, dict) and item.get("type", "command") == "command" and is_ours(item.get("command", ""))


def _ours_in(groups: list[Any]) -> list[Any]:
    return [item for group in groups for item in _handlers(group) if _is_our_handler(item)]


def _alone(groups: list[Any], wanted: dict[str, Any]) -> bool:
    """Loreline's handler sits in a group of its own, with no matcher narrowing it."""
    return any(isinstance(g, dict) and g.get("hooks") == [wanted] and "matcher" not in g for g in groups)


def _without_ours(groups: list[Any]) -> list[Any]:
    """The groups minus Loreline's handlers; a group left empty by that removal goes too."""
    kept: list[Any] = []
    for group in groups:
        handlers = _handlers(group)
        if not any(_is_our_handler(item) for item in handlers):
            kept.append(group)
            continue
        rest = [item for item in handlers if not _is_our_handler(item)]
        if rest:
            kept.append({**group, "hooks": rest})
    return kept
