"""Rows of `memories`, `provenance`, `memory_files` and `audit`, read and written.

Writers here expect to run inside `Store.write()`; they never open transactions of their
own, so a caller can put a whole chunk's memories, provenance, audit rows and the ledger
watermark into one commit.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import orjson

from ..errors import NotFoundError
from ..models import Memory, Provenance
from ..privacy.steering import hold_reason
from . import Store

_NORM_WS = re.compile(r"\s+")
_NORM_EDGE = re.compile(r"^[\s\"'`*_-]+|[\s\"'`*_.!;:,-]+$")

MEMORY_COLUMNS = (
    "id, project, scope, kind, text, status, version, created_at, observed_at, valid_until, "
    "pinned, extractor, root_id, replaces, hold_reason"
)


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def content_hash(text: str) -> str:
    """The identity of a memory's wording: case, spacing and edge punctuation ignored."""
    norm = _NORM_EDGE.sub("", _NORM_WS.sub(" ", text.lower()))
    return hashlib.sha256(norm.encode("utf-8")).hexdigest()[:32]


@dataclass(frozen=True, slots=True)
class NewMemory:
    project: str
    kind: str
    text: str
    observed_at: str | None
    extractor: str
    scope: str = "project"
    version: int = 1
    root_id: int | None = None
    replaces: int | None = None


def insert(store: Store, new: NewMemory) -> int:
    """Add a memory; one that would steer the assistant somewhere dangerous is added `held`,
    with the reason, whoever wrote it (`privacy.steering`)."""
    stamp = now()
    reason = hold_reason(new.text)
    store.conn.execute(
        "INSERT INTO memories(project, scope, kind, text, content_hash, version, root_id, replaces, "
        "created_at, updated_at, observed_at, extractor, status, hold_reason) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        (new.project, new.scope, new.kind, new.text, content_hash(new.text), new.version, new.root_id,
         new.replaces, stamp, stamp, new.observed_at, new.extractor, "active" if reason is None else "held", reason),
    )
    memory_id = int(store.conn.last_insert_rowid())
    if new.root_id is None:
        store.conn.execute("UPDATE memories SET root_id = id WHERE id = ?", (memory_id,))
    return memory_id


def add_provenance(store: Store, memory_id: int, prov: Provenance, replay_key: str | None) -> bool:
    """Record one source of a memory; False when that exact source was already recorded."""
    store.conn.execute(
        "INSERT OR IGNORE INTO provenance(memory_id, tool, session_id, session_path, line_start, line_end, "
        "excerpt, observed_at, replay_key, created_at) VALUES(?,?,?,?,?,?,?,?,?,?)",
        (memory_id, prov.tool, prov.session_id, prov.session_path, prov.line_start, prov.line_end,
         prov.excerpt, prov.observed_at, replay_key, now()),
    )
    return bool(store.conn.changes() > 0)


def note_observed(store: Store, memory_id: int, observed_at: str | None) -> None:
    """Keep the earliest time a memory was said (`observed_at`)."""
    if observed_at:
        store.conn.execute(
            "UPDATE memories SET observed_at = ? WHERE id = ? AND (observed_at IS NULL OR observed_at > ?)",
            (observed_at, memory_id, observed_at),
        )


def add_files(store: Store, memory_id: int, paths: Iterable[str]) -> None:
    for path in paths:
        store.conn.execute("INSERT OR IGNORE INTO memory_files(memory_id, path) VALUES(?, ?)", (memory_id, path))


def audit(store: Store, actor: str, action: str, memory_id: int | None,
          before: dict[str, Any] | None = None, after: dict[str, Any] | None = None,
          conflict_id: int | None = None) -> None:
    store.conn.execute(
        "INSERT INTO audit(at, actor, action, memory_id, conflict_id, before, after) VALUES(?,?,?,?,?,?,?)",
        (now(), actor, action, memory_id, conflict_id, _json(before), _json(after)),
    )


def _json(value: dict[str, Any] | None) -> str | None:
    return orjson.dumps(value).decode() if value is not None else None


