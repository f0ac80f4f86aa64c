"""The `conflicts` table: pairs of contradicting memories and how each was resolved.

`beliefs.conflicts` owns the rules (what a resolution changes, what a revert may undo); this
module only reads and writes rows, inside the caller's transaction.
"""

from __future__ import annotations

from . import Store
from .memories import now

TYPE_CHECKING = False  # typing is left to the type checker: the everyday commands import none of it
if TYPE_CHECKING:
    from typing import Any

COLUMNS = "id, project, a, b, status, resolution, decided_by, reason, created_at, resolved_at"


def open_pair(store: Store, existing_id: int, new_id: int) -> int | None:
    """The pending conflict between these two memories, if one is recorded."""
    found = store.scalar("SELECT id FROM conflicts WHERE a = ? AND b = ? AND status = 'pending'", (existing_id, new_id))
    return None if found is None else int(found)


def insert(store: Store, project: str, existing_id: int, new_id: int, reason: str) -> int:
    store.conn.execute("INSERT INTO conflicts(project, a, b, status, reason, created_at) VALUES(?,?,?,?,?,?)",
                       (project, existing_id, new_id, "pending", reason, now()))
    return int(store.conn.last_insert_rowid())


def select(store: Store, *, conflict_id: int | None = None, project: str | None = None,
           status: str | None = None) -> list[tuple[Any, ...]]:
    """Raw rows (`COLUMNS`) matching every filter given, oldest first."""
    where, params = [], []
    for column, value in (("id", conflict_id), ("project", project), ("status", status)):
        if value is not None:
            where.append(f"{column} = ?")
            params.append(value)
    clause = ("WHERE " + " AND ".join(where)) if where else ""
    return store.rows(f"SELECT {COLUMNS} FROM conflicts {clause} ORDER BY id", tuple(params))


def mark_resolved(store: Store, conflict_id: int, verdict: str, decided_by: str, reason: str | None,
                  undo: str) -> None:
    store.conn.execute("UPDATE conflicts SET status = 'resolved', resolution = ?, decided_by = ?, reason = ?, "
                       "resolved_at = ?, undo = ? WHERE id = ?",
                       (verdict, decided_by, reason, now(), undo, conflict_id))


def undo_of(store: Store, conflict_id: int) -> str | None:
    """What a resolution changed (JSON), kept so a revert can put it back."""
    raw = store.scalar("SELECT undo FROM conflicts WHERE id = ?", (conflict_id,))
    return None if raw is None else str(raw)


def mark_pending(store: Store, conflict_id: int) -> None:
    store.conn.execute("UPDATE conflicts SET status = 'pending', resolution = NULL, decided_by = NULL, "
                       "resolved_at = NULL, undo = NULL WHERE id = ?", (conflict_id,))


def pending_count(store: Store, project: str | None = None) -> int:
    """Conflicts waiting for a decision (in one project, or in all)."""
    if project is None:
        return int(store.scalar("SELECT count(*) FROM conflicts WHERE status = 'pending'") or 0)
    return int(store.scalar("SELECT count(*) FROM conflicts WHERE project = ? AND status = 'pending'",
                            (project,)) or 0)
