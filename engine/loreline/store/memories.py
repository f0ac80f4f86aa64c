"""Rows of `memories`, `provenance`, `memory_files` and `audit`, read and written.

Writers here expect to run inside `Store.write()`; they never open transactions of their
own, so a caller can put a whole chunk's memories, provenance, audit rows and the ledger
watermark into one commit.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from ..errors import NotFoundError
from ..models import Memory, Provenance
from ..records import record
from . import Store, shortids

TYPE_CHECKING = False  # typing is left to the type checker: the everyday commands import none of it
if TYPE_CHECKING:
    from typing import Any

# orjson and the gate are imported by the writers that use them: reading and listing memories
# (`loreline memories`, `show`) must not load them.

_NORM_WS = re.compile(r"\s+")
_NORM_EDGE = re.compile(r"^[\s\"'`*_-]+|[\s\"'`*_.!;:,-]+$")

MEMORY_COLUMNS = (
    "id, project, scope, kind, text, status, version, created_at, observed_at, valid_until, "
    "pinned, extractor, root_id, replaces, stale, confirmed_at, confirmed_by, hold_reason, cues, asked"
)


def now() -> str:
    from datetime import UTC, datetime  # here: reading memories never needs it

    return datetime.now(UTC).isoformat(timespec="seconds")


def content_hash(text: str) -> str:
    """The identity of a memory's wording: case, spacing and edge punctuation ignored."""
    import hashlib  # here: it loads OpenSSL, which reading memories does not need

    norm = _NORM_EDGE.sub("", _NORM_WS.sub(" ", text.lower()))
    return hashlib.sha256(norm.encode("utf-8")).hexdigest()[:32]


@record
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
    cues: str = ""


def insert(store: Store, new: NewMemory) -> int:
    """Add a memory through the one gate (`privacy.gate`): its text cleaned and redacted, and
    added `held` with the reason when it would steer the assistant somewhere dangerous or reads
    as someone else's material, whoever wrote it."""
    from ..privacy import gate

    stamp = now()
    admitted = gate.admit(new.text)
    text, reason = admitted.text, admitted.hold
    store.conn.execute(
        "INSERT INTO memories(project, scope, kind, text, content_hash, version, root_id, replaces, "
        "created_at, updated_at, observed_at, extractor, status, hold_reason, cues) "
        "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        (new.project, new.scope, new.kind, text, content_hash(text), new.version,
         new.root_id, new.replaces, stamp, stamp, new.observed_at, gate.field(new.extractor),
         "active" if reason is None else "held", reason, gate.clean(new.cues) if new.cues else None),
    )
    memory_id = int(store.conn.last_insert_rowid())
    if new.root_id is None:
        store.conn.execute("UPDATE memories SET root_id = id WHERE id = ?", (memory_id,))
    return memory_id


def add_provenance(store: Store, memory_id: int, prov: Provenance, replay_key: str | None) -> bool:
    """Record one source of a memory; False when that exact source was already recorded."""
    from ..privacy import gate

    store.conn.execute(
        "INSERT OR IGNORE INTO provenance(memory_id, tool, session_id, session_path, line_start, line_end, "
        "excerpt, observed_at, replay_key, created_at) VALUES(?,?,?,?,?,?,?,?,?,?)",
        (memory_id, gate.field(prov.tool), gate.field(prov.session_id), gate.field(prov.session_path),
         prov.line_start, prov.line_end, gate.clean(prov.excerpt), prov.observed_at, replay_key, now()),
    )
    return bool(store.conn.changes() > 0)


def note_observed(store: Store, memory_id: int, observed_at: str | None) -> None:
    """Keep the earliest time a memory was said (`observed_at`)."""
    if observed_at:
        store.conn.execute(
            "UPDATE memories SET observed_at = ? WHERE id = ? AND (observed_at IS NULL OR observed_at > ?)",
            (observed_at, memory_id, observed_at),
        )


#: who wrote cues a model wrote, in their audit row (`model:<backend>`)
MODEL_CUES_ACTOR = "model:"


