"""Shared rows in and out: publishing changes and reading them after a cursor.

`publish()` upserts a batch of one project's memory chains in one transaction. It first
takes the project's advisory lock, so `seq` values are drawn in commit order within the
project; a row whose wording, kind and status did not change keeps its `seq` (publishing
the same state twice is a no-op, which makes a retried push harmless). A vector goes in with
its own width, which must be one the table indexes (`vector_width`): a row of another width
would be stored but never found.

`changes_after()` reads a project's rows with `seq` above a cursor, oldest first, with
their sources and, for an active row, its vector and the fingerprint of the embedder that
made it (exact, see `vector_bytes`): the incremental pull.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...records import field, record
from . import TeamStore, vector_bytes, vector_text, vector_width

PULL_BATCH = 500


@record
class SharedSource:
    tool: str
    session_id: str
    line_start: int
    line_end: int
    excerpt: str
    observed_at: str | None


@record
class SharedMemory:
    """One memory chain as the team sees it. A retracted one (`forgotten`, or `superseded`:
    withdrawn) has empty text and no sources. A pulled active row carries its vector (float32
    bytes) and the fingerprint of the embedder that made it, when it was published with one."""

    uid: str
    project: str
    origin: str
    author: str
    kind: str
    text: str
    content_hash: str
    status: str
    version: int
    observed_at: str | None
    extractor: str
    sources: tuple[SharedSource, ...] = ()
    seq: int = 0
    embedder: str | None = None
    embedding: bytes | None = field(default=None, repr=False)
    #: retrieval cues (questions it answers, topic words), one a line
    cues: str = ""


_UPSERT = """
INSERT INTO memories(uid, project, origin, author, kind, text, content_hash, status, version, observed_at,
                     extractor, embedder, embedding, cues, seq)
SELECT uid, %s, origin, author, kind, text, content_hash, status, version, observed_at, extractor, embedder,
       embedding::vector, cues, nextval('loreline_change_seq')
FROM unnest(%s::text[], %s::text[], %s::text[], %s::text[], %s::text[], %s::text[], %s::text[], %s::int[],
            %s::text[], %s::text[], %s::text[], %s::text[], %s::text[])
     AS t(uid, origin, author, kind, text, content_hash, status, version, observed_at, extractor, embedder, embedding,
          cues)
ON CONFLICT (uid) DO UPDATE SET
    kind = excluded.kind, text = excluded.text, content_hash = excluded.content_hash, status = excluded.status,
    version = excluded.version, observed_at = excluded.observed_at, extractor = excluded.extractor,
    author = excluded.author, embedder = excluded.embedder, embedding = excluded.embedding, cues = excluded.cues,
    seq = nextval('loreline_change_seq'), updated_at = now()
WHERE (memories.kind, memories.content_hash, memories.status, memories.cues)
      IS DISTINCT FROM (excluded.kind, excluded.content_hash, excluded.status, excluded.cues)
RETURNING uid
"""

_SOURCES = """
INSERT INTO provenance(memory_uid, tool, session_id, line_start, line_end, excerpt, observed_at)
SELECT * FROM unnest(%s::text[], %s::text[], %s::text[], %s::int[], %s::int[], %s::text[], %s::text[])
     AS t(memory_uid, tool, session_id, line_start, line_end, excerpt, observed_at)
WHERE memory_uid = ANY(%s)
ON CONFLICT DO NOTHING
"""


def project_lock(team: TeamStore, project: str) -> None:
    team.conn.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 7))", (project,))


def publish(team: TeamStore, project: str,
            memories: Sequence[tuple[SharedMemory, bytes | None, str | None]]) -> set[str]:
    """Upsert (memory, vector, embedder) rows of one project in one transaction (three
    statements whatever the batch size); returns the uids that changed. An unchanged row keeps
    its seq and its sources; a vector of a width the table does not index is a TeamError, before
    anything is written."""
    if not memories:
        return set()
    columns: list[list[Any]] = [[] for _ in range(13)]
    for memory, vector, embedder in memories:
        vec = _vector(vector) if memory.status == "active" else None
        for column, value in zip(columns, (
                memory.uid, memory.origin, memory.author, memory.kind, memory.text, memory.content_hash,
                memory.status, memory.version, memory.observed_at, memory.extractor, embedder if vec else None,
                vec, memory.cues if memory.status == "active" else "")):
            column.append(value)
    with team.write() as conn:
        project_lock(team, project)
        changed = [str(r[0]) for r in conn.execute(_UPSERT, (project, *columns)).fetchall()]
        if changed:
            conn.execute("DELETE FROM provenance WHERE memory_uid = ANY(%s)", (changed,))
            conn.execute(_SOURCES, (*_source_columns(memories), changed))
    return set(changed)


def _vector(vector: bytes | None) -> str | None:
    if vector is None:
        return None
    vector_width(vector)
    return vector_text(vector)


def _source_columns(memories: Sequence[tuple[SharedMemory, bytes | None, str | None]]) -> list[list[Any]]:
    columns: list[list[Any]] = [[] for _ in range(7)]
    for memory, _, _ in memories:
        if memory.status != "active":
            continue
        for s in memory.sources:
            for column, value in zip(columns, (memory.uid, s.tool, s.session_id, s.line_start, s.line_end,
                                               s.excerpt, s.observed_at)):
                column.append(value)
    return columns


def changes_after(team: TeamStore, project: str, cursor: int, limit: int = PULL_BATCH) -> list[SharedMemory]:
    """The project's changed rows with seq > cursor, oldest change first."""
    rows = team.rows(
        "SELECT uid, project, origin, author, kind, text, content_hash, status, version, observed_at, extractor, seq, "
        "embedder, embedding::text, cues FROM memories WHERE project = %s AND seq > %s ORDER BY seq LIMIT %s",
        (project, cursor, limit),
    )
    sources = _sources(team, [str(r[0]) for r in rows])
    return [_shared(r, sources.get(str(r[0]), ())) for r in rows]


def _shared(r: tuple[Any, ...], sources: tuple[SharedSource, ...]) -> SharedMemory:
    return SharedMemory(uid=str(r[0]), project=str(r[1]), origin=str(r[2]), author=str(r[3]), kind=str(r[4]),
                        text=str(r[5]), content_hash=str(r[6]), status=str(r[7]), version=int(r[8]),
                        observed_at=r[9], extractor=str(r[10]), sources=sources, seq=int(r[11]),
                        embedder=r[12], embedding=vector_bytes(r[13]) if r[13] is not None else None,
                        cues=str(r[14] or ""))


def _sources(team: TeamStore, uids: list[str]) -> dict[str, tuple[SharedSource, ...]]:
    if not uids:
        return {}
    out: dict[str, list[SharedSource]] = {}
    for row in team.rows(
        "SELECT memory_uid, tool, session_id, line_start, line_end, excerpt, observed_at FROM provenance "
        "WHERE memory_uid = ANY(%s) ORDER BY observed_at NULLS LAST, session_id, line_start",
        (uids,),
    ):
        out.setdefault(str(row[0]), []).append(SharedSource(*row[1:]))
    return {k: tuple(v) for k, v in out.items()}


def head(team: TeamStore, project: str) -> int:
    """The project's latest change number (0 when it has none)."""
    return int(team.scalar("SELECT coalesce(max(seq), 0) FROM memories WHERE project = %s", (project,)) or 0)


def counts(team: TeamStore, project: str) -> dict[str, int]:
    return {str(s): int(n) for s, n in team.rows(
        "SELECT status, count(*) FROM memories WHERE project = %s GROUP BY status", (project,))}
