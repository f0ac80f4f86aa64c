"""Background sync from the capture worker: at most once per `team.sync_seconds`, never fatal.

The worker calls `maybe_sync()` after each drain. Nothing is imported or connected unless a
team server is configured; a server that is down leaves its error in the status (the local
store is untouched) and the next attempt catches up.
"""

from __future__ import annotations

import time

from ..beliefs import Judge
from ..errors import LorelineError
from ..store import Store

ATTEMPT_KEY = "team.last_attempt"


def maybe_sync(store: Store, judge: Judge | None = None, *, clock: float | None = None) -> str | None:
    """Sync when one is due; returns the report's line, the error's line, or None (not due / off)."""
    from . import settings as team_settings

    try:
        settings = team_settings.load()
    except LorelineError:
        return None
    if not settings.enabled or settings.sync_seconds <= 0 or store.read_only:
        return None
    moment = time.time() if clock is None else clock
    last = store.meta(ATTEMPT_KEY)
    if last and moment - float(last) < settings.sync_seconds:
        return None
    with store.write():
        store.set_meta(ATTEMPT_KEY, f"{moment:.3f}")
    from .sync import sync

    try:
        return sync(store, settings, judge=judge).line()
    except LorelineError as err:
        return f"team sync: {err}"