def without_model_cues(store: Store) -> list[tuple[int, str, str]]:
    """Active memories no model wrote cues for (made by the rules, a person, elsewhere; the audit
    says when a model wrote them later): id, kind, text."""
    return [(int(i), str(k), str(t)) for i, k, t in store.rows(
        "SELECT id, kind, text FROM memories WHERE status = 'active' AND extractor NOT LIKE '%/distill-v%' "
        "AND id NOT IN (SELECT memory_id FROM audit WHERE action = 'cues' AND memory_id IS NOT NULL "
        "AND json_extract(after, '$.written_by') LIKE 'model:%') ORDER BY id")]


def mark_asked(store: Store, memory_id: int) -> None:
    """The person explicitly asked to keep this memory (`asked`)."""
    store.conn.execute("UPDATE memories SET asked = 1 WHERE id = ? AND asked = 0", (memory_id,))


def add_files(store: Store, memory_id: int, paths: Iterable[str]) -> None:
    for path in paths:
        store.conn.execute("INSERT OR IGNORE INTO memory_files(memory_id, path) VALUES(?, ?)", (memory_id, path))


def audit(store: Store, actor: str, action: str, memory_id: int | None,
          before: dict[str, Any] | None = None, after: dict[str, Any] | None = None,
          conflict_id: int | None = None) -> None:
    store.conn.execute(
        "INSERT INTO audit(at, actor, action, memory_id, conflict_id, before, after, via) VALUES(?,?,?,?,?,?,?,?)",
        (now(), actor, action, memory_id, conflict_id, _json(before), _json(after), store.via),
    )


def _json(value: dict[str, Any] | None) -> str | None:
    import orjson

    return orjson.dumps(_cleaned(value)).decode() if value is not None else None


def _cleaned(value: Any) -> Any:
    """An audit value with every string through the gate's cleaning (no secret, no control)."""
    from ..privacy import gate

    if isinstance(value, str):
        return gate.clean(value)
    if isinstance(value, dict):
        return {key: _cleaned(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_cleaned(item) for item in value]
    return value


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
    found = store.rows(
        "SELECT memory_id, tool, session_id, session_path, line_start, line_end, excerpt, observed_at "
        f"FROM provenance WHERE memory_id IN ({marks}) ORDER BY observed_at, id",
        tuple(ids),
    )
    short = shortids.sessions(store, (row[2] for row in found))
    for memory_id, tool, session_id, path, start, end, excerpt, observed in found:
        out.setdefault(int(memory_id), []).append(
            Provenance(tool, session_id, path, start, end, excerpt, observed, session_short=short[session_id]))
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
     pinned, extractor, root_id, replaces, stale, confirmed_at, confirmed_by, hold_reason, cues, asked) = row
    return Memory(
        id=int(mid), project=project, scope=scope, kind=kind, text=text, status=status,
        version=int(version), created_at=created, observed_at=observed, valid_until=valid_until,
        pinned=bool(pinned), extractor=extractor, root_id=root_id, replaces=replaces,
        provenance=provenance, files=files, stale=stale, confirmed_at=confirmed_at, confirmed_by=confirmed_by,
        hold_reason=hold_reason, cues=cues or "", asked=bool(asked),
    )


@record
class Filter:
    project: str | None = None
    kind: str | None = None
    status: str | None = "active"
    text: str | None = None
    #: True: only memories that may be stale; False: only the others
    stale: bool | None = None
    pinned: bool | None = None
    #: who made it: the extractor (`rules`, a model, `user`, a teammate)
    extractor: str | None = None
    #: a source from this assistant (`claude-code`, `codex`, …)
    tool: str | None = None
    limit: int = 1000
    offset: int = 0


