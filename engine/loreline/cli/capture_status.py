"""The capture part of `loreline status`: where hooks are installed, the spool and the queue."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .. import capture, home, jobs
from ..errors import LorelineError
from ..store import Store


def collect(store: Store, cwd: str | None = None) -> dict[str, Any]:
    queue = jobs.summary(store)
    spool = _spool()
    stamps = [s for s in (spool["newest"], queue["last_event_at"]) if s]
    return {
        "hooks": _hooks(cwd or os.getcwd()),
        "paused_here": capture.opted_out(),
        "settings_error": _settings_error(),
        "last_capture": max(stamps) if stamps else None,
        "spool": spool,
        "queue": queue,
    }


def _hooks(cwd: str) -> dict[str, Any]:
    from ..connect import claude_code, codex
    from ..project import project_key

    user = claude_code.settings_path()
    project = claude_code.settings_path(Path(project_key(cwd)))
    return {
        "claude_code_user": {"path": str(user), "events": claude_code.installed(user)},
        "claude_code_project": {"path": str(project), "events": claude_code.installed(project)},
        "codex": {"path": str(codex.config_path()), "installed": codex.installed()},
    }


def _spool() -> dict[str, Any]:
    folder = home.spool_dir()
    newest = 0.0
    waiting = 0
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if capture.is_spool_name(entry.name):
                    waiting += 1
                    newest = max(newest, entry.stat().st_mtime)
    except FileNotFoundError:
        pass
    dropped = capture.dropped_count()
    return {"waiting": waiting, "newest": capture.utc_stamp(newest) if newest else None,
            "dropped": dropped, "last_drop": _mtime(capture.dropped_counter_path()) if dropped else None}


def _mtime(path: Path) -> str | None:
    try:
        return capture.utc_stamp(path.stat().st_mtime)
    except OSError:
        return None


def _settings_error() -> str | None:
    try:
        capture.load_settings()
    except LorelineError as err:
        return str(err)
    return None


def lines(info: dict[str, Any]) -> list[str]:
    """What `loreline status` prints about capture; problems first, marked `!!`."""
    out = [f"!! {line}" for line in _problems(info)]
    out.append(f"Capture    {_where(info['hooks'])}")
    queue = info["queue"]
    deferred = f"{queue['deferred']} deferred"
    if queue["deferred"] and queue["deferred_reason"]:
        deferred += f" ({queue['deferred_reason']}; next try {queue['deferred_until']})"
    out.append(f"           last capture {info['last_capture'] or 'never'} · queue {queue['queued']} queued"
               f" · {deferred} · {queue['failed']} failed · spool {info['spool']['waiting']} waiting")
    return out


def _where(hooks: dict[str, Any]) -> str:
    found = []
    for key, label in (("claude_code_user", "Claude Code user settings"),
                       ("claude_code_project", "Claude Code project settings")):
        if hooks[key]["events"]:
            found.append(f"{label} ({hooks[key]['path']})")
    if hooks["codex"]["installed"]:
        found.append(f"Codex notify ({hooks['codex']['path']})")
    if not found:
        return "hooks not installed: run `loreline connect claude-code` (or `loreline connect codex`)"
    return "hooks in " + "; ".join(found)


def _problems(info: dict[str, Any]) -> list[str]:
    problems = []
    if info["settings_error"]:
        problems.append(f"capture is off until the config is fixed: {info['settings_error']}")
    if info["paused_here"]:
        problems.append("LORELINE_OFF is set in this shell: sessions started from here are not captured")
    if info["spool"]["dropped"]:
        problems.append(f"{info['spool']['dropped']} hook events were dropped because the spool was full "
                        f"(capture.spool_max_mb), the last at {info['spool']['last_drop']}; "
                        "`loreline worker --drain` empties the spool")
    for job in info["queue"]["failed_jobs"]:
        problems.append(f"capture job {job['id']} failed ({job['session']}): {job['error']}")
    return problems
