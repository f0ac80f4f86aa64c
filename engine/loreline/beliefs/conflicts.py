"""Conflicts between two active memories of one project, and their resolution.

A conflict pairs an existing memory (`a`) with a newer one that contradicts it (`b`). Until
resolved both stay active. A resolution — by the person or by the judge — is one of:
`keep_new` (a superseded, its `valid_until` set), `keep_existing` (b superseded), `keep_both`,
or `merge` (both superseded by a new version carrying the merged text). Every resolution
stores what it changed (`undo`), so `revert` puts both memories and the conflict back exactly
as they were; every write leaves an audit row.
"""

from __future__ import annotations

from typing import Any

import orjson

from .. import records
from . import curate
from ..embed import Embedder, default_embedder
from ..errors import LorelineError, NotFoundError
from ..models import Memory
from ..store import Store
from ..store import conflicts as table
from ..store import memories as rows

VERDICTS = ("keep_new", "keep_existing", "keep_both", "merge")


@records.record
class Conflict:
    id: int
    project: str
    existing: Memory
    new: Memory
    status: str
    resolution: str | None
    decided_by: str | None
    reason: str | None
    created_at: str
    resolved_at: str | None


def record(store: Store, project: str, existing_id: int, new_id: int, reason: str, actor: str = "import") -> int:
    """Record a pending conflict (inside the caller's transaction); an open pair is recorded once."""
    found = table.open_pair(store, existing_id, new_id)
    if found is not None:
        return found
    conflict_id = table.insert(store, project, existing_id, new_id, reason)
    rows.audit(store, actor, "conflict", new_id, after={"existing": existing_id, "reason": reason},
               conflict_id=conflict_id)
    return conflict_id


def get(store: Store, conflict_id: int) -> Conflict:
    found = _load(store, table.select(store, conflict_id=conflict_id))
    if not found:
        raise NotFoundError(f"no conflict with id {conflict_id}")
    return found[0]


def listing(store: Store, project: str | None = None, status: str | None = "pending") -> list[Conflict]:
    return _load(store, table.select(store, project=project, status=status))


def _load(store: Store, found: list[tuple[Any, ...]]) -> list[Conflict]:
    memories = {m.id: m for m in rows.load(store, sorted({int(r[2]) for r in found} | {int(r[3]) for r in found}))}
    return [Conflict(int(r[0]), r[1], memories[int(r[2])], memories[int(r[3])], r[4], r[5], r[6], r[7], r[8], r[9])
            for r in found]


def resolve(store: Store, conflict_id: int, verdict: str, *, decided_by: str = "user", reason: str | None = None,
            merge_text: str | None = None, embedder: Embedder | None = None) -> Conflict:
    if verdict not in VERDICTS:
        raise LorelineError(f"unknown resolution {verdict!r}; use one of {', '.join(VERDICTS)}")
    if verdict == "merge" and not (merge_text and merge_text.strip()):
        raise LorelineError("a merge needs the merged text")
    with store.write():
        conflict = get(store, conflict_id)
        if conflict.status != "pending":
            raise LorelineError(f"conflict #{conflict_id} is already resolved ({conflict.resolution}); revert it first")
        undo = _apply(store, conflict, verdict, decided_by, merge_text, embedder or default_embedder(store))
        table.mark_resolved(store, conflict_id, verdict, decided_by, reason or conflict.reason,
                            orjson.dumps(undo).decode())
        rows.audit(store, decided_by, f"resolve:{verdict}", conflict.new.id, conflict_id=conflict_id,
                   before={"existing": conflict.existing.status, "new": conflict.new.status}, after=undo)
    return get(store, conflict_id)


def _apply(store: Store, c: Conflict, verdict: str, actor: str, merge_text: str | None,
           embedder: Embedder) -> dict[str, Any]:
    undo: dict[str, Any] = {"memories": {str(m.id): [m.status, m.valid_until] for m in (c.existing, c.new)}}
    stamp = c.new.observed_at or rows.now()
    if verdict == "keep_new":
        _retire(store, c.existing.id, stamp)
    elif verdict == "keep_existing":
        _retire(store, c.new.id, rows.now())
    elif verdict == "merge":
        assert merge_text is not None
        undo["merged"] = curate.supersede_with(store, c.existing, " ".join(merge_text.split()), actor, embedder)
        _retire(store, c.new.id, rows.now())
    return undo


def _retire(store: Store, memory_id: int, valid_until: str) -> None:
    rows.supersede(store, memory_id, valid_until)


def revert(store: Store, conflict_id: int, actor: str = "user") -> Conflict:
    """Undo a resolution: both memories back as they were, the conflict pending again."""
    with store.write():
        conflict = get(store, conflict_id)
        raw = table.undo_of(store, conflict_id)
        if conflict.status != "resolved" or not raw:
            raise LorelineError(f"conflict #{conflict_id} is not resolved; nothing to revert")
        undo = orjson.loads(raw)
        merged = undo.get("merged")
        _check_revertible(store, undo, merged)
        if merged is not None:
            _drop_merged(store, int(merged))
        for memory_id, (status, valid_until) in undo["memories"].items():
            rows.set_status(store, int(memory_id), status, valid_until)
        table.mark_pending(store, conflict_id)
        rows.audit(store, actor, "revert", conflict.new.id, conflict_id=conflict_id,
                   before={"resolution": conflict.resolution}, after={"status": "pending"})
    return get(store, conflict_id)


def _check_revertible(store: Store, undo: dict[str, Any], merged: int | None) -> None:
    """Refuse a revert that would undo a later decision: a memory forgotten since, or one
    that has a newer version (reverting would leave two current versions)."""
    for key in undo["memories"]:
        memory = rows.get(store, int(key))
        if memory.status == "forgotten":
            raise LorelineError(f"memory #{memory.id} was forgotten after this resolution; nothing to revert")
        newer = rows.newer_version(store, memory.id, besides=merged)
        if newer is not None:
            raise LorelineError(f"memory #{memory.id} has a newer version (#{newer}) since this resolution; "
                                "reverting would leave two current versions")


def _drop_merged(store: Store, memory_id: int) -> None:
    if rows.newer_version(store, memory_id) is not None:
        raise LorelineError(f"memory #{memory_id} from the merge has newer versions; forget those first")
    rows.delete(store, memory_id)