def query(store: Store, flt: Filter) -> tuple[list[Memory], int]:
    """A page of memories matching the filter (newest first) and the total count."""
    where: list[str] = []
    params: list[Any] = []
    for column, value in (("project", flt.project), ("kind", flt.kind), ("status", flt.status),
                          ("extractor", flt.extractor)):
        if value is not None:
            where.append(f"{column} = ?")
            params.append(value)
    if flt.stale is not None:
        where.append("stale IS NOT NULL" if flt.stale else "stale IS NULL")
    if flt.pinned is not None:
        where.append("pinned = ?")
        params.append(int(flt.pinned))
    if flt.tool is not None:
        where.append("EXISTS (SELECT 1 FROM provenance p WHERE p.memory_id = memories.id AND p.tool = ?)")
        params.append(flt.tool)
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


def for_file(store: Store, project: str, paths: tuple[str, ...]) -> list[Memory]:
    """The project's active memories tied to a file (named by any of `paths`), pinned first."""
    marks = ",".join("?" * len(paths))
    ids = [int(r[0]) for r in store.rows(
        "SELECT m.id FROM memory_files f JOIN memories m ON m.id = f.memory_id "
        f"WHERE m.project = ? AND m.status = 'active' AND f.path IN ({marks}) "
        "ORDER BY m.pinned DESC, m.kind, m.id", (project, *paths))]
    return load(store, list(dict.fromkeys(ids)))


def projects(store: Store, *, project_scope_only: bool = False) -> list[str]:
    """Every project that has memories, in order (only project-scoped ones when asked)."""
    where = " WHERE scope = 'project'" if project_scope_only else ""
    return [str(r[0]) for r in store.rows(f"SELECT DISTINCT project FROM memories{where} ORDER BY project")]


def count_by_status(store: Store, project: str | None = None) -> dict[str, int]:
    """How many memories are active, superseded, forgotten and held for review (in one project,
    or in all)."""
    where, params = ("WHERE project = ?", (project,)) if project is not None else ("", ())
    found = dict(store.rows(f"SELECT status, count(*) FROM memories {where} GROUP BY status", params))
    return {status: int(found.get(status, 0)) for status in ("active", "superseded", "forgotten", "held")}


def active_by_kind(store: Store) -> dict[str, int]:
    return {str(k): int(n) for k, n in store.rows(
        "SELECT kind, count(*) FROM memories WHERE status = 'active' GROUP BY kind")}


def active_projects(store: Store) -> int:
    return int(store.scalar("SELECT count(DISTINCT project) FROM memories WHERE status = 'active'") or 0)


def data_version(store: Store) -> int:
    """SQLite's `data_version`: it changes when another connection commits."""
    return int(store.scalar("PRAGMA data_version") or 0)


def chain_ids(store: Store, root: int) -> list[int]:
    """The ids of a version chain (the root and every version after it), oldest first."""
    return [int(r[0]) for r in store.rows("SELECT id FROM memories WHERE root_id = ? OR id = ? ORDER BY version, id",
                                          (root, root))]


def set_cues(store: Store, memory_id: int, cues: str) -> None:
    """Replace a memory's retrieval cues (the index follows: `memories_fts_update`)."""
    store.conn.execute("UPDATE memories SET cues = ?, updated_at = ? WHERE id = ?", (cues or None, now(), memory_id))


def embedded_text(text: str, cues: str) -> str:
    """What a memory's vector is made of: its text, and its cues when it has any."""
    return f"{text}\n{cues}" if cues else text


def tombstone(store: Store, project: str, text: str) -> None:
    """Record a forgotten wording so no later import of the project brings it back."""
    store.conn.execute("INSERT OR IGNORE INTO tombstones(project, content_hash, created_at) VALUES(?,?,?)",
                       (project, content_hash(text), now()))


def set_status(store: Store, memory_id: int, status: str, valid_until: str | None = None) -> None:
    store.conn.execute("UPDATE memories SET status = ?, valid_until = ?, updated_at = ? WHERE id = ?",
                       (status, valid_until, now(), memory_id))


def forget(store: Store, memory_id: int) -> None:
    store.conn.execute("UPDATE memories SET status = 'forgotten', updated_at = ? WHERE id = ?", (now(), memory_id))


def supersede(store: Store, memory_id: int, valid_until: str) -> None:
    """An active memory stops being current at `valid_until` (nothing changes if it is not active)."""
    store.conn.execute("UPDATE memories SET status = 'superseded', valid_until = ?, updated_at = ? "
                       "WHERE id = ? AND status = 'active'", (valid_until, now(), memory_id))


