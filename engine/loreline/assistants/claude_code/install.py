"""Claude Code: Loreline's hooks in `settings.json` (user) or `settings.local.json` (project).

User file: `$CLAUDE_CONFIG_DIR/settings.json`, else `~/.claude/settings.json`. Project file:
`<project>/.claude/settings.local.json`, the personal file Claude Code reads and teams do not
commit, so this machine's absolute paths never reach a teammate (`.claude/settings.json`, the
shared file, only loses entries an older Loreline put there). Each event in `HOOKS` gets one
group holding one command handler `<absolute loreline-hook> <Event>` with a short timeout.

The file is parsed as JSON and written back by editing its text (`connect.jsonfile.rewritten`):
Loreline's entries are added after their neighbours, laid out like them, and cut out again on
disconnect, every other character as it was; only a file whose text cannot be edited so (a key
repeated in one object) is laid out anew, keeping key order, indentation and line endings. See
`loreline.connect` for ownership, backup, symlink, lock and atomic-write rules.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from ...errors import ConfigError
from ...records import record
from ...connect import Change, backup_once, check_writable, hook_argv, locked, manifest, real_path, write_atomic
from ...connect.jsonfile import load, read, rewritten

TOOL = "claude-code"


def claude_dir(explicit: str | None = None) -> Path:
    """Claude Code's folder ($CLAUDE_CONFIG_DIR, else ~/.claude)."""
    from . import folder

    return folder.home(explicit)


TIMEOUT_SECONDS = 10
LOCAL_NAME = "settings.local.json"
SHARED_NAME = "settings.json"
#: the manifest's name for "connect created the `hooks` object itself"
TABLE = "(hooks)"


@record
class Hook:
    """One event Loreline listens to: `<loreline-hook> <event>` runs on it."""

    event: str
    purpose: str
    timeout: int = TIMEOUT_SECONDS


#: the one table of what connect installs; adding an event is adding a line here
HOOKS: tuple[Hook, ...] = (
    Hook("SessionStart", "inject the project's memories"),
    Hook("UserPromptSubmit", "add the memories relevant to the prompt", 5),
    Hook("PreToolUse", "add the memories tied to the command or file a tool call is about to run or touch", 5),
    Hook("Stop", "record the turn"),
    Hook("PreCompact", "record, start the worker"),
    Hook("SessionEnd", "record, start the worker"),
)
EVENTS = tuple(hook.event for hook in HOOKS)
#: the events a tool call about to run fires (Claude Code's; Gemini CLI calls it BeforeTool)
TOOL_EVENTS = ("PreToolUse", "BeforeTool")
#: the same table in other tools that read Claude Code's hook schema (Codex's hooks.json), with
#: the timeouts they cap (Codex allows SessionEnd 3 s and warns on every start past it)
TIMEOUT_CAPS: dict[str, dict[str, int]] = {"codex": {"SessionEnd": 3}}
#: tools whose hook timeout is written in milliseconds (Gemini CLI), not seconds
TIMEOUT_SCALE: dict[str, int] = {"gemini": 1000}


def settings_path(project: Path | None = None) -> Path:
    if project is not None:
        return project / ".claude" / LOCAL_NAME
    return claude_dir() / SHARED_NAME


def shared_project_path(project: Path) -> Path:
    """The committed project file, where an older Loreline wrote its hooks."""
    return project / ".claude" / SHARED_NAME


def command(event: str) -> str:
    return shlex.join([*hook_argv(), event])


def handler(event: str, tool: str = TOOL, table: tuple[Hook, ...] = HOOKS) -> dict[str, Any]:
    timeout = next((hook.timeout for hook in table if hook.event == event), TIMEOUT_SECONDS)
    timeout = min(timeout, TIMEOUT_CAPS.get(tool, {}).get(event, timeout)) * TIMEOUT_SCALE.get(tool, 1)
    return {"type": "command", "command": command(event), "timeout": timeout}


class Owned:
    """Which handlers in one file are Loreline's: those whose whole command equals one the
    manifest recorded for that event, or the one this install builds for an event of `events`."""

    def __init__(self, record: manifest.Record, events: tuple[str, ...] = EVENTS) -> None:
        self.record = record
        self._current = {event: command(event) for event in events}

    def commands(self, event: str) -> set[str]:
        found = {h["command"] for h in self.record.for_key(event)
                 if isinstance(h, dict) and isinstance(h.get("command"), str)}
        return found | ({self._current[event]} if event in self._current else set())

    def is_ours(self, event: str, item: Any) -> bool:
        return (isinstance(item, dict) and item.get("type", "command") == "command"
                and item.get("command") in self.commands(event))


def connect(path: Path, tool: str = TOOL, table: tuple[Hook, ...] = HOOKS) -> Change:
    """Add (or update) Loreline's hooks in `path` (a file in Claude Code's hook schema that
    `tool` reads, with the events of `table`); a no-op when they are already there."""
    events = tuple(hook.event for hook in table)
    with locked():
        real = real_path(path)
        text, data = read(path)
        record = manifest.recorded(real, tool)
        owned = Owned(record, events)
        created = set(record.created) | (set() if "hooks" in data else {TABLE})
        hooks = _hooks_table(data, path, create=True)
        assert hooks is not None
        created |= {event for event in events if event not in hooks}
        touched = [event for event in events if _install(hooks, event, owned, path, tool, table)]
        touched += [event for event in list(hooks)
                    if event not in events and _uninstall(hooks, event, owned, path, created)]
        wanted = manifest.Record({event: [handler(event, tool, table)] for event in events},
                                 tuple(sorted(created)))
        if touched:
            check_writable(path)
            backup = backup_once(path)
            write_atomic(path, rewritten(data, text))
        if record != wanted:
            manifest.save(real, tool, wanted)
    if not touched:
        return Change(path, False, detail="already connected")
    return Change(path, True, backup, detail=", ".join(touched))


