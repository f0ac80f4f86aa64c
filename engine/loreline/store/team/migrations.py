"""Named migrations of the team database, recorded in `loreline_migrations`.

Like the local store's: each runs once per database inside the opening transaction, and a
released migration is never edited. An advisory lock makes two machines that open a new
database at the same moment take turns instead of both creating the tables.

The shape: `memories` holds one row per shared memory *chain* (`uid` = the publishing
machine's id and the chain's root id there), carrying its current wording and status, so
an edit or a forget is one update of that row. `seq` comes from one sequence and is set on
every change; pushes take a per-project advisory lock before drawing it, so within a
project `seq` grows in commit order and a reader's cursor never skips a late commit.
A forgotten memory keeps only its content hash (the tombstone): its text, vector and
sources are wiped.

`embedding` started as `vector(256)` under one HNSW index; since `0003_team_vector_widths` it is
an unsized `vector` with one partial HNSW index per supported width, over the column cast to
that width and restricted to rows of that width (pgvector indexes only vectors of one size).
A query reaches an index only by repeating both the cast and the predicate (`search.knn`).
That migration keeps every stored vector as it was but rebuilds the 256-wide index, which on
a large team table takes minutes (most of a million-row load, docs/benchmarks.md).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from . import TeamStore

EMBED_DIM = 256
MIGRATION_LOCK = 0x4C6F72656C696E65  # "Loreline"

INITIAL = [
    "CREATE EXTENSION IF NOT EXISTS vector",
    "CREATE SEQUENCE loreline_change_seq",
    f"""CREATE TABLE memories(
        uid TEXT PRIMARY KEY,
        project TEXT NOT NULL,
        origin TEXT NOT NULL,
        author TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('preference', 'decision', 'fact', 'procedure', 'episode')),
        text TEXT NOT NULL,
        content_hash TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('active', 'superseded', 'forgotten')),
        version INTEGER NOT NULL,
        observed_at TEXT,
        extractor TEXT NOT NULL,
        embedder TEXT,
        embedding vector({EMBED_DIM}),
        tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', text)) STORED,
        seq BIGINT NOT NULL,
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
    )""",
    "CREATE INDEX memories_changes ON memories(project, seq)",
    "CREATE INDEX memories_tsv ON memories USING gin(tsv)",
    "CREATE INDEX memories_vec ON memories USING hnsw (embedding vector_cosine_ops)",
    """CREATE TABLE provenance(
        memory_uid TEXT NOT NULL REFERENCES memories(uid) ON DELETE CASCADE,
        tool TEXT NOT NULL,
        session_id TEXT NOT NULL,
        line_start INTEGER NOT NULL,
        line_end INTEGER NOT NULL,
        excerpt TEXT NOT NULL,
        observed_at TEXT,
        PRIMARY KEY(memory_uid, session_id, line_start, line_end)
    )""",
]


def _initial(team: TeamStore) -> None:
    for statement in INITIAL:
        team.conn.execute(statement)


FTS_BY_PROJECT = [
    "DROP INDEX memories_tsv",
    "ALTER TABLE memories DROP COLUMN tsv",
    "ALTER TABLE memories ADD COLUMN tsv tsvector GENERATED ALWAYS AS "
    "(to_tsvector('english', text) || to_tsvector('simple', 'p' || md5(project))) STORED",
    "CREATE INDEX memories_tsv ON memories USING gin(tsv)",
]


def _fts_by_project(team: TeamStore) -> None:
    """Full text narrowed to one project inside the index (as the local store does): each row's
    tsvector carries a token standing for its project, so a query's posting lists are
    intersected with the project's instead of matching every project's rows and filtering."""
    for statement in FTS_BY_PROJECT:
        team.conn.execute(statement)


VECTOR_WIDTHS_0003 = (256, 384)  # frozen with the migration; later widths come with later migrations


def _vector_widths(team: TeamStore) -> None:
    """The column loses its fixed size (a change of type modifier only: no row is rewritten),
    and the single index gives way to one partial expression index per width."""
    team.conn.execute("DROP INDEX memories_vec")
    team.conn.execute("ALTER TABLE memories ALTER COLUMN embedding TYPE vector")
    for width in VECTOR_WIDTHS_0003:
        team.conn.execute(
            f"CREATE INDEX memories_vec_{width} ON memories USING hnsw ((embedding::vector({width})) "
            f"vector_cosine_ops) WHERE vector_dims(embedding) = {width}")


TEAM_CUES = [
    "ALTER TABLE memories ADD COLUMN cues TEXT NOT NULL DEFAULT ''",
    "DROP INDEX memories_tsv",
    "ALTER TABLE memories DROP COLUMN tsv",
    "ALTER TABLE memories ADD COLUMN tsv tsvector GENERATED ALWAYS AS "
    "(to_tsvector('english', text || ' ' || cues) || to_tsvector('simple', 'p' || md5(project))) STORED",
    "CREATE INDEX memories_tsv ON memories USING gin(tsv)",
]


def _cues(team: TeamStore) -> None:
    """A memory's retrieval cues (the questions it answers, its topic words) travel with it and
    are searched beside its text."""
    for statement in TEAM_CUES:
        team.conn.execute(statement)


MIGRATIONS: list[tuple[str, Callable[[TeamStore], None]]] = [
    ("0001_team_initial", _initial),
    ("0002_team_fts_by_project", _fts_by_project),
    ("0003_team_vector_widths", _vector_widths),
    ("0004_team_cues", _cues),
]


def apply(team: TeamStore) -> list[str]:
    """Apply every migration not yet recorded (inside the caller's transaction)."""
    conn = team.conn
    conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
    conn.execute("CREATE TABLE IF NOT EXISTS loreline_migrations(name TEXT PRIMARY KEY, "
                 "applied_at TIMESTAMPTZ NOT NULL DEFAULT now())")
    done = {row[0] for row in conn.execute("SELECT name FROM loreline_migrations").fetchall()}
    applied: list[str] = []
    for name, migrate in MIGRATIONS:
        if name in done:
            continue
        migrate(team)
        conn.execute("INSERT INTO loreline_migrations(name) VALUES (%s)", (name,))
        applied.append(name)
    return applied