def set_pinned(store: Store, memory_id: int, pinned: bool) -> None:
    store.conn.execute("UPDATE memories SET pinned = ?, updated_at = ? WHERE id = ?", (int(pinned), now(), memory_id))


def newer_version(store: Store, memory_id: int, besides: int | None = None) -> int | None:
    """A memory that replaces this one (other than `besides`), if any."""
    found = store.scalar("SELECT id FROM memories WHERE replaces = ? AND id IS NOT ?", (memory_id, besides))
    return None if found is None else int(found)


def copy_sources(store: Store, new_id: int, old_id: int, stamp: str) -> None:
    """A new version carries its predecessor's pin, provenance (without replay keys) and files."""
    store.conn.execute("UPDATE memories SET pinned = (SELECT pinned FROM memories WHERE id = ?) WHERE id = ?",
                       (old_id, new_id))
    add_sources_of(store, new_id, old_id, stamp)


def delete(store: Store, memory_id: int) -> None:
    """Remove a memory outright (only a merge's own result, when its resolution is reverted)."""
    store.conn.execute("DELETE FROM memory_vec WHERE memory_id = ?", (memory_id,))
    store.conn.execute("DELETE FROM memory_cue_vec WHERE memory_id = ?", (memory_id,))
    store.conn.execute("DELETE FROM memories WHERE id = ?", (memory_id,))


def restamp_version(store: Store, new_id: int, old_id: int, observed_at: str | None, extractor: str) -> None:
    """A version from a session is observed when the session said it, by its extractor; the
    version it replaces stopped being valid then."""
    store.conn.execute("UPDATE memories SET observed_at = ?, extractor = ? WHERE id = ?",
                       (observed_at, extractor, new_id))
    if observed_at:
        store.conn.execute("UPDATE memories SET valid_until = ? WHERE id = ?", (observed_at, old_id))


def texts_after(store: Store, after_id: int, limit: int) -> list[tuple[int, str, str]]:
    """(id, project, text) of up to `limit` memories with an id above `after_id`, in id order; the
    text is what is embedded (`embedded_text`: with the memory's cues)."""
    return [(int(r[0]), str(r[1]), embedded_text(str(r[2]), str(r[3] or ""))) for r in store.rows(
        "SELECT id, project, text, cues FROM memories WHERE id > ? ORDER BY id LIMIT ?", (after_id, limit))]


def cues_of(store: Store, ids: Sequence[int]) -> dict[int, str]:
    """Each memory's cues, by id (memories without any are left out)."""
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    return {int(r[0]): str(r[1]) for r in store.rows(
        f"SELECT id, cues FROM memories WHERE id IN ({marks}) AND coalesce(cues, '') != ''", tuple(ids))}


def statuses(store: Store, ids: Sequence[int]) -> dict[int, str]:
    """Each memory's status, by id."""
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    return {int(i): str(s) for i, s in store.rows(f"SELECT id, status FROM memories WHERE id IN ({marks})", tuple(ids))}


def freshness(store: Store, ids: Sequence[int]) -> dict[int, tuple[bool, str]]:
    """Each memory's (may be stale, when it was last said or confirmed), by id."""
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    return {int(i): (stale is not None, str(last)) for i, stale, last in store.rows(
        "SELECT m.id, m.stale, max(coalesce(m.confirmed_at, ''), coalesce(m.observed_at, m.created_at), "
        "coalesce((SELECT max(p.observed_at) FROM provenance p WHERE p.memory_id = m.id), '')) "
        f"FROM memories m WHERE m.id IN ({marks})", tuple(ids))}


def release_hold(store: Store, memory_id: int) -> None:
    """A held memory becomes active (a person approved it)."""
    store.conn.execute("UPDATE memories SET status = 'active', hold_reason = NULL, updated_at = ? WHERE id = ?",
                       (now(), memory_id))


