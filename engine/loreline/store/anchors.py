"""What memories rest on: the anchors of `memory_files` (blob, line sketch, commit), each file's
state since, and a memory's `stale` reason and confirmation. The checks live in
`loreline.staleness`; this module only reads and writes the rows."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..records import record
from . import Store
from .memories import now


@record
class Anchor:
    """A file's content when a memory was made: its git blob id, a sketch of its lines
    (`staleness.sketch`) and the commit checked out then (None outside git)."""

    blob: str
    sketch: bytes
    commit: str | None


@record
class Tie:
    """One memory's tie to one file, as stored."""

    memory_id: int
    path: str
    anchor: Anchor | None
    state: str | None


def set_anchor(store: Store, memory_id: int, path: str, anchor: Anchor) -> None:
    """Anchor a tie to the file's current content (its state is fresh again)."""
    store.conn.execute(
        "UPDATE memory_files SET blob = ?, sketch = ?, anchor_commit = ?, anchored_at = ?, state = NULL, "
        "detail = NULL WHERE memory_id = ? AND path = ?",
        (anchor.blob, anchor.sketch, anchor.commit, now(), memory_id, path))


def ties(store: Store, project: str, paths: Sequence[str] | None = None) -> list[Tie]:
    """The ties of the project's active memories (to the given paths only, when given)."""
    where, params = "", [project]
    if paths is not None:
        if not paths:
            return []
        where = f" AND f.path IN ({','.join('?' * len(paths))})"
        params.extend(paths)
    found = store.rows(
        "SELECT f.memory_id, f.path, f.blob, f.sketch, f.anchor_commit, f.state FROM memory_files f "
        f"JOIN memories m ON m.id = f.memory_id WHERE m.project = ? AND m.status = 'active'{where}", tuple(params))
    return [Tie(int(mid), str(path), Anchor(str(blob), bytes(sk or b""), commit) if blob else None, state)
            for mid, path, blob, sk, commit, state in found]


def unanchored(store: Store, memory_id: int) -> list[str]:
    """The paths of a memory's ties that have no anchor yet."""
    return [str(r[0]) for r in store.rows("SELECT path FROM memory_files WHERE memory_id = ? AND blob IS NULL",
                                          (memory_id,))]


def paths_of(store: Store, memory_id: int) -> list[str]:
    return [str(r[0]) for r in store.rows("SELECT path FROM memory_files WHERE memory_id = ?", (memory_id,))]


def set_state(store: Store, memory_id: int, path: str, state: str | None, detail: str | None) -> None:
    store.conn.execute("UPDATE memory_files SET state = ?, detail = ? WHERE memory_id = ? AND path = ?",
                       (state, detail, memory_id, path))


def refresh_stale(store: Store, memory_ids: Iterable[int]) -> None:
    """Each memory's `stale` reason from its ties' states (NULL when every tie is fresh)."""
    for memory_id in set(memory_ids):
        store.conn.execute(
            "UPDATE memories SET stale = (SELECT group_concat(detail, '; ') FROM memory_files "
            "WHERE memory_id = ?1 AND state IS NOT NULL) WHERE id = ?1", (memory_id,))


def confirm(store: Store, memory_id: int, by: str) -> None:
    """A person vouches for a memory as it stands: not stale, confirmed now by `by`."""
    store.conn.execute("UPDATE memories SET stale = NULL, confirmed_at = ?, confirmed_by = ?, updated_at = ? "
                       "WHERE id = ?", (now(), by, now(), memory_id))


def move_tie(store: Store, memory_id: int, old: str, new: str) -> None:
    """A tie follows its file's rename (on confirmation)."""
    store.conn.execute("UPDATE OR IGNORE memory_files SET path = ? WHERE memory_id = ? AND path = ?",
                       (new, memory_id, old))
    store.conn.execute("DELETE FROM memory_files WHERE memory_id = ? AND path = ?", (memory_id, old))


def renamed_to(store: Store, memory_id: int) -> dict[str, str]:
    """{old path: new path} of a memory's ties whose file git saw renamed."""
    return {str(p): str(d).rsplit(" renamed to ", 1)[1] for p, d in store.rows(
        "SELECT path, detail FROM memory_files WHERE memory_id = ? AND state = 'renamed'", (memory_id,))
        if d and " renamed to " in str(d)}


def stale_for_file(store: Store, project: str, paths: Sequence[str]) -> list[int]:
    """Ids of the project's stale active memories tied to a file named by any of `paths`."""
    marks = ",".join("?" * len(paths))
    return [int(r[0]) for r in store.rows(
        "SELECT DISTINCT m.id FROM memory_files f JOIN memories m ON m.id = f.memory_id "
        f"WHERE m.project = ? AND m.status = 'active' AND m.stale IS NOT NULL AND f.path IN ({marks}) ORDER BY m.id",
        (project, *paths))]


def stale_count(store: Store, project: str) -> int:
    return int(store.scalar("SELECT count(*) FROM memories WHERE project = ? AND status = 'active' "
                            "AND stale IS NOT NULL", (project,)) or 0)


def stale_ids(store: Store, memory_ids: Sequence[int]) -> list[int]:
    """Those of the given memories that are stale now."""
    if not memory_ids:
        return []
    ids = sorted(set(memory_ids))
    return [int(r[0]) for r in store.rows(
        f"SELECT id FROM memories WHERE stale IS NOT NULL AND id IN ({','.join('?' * len(ids))})", tuple(ids))]


def drop_tie(store: Store, memory_id: int, path: str) -> None:
    store.conn.execute("DELETE FROM memory_files WHERE memory_id = ? AND path = ?", (memory_id, path))