def disconnect(path: Path, tool: str = TOOL, table: tuple[Hook, ...] = HOOKS) -> Change:
    """Remove Loreline's hooks from `path`, and nothing else."""
    events = tuple(hook.event for hook in table)
    with locked():
        if not path.exists():
            return Change(path, False, detail="no settings file")
        real = real_path(path)
        text, data = read(path)
        record = manifest.recorded(real, tool)
        owned = Owned(record, events)
        # without a record (connected by an older Loreline) the containers it emptied were its own
        created = set(record.created) if record.entries else {TABLE, *events}
        hooks = _hooks_table(data, path, create=False)
        removed = [event for event in list(hooks) if _uninstall(hooks, event, owned, path, created)] \
            if hooks is not None else []
        if removed:
            if hooks == {} and TABLE in created:
                del data["hooks"]
            check_writable(path)
            backup = backup_once(path)
            write_atomic(path, rewritten(data, text))
        if record.entries or record.created:
            manifest.save(real, tool, None)
    if not removed:
        return Change(path, False, detail="not connected")
    return Change(path, True, backup, detail=", ".join(removed))


def installed(path: Path, tool: str = TOOL, table: tuple[Hook, ...] = HOOKS) -> list[str]:
    """The events whose hooks run Loreline in `path` (empty when unreadable or absent)."""
    try:
        hooks = _hooks_table(load(path), path, create=False) if path.exists() else None
    except (ConfigError, OSError):
        return []
    if hooks is None:
        return []
    owned = Owned(manifest.recorded(real_path(path), tool), tuple(hook.event for hook in table))
    return [event for event, groups in hooks.items()
            if isinstance(groups, list) and _ours_in(groups, event, owned)]


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


def _install(hooks: dict[str, Any], event: str, owned: Owned, path: Path, tool: str,
             table: tuple[Hook, ...]) -> bool:
    """Make `event` run exactly one Loreline handler, the current one; True if it changed."""
    groups = _groups(hooks, event, path)
    wanted = handler(event, tool, table)
    if _ours_in(groups, event, owned) == [wanted] and _alone(groups, wanted):
        return False
    kept = _without_ours(groups, event, owned)
    kept.append({"hooks": [wanted]})
    hooks[event] = kept
    return True


def _uninstall(hooks: dict[str, Any], event: str, owned: Owned, path: Path, created: set[str]) -> bool:
    """Remove Loreline's handlers from `event`; the event's list goes too when connect made it
    and nothing else is left in it. True if anything was removed."""
    groups = _groups(hooks, event, path)
    if not _ours_in(groups, event, owned):
        return False
    kept = _without_ours(groups, event, owned)
    if kept or event not in created:
        hooks[event] = kept
    else:
        del hooks[event]
    return True


def _handlers(group: Any) -> list[Any]:
    inner = group.get("hooks") if isinstance(group, dict) else None
    return inner if isinstance(inner, list) else []


def _ours_in(groups: list[Any], event: str, owned: Owned) -> list[Any]:
    return [item for group in groups for item in _handlers(group) if owned.is_ours(event, item)]


def _alone(groups: list[Any], wanted: dict[str, Any]) -> bool:
    """Loreline's handler sits in a group of its own, with no matcher narrowing it."""
    return any(isinstance(g, dict) and g.get("hooks") == [wanted] and "matcher" not in g for g in groups)


def _without_ours(groups: list[Any], event: str, owned: Owned) -> list[Any]:
    """The groups minus Loreline's handlers; a group left empty by that removal goes too."""
    kept: list[Any] = []
    for group in groups:
        handlers = _handlers(group)
        if not any(owned.is_ours(event, item) for item in handlers):
            kept.append(group)
            continue
        rest = [item for item in handlers if not owned.is_ours(event, item)]
        if rest:
            kept.append({**group, "hooks": rest})
    return kept


#: the line Claude Code itself adds to git's global excludes file for its personal settings
IGNORE_LINE = "**/.claude/settings.local.json"


def ignore_local_settings(project: Path) -> Path | None:
    """Make git ignore `<project>/.claude/settings.local.json` the way Claude Code does when it
    creates that file: when the project is a git work tree and git does not ignore the file
    yet, append `**/.claude/settings.local.json` to the user's global excludes file
    (`core.excludesFile`, else `$XDG_CONFIG_HOME/git/ignore`, else `~/.config/git/ignore`).
    The excludes file written, or None (not a repository, already ignored, no git)."""
    import os
    import subprocess

    relative = f".claude/{LOCAL_NAME}"

    def git(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["git", *args], cwd=project, capture_output=True, text=True, timeout=10, check=False)

    try:
        if git("rev-parse", "--is-inside-work-tree").stdout.strip() != "true":
            return None
        if git("check-ignore", "-q", "--", relative).returncode == 0:
            return None
        configured = git("config", "core.excludesFile").stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    if configured:
        target = Path(configured).expanduser()
    else:
        xdg = os.environ.get("XDG_CONFIG_HOME", "").strip()
        target = (Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".config") / "git" / "ignore"
    try:
        text = target.read_text(encoding="utf-8") if target.exists() else ""
        if IGNORE_LINE in text.splitlines():
            return None
        target.parent.mkdir(parents=True, exist_ok=True)
        with target.open("a", encoding="utf-8") as handle:
            handle.write(("" if not text or text.endswith("\n") else "\n") + IGNORE_LINE + "\n")
    except OSError:
        return None
    return target
