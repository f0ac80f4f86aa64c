"""The `replays` table: one row per chunk an import committed (see `pipeline.replay_key`).

A key present here means the chunk's memories are already stored: the chunk is skipped
before any model call.
"""

from __future__ import annotations

from . import Store
from .memories import now


def seen(store: Store, key: str) -> bool:
    return store.one("SELECT 1 FROM replays WHERE replay_key = ?", (key,)) is not None


def record(store: Store, key: str, path: str, line_start: int, line_end: int, policy: str) -> None:
    """Mark a chunk committed (inside the transaction that stores its memories)."""
    store.conn.execute("INSERT INTO replays(replay_key, session_path, line_start, line_end, policy, created_at) "
                       "VALUES(?,?,?,?,?,?)", (key, path, line_start, line_end, policy, now()))