def hold_reason(store: Store, memory_id: int) -> str | None:
    """Why a held memory waits for review (None: it is not held)."""
    reason = store.scalar("SELECT hold_reason FROM memories WHERE id = ? AND status = 'held'", (memory_id,))
    return None if reason is None else str(reason)


def held_texts_from(store: Store, session_id: str, session_path: str, line_start: int, line_end: int) -> list[str]:
    """The texts of held memories with a source in these lines of this session."""
    return [str(r[0]) for r in store.rows(
        "SELECT DISTINCT m.text FROM provenance p JOIN memories m ON m.id = p.memory_id WHERE m.status = 'held' "
        "AND p.session_id = ? AND p.session_path = ? AND p.line_start <= ? AND p.line_end >= ?",
        (session_id, session_path, line_end, line_start))]


def hold(store: Store, memory_id: int, reason: str) -> None:
    """An active memory waits for a person's review, with the reason shown to them."""
    store.conn.execute("UPDATE memories SET status = 'held', hold_reason = ?, updated_at = ? WHERE id = ?",
                       (reason, now(), memory_id))


def reword(store: Store, memory_id: int, text: str) -> None:
    """A held memory's wording as the reviewer approves it (its full-text row follows), cleaned
    and redacted by the gate; the reviewer's approval stands for the hold."""
    from ..privacy import gate

    text = gate.admit(text).text
    store.conn.execute("UPDATE memories SET text = ?, content_hash = ? WHERE id = ?",
                       (text, content_hash(text), memory_id))


def root_of(store: Store, memory_id: int) -> int | None:
    """The first version of the memory's chain (None when there is no such memory)."""
    value = store.scalar("SELECT coalesce(root_id, id) FROM memories WHERE id = ?", (memory_id,))
    return int(value) if value is not None else None


def held_with_reason(store: Store, project: str, reason: str) -> list[tuple[int, str]]:
    """(id, text) of the project's memories held with `reason` that nobody pinned."""
    return [(int(str(i)), str(t)) for i, t in store.rows(
        "SELECT id, text FROM memories WHERE project = ? AND status = 'held' AND hold_reason = ? AND pinned = 0",
        (project, reason))]


def add_sources_of(store: Store, memory_id: int, other_id: int, stamp: str | None = None) -> None:
    """`memory_id` gains every source and file of `other_id` (without replay keys, recorded at
    `stamp`, else now); a source it already has (the same lines of the same session) stays one."""
    store.conn.execute("INSERT OR IGNORE INTO provenance(memory_id, tool, session_id, session_path, line_start, line_end, "
                       "excerpt, observed_at, replay_key, created_at) SELECT ?, tool, session_id, session_path, "
                       "line_start, line_end, excerpt, observed_at, NULL, ? FROM provenance WHERE memory_id = ?",
                       (memory_id, stamp or now(), other_id))
    store.conn.execute("INSERT OR IGNORE INTO memory_files(memory_id, path) SELECT ?, path FROM memory_files "
                       "WHERE memory_id = ?", (memory_id, other_id))


def held_from_session(store: Store, session_path: str, reason: str, line_start: int,
                      line_end: int) -> list[tuple[int, bool]]:
    """The memories held with `reason` that cite `session_path`, each with whether every source
    they have lies within lines `line_start`-`line_end` of it."""
    found = store.conn.execute(
        "SELECT m.id, min(p.session_path = ? AND p.line_start >= ? AND p.line_end <= ?) FROM memories m "
        "JOIN provenance p ON p.memory_id = m.id WHERE m.status = 'held' AND m.hold_reason = ? "
        "AND m.id IN (SELECT memory_id FROM provenance WHERE session_path = ?) GROUP BY m.id",
        (session_path, line_start, line_end, reason, session_path)).fetchall()
    return [(int(str(row[0])), bool(row[1])) for row in found]


def in_conflict(store: Store, memory_id: int) -> bool:
    """Whether a conflict (pending or resolved) names this memory."""
    return store.conn.execute("SELECT 1 FROM conflicts WHERE a = ? OR b = ? LIMIT 1",
                              (memory_id, memory_id)).fetchone() is not None
