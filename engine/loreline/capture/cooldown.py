"""Cooldowns: a login or API said its usage limit or a rate limit is reached, and background
capture waits until that lifts.

One small JSON file in the state folder, `cooldown.json`, one entry per backend:

    {"claude-code": {"kind": "usage limit", "by": "Claude Code", "said": "You've hit your 5-hour
     limit · resets 6:12am (UTC)", "since": 1796180000.0, "until": 1796191920.0, "stated": true}}

Written by whichever run met the limit, attended or not (`usage.Meter.limited`); read before
each unattended model call of that backend (`usage.Meter.before_call`), by the worker (a job
waits until the cooldown lifts), by `loreline status`, the viewer, and the SessionStart hook,
which tells the person once per cooldown (`notice`): standard library only, one small read.
A call of that backend that succeeds lifts its cooldown early (`lift`). Times are UTC epoch
seconds; `stated` says whether the limit named its reset time or the default wait was used.
"""

from __future__ import annotations

import json
import os
import time

from .. import home

FILE = "cooldown.json"
#: the cooldown the SessionStart hook last told the person about (`backend@since`)
TOLD_FILE = "cooldown-told"

TYPE_CHECKING = False  # the typing module costs the hook milliseconds
if TYPE_CHECKING:
    from typing import Any


def _path(name: str = FILE) -> str:
    return os.path.join(home.state_dir(), name)


def read() -> dict[str, dict[str, Any]]:
    """Every recorded cooldown by backend, lifted or not; {} without a usable file."""
    try:
        with open(_path(), "rb") as handle:
            found = json.loads(handle.read(65536))
    except (OSError, ValueError):
        return {}
    if not isinstance(found, dict):
        return {}
    return {str(k): v for k, v in found.items() if isinstance(v, dict) and isinstance(v.get("until"), (int, float))}


def active(now: float | None = None) -> dict[str, dict[str, Any]]:
    """The cooldowns that have not lifted yet, by backend."""
    moment = time.time() if now is None else now
    return {name: entry for name, entry in read().items() if float(entry["until"]) > moment}


def of(backend: str, now: float | None = None) -> dict[str, Any] | None:
    """The backend's cooldown while it holds, else None."""
    return active(now).get(backend)


def save(backend: str, entry: dict[str, Any]) -> bool:
    """Record (or replace) the backend's cooldown; lifted ones are dropped from the file. False
    when the state folder cannot be written (the run that met the limit still defers its work)."""
    kept = active()
    kept[backend] = entry
    return _write(kept)


def lift(backend: str) -> bool:
    """The backend answered again: its cooldown, if any, is over. True when one was lifted."""
    found = read()
    if backend not in found:
        return False
    del found[backend]
    return _write({name: entry for name, entry in found.items() if float(entry["until"]) > time.time()})


def _write(entries: dict[str, dict[str, Any]]) -> bool:
    try:
        folder = home.ensure_private_dir(home.state_dir())
        home.write_private(folder / FILE, json.dumps(entries, ensure_ascii=False, sort_keys=True))
    except OSError:  # a read-only home: nothing is kept, nothing breaks
        return False
    return True


def when(until: float, now: float | None = None) -> str:
    """When a cooldown lifts, in local time: "06:12" today, else "Sat 05 Dec 08:59"."""
    moment = time.time() if now is None else now
    local = time.localtime(until)
    if time.strftime("%Y-%m-%d", local) == time.strftime("%Y-%m-%d", time.localtime(moment)):
        return time.strftime("%H:%M", local)
    return time.strftime("%a %d %b %H:%M", local)


def line(backend: str, entry: dict[str, Any], now: float | None = None) -> str:
    """One line for a person: which backend waits, until when, and what it was told."""
    by = str(entry.get("by") or backend)
    said = " ".join(str(entry.get("said") or "").split())[:200]
    guess = "" if entry.get("stated") else " (it gave no time; Loreline waits this long, then tries again)"
    told = f": {by} said “{said}”" if said else ""
    return (f"background distillation through {by} is paused until {when(float(entry['until']), now)}{guess}"
            f"{told}")


def notice(now: float | None = None) -> str | None:
    """The SessionStart hook's line for the person, once per cooldown; None when there is
    nothing new to tell (no cooldown, or this one was told already)."""
    found = active(now)
    if not found:
        return None
    backend, entry = max(found.items(), key=lambda item: float(item[1]["until"]))
    key = f"{backend}@{entry.get('since')}"
    try:
        with open(_path(TOLD_FILE), encoding="utf-8") as handle:
            if handle.read(400).strip() == key:
                return None
    except OSError:
        pass
    try:
        home.write_private(home.ensure_private_dir(home.state_dir()) / TOLD_FILE, key)
    except OSError:
        return None  # telling it at every session start would be worse than not at all
    return f"Loreline: {line(backend, entry, now)}. `loreline status` says more."