def by_hash(store: Store, project: str, digest: str) -> list[tuple[int, str, str | None]]:
    """The project's memories with this wording that are not forgotten, active first, newest
    first: (id, status, valid_until)."""
    return [(int(r[0]), str(r[1]), r[2]) for r in store.rows(
        "SELECT id, status, valid_until FROM memories WHERE project = ? AND content_hash = ? "
        "AND status != 'forgotten' ORDER BY status = 'active' DESC, id DESC", (project, digest))]


def is_tombstoned(store: Store, project: str, digest: str) -> bool:
    return store.one("SELECT 1 FROM tombstones WHERE project = ? AND content_hash = ?", (project, digest)) is not None


def get(store: Store, memory_id: int) -> Memory:
    found = load(store, [memory_id])
    if not found:
        raise NotFoundError(f"no memory with id {memory_id}")
    return found[0]


def load(store: Store, ids: Sequence[int]) -> list[Memory]:
    """Memories by id, in the given order, each with its provenance and files."""
    if not ids:
        return []
    marks = ",".join("?" * len(ids))
    rows = {int(r[0]): r for r in store.rows(f"SELECT {MEMORY_COLUMNS} FROM memories WHERE id IN ({marks})", tuple(ids))}
    provs = _provenance(store, marks, ids)
    files = _files(store, marks, ids)
    return [_memory(rows[i], provs.get(i, ()), files.get(i, ())) for i in ids if i in rows]


def _provenance(store: Store, marks: str, ids: Sequence[int]) -> dict[int, tuple[Provenance, ...]]:
    out: dict[int, list[Provenance]] = {}
    for row in store.rows(
        "SELECT memory_id, tool, session_id, session_path, line_start, line_end, excerpt, observed_at "
        f"FROM provenance WHERE memory_id IN ({marks}) ORDER BY observed_at, id",
        tuple(ids),
    ):
        out.setdefault(int(row[0]), []).append(Provenance(*row[1:]))
    return {k: tuple(v) for k, v in out.items()}


def _files(store: Store, marks: str, ids: Sequence[int]) -> dict[int, tuple[str, ...]]:
    out: dict[int, list[str]] = {}
    for memory_id, path in store.rows(
        f"SELECT memory_id, path FROM memory_files WHERE memory_id IN ({marks}) ORDER BY path", tuple(ids)
    ):
        out.setdefault(int(memory_id), []).append(str(path))
    return {k: tuple(v) for k, v in out.items()}


def _memory(row: tuple[Any, ...], provenance: tuple[Provenance, ...], files: tuple[str, ...]) -> Memory:
    (mid, project, scope, kind, text, status, version, created, observed, valid_until,
     pinned, extractor, root_id, replaces, hold) = row
    return Memory(
        id=int(mid), project=project, scope=scope, kind=kind, text=text, status=status,
        version=int(version), created_at=created, observed_at=observed, valid_until=valid_until,
        pinned=bool(pinned), extractor=extractor, root_id=root_id, replaces=replaces,
        provenance=provenance, files=files, hold_reason=hold,
    )


@dataclass(frozen=True, slots=True)
class Filter:
    project: str | None = None
    kind: str | None = None
    status: str | None = "active"
    text: str | None = None
    limit: int = 1000
    offset: int = 0


def query(store: Store, flt: Filter) -> tuple[list[Memory], int]:
    """A page of memories matching the filter (newest first) and the total count."""
    where: list[str] = []
    params: list[Any] = []
    for column, value in (("project", flt.project), ("kind", flt.kind), ("status", flt.status)):
        if value is not None:
            where.append(f"{column} = ?")
            params.append(value)
    if flt.text:
        where.append("text LIKE ? ESCAPE '\\'")
        params.append("%" + flt.text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%")
    clause = ("WHERE " + " AND ".join(where)) if where else ""
    total = int(store.scalar(f"SELECT count(*) FROM memories {clause}", tuple(params)) or 0)
    ids = [int(r[0]) for r in store.rows(
        f"SELECT id FROM memories {clause} ORDER BY pinned DESC, coalesce(observed_at, created_at) DESC, id DESC "
        "LIMIT ? OFFSET ?",
        (*params, flt.limit, flt.offset),
    )]
    return load(store, ids), total
