"""Named, transactional schema migrations, recorded in the `migrations` table.

Each migration is a function applied inside the opening transaction; its name is recorded
so it runs once per database. Never edit a released migration: add a new one.
"""

from __future__ import annotations

from collections.abc import Callable

TYPE_CHECKING = False  # typing is left to the type checker: the everyday commands import none of it
if TYPE_CHECKING:
    from . import Store

EMBED_DIM = 256

INITIAL = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);

CREATE TABLE memories(
    id INTEGER PRIMARY KEY,
    project TEXT NOT NULL,
    scope TEXT NOT NULL DEFAULT 'project' CHECK (scope IN ('project', 'user')),
    kind TEXT NOT NULL CHECK (kind IN ('preference', 'decision', 'fact', 'procedure', 'episode')),
    text TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'superseded', 'forgotten')),
    version INTEGER NOT NULL DEFAULT 1,
    root_id INTEGER REFERENCES memories(id),
    replaces INTEGER REFERENCES memories(id),
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    observed_at TEXT,
    valid_until TEXT,
    pinned INTEGER NOT NULL DEFAULT 0,
    extractor TEXT NOT NULL
);
CREATE INDEX memories_by_project ON memories(project, status, kind);
CREATE INDEX memories_by_hash ON memories(project, content_hash);

CREATE TABLE provenance(
    id INTEGER PRIMARY KEY,
    memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
    tool TEXT NOT NULL,
    session_id TEXT NOT NULL,
    session_path TEXT NOT NULL,
    line_start INTEGER NOT NULL,
    line_end INTEGER NOT NULL,
    excerpt TEXT NOT NULL,
    observed_at TEXT,
    replay_key TEXT,
    created_at TEXT NOT NULL,
    UNIQUE(memory_id, session_path, line_start, line_end)
);
CREATE INDEX provenance_by_session ON provenance(session_path);

CREATE TABLE memory_files(
    memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    PRIMARY KEY(memory_id, path)
);
CREATE INDEX memory_files_by_path ON memory_files(path);

CREATE TABLE conflicts(
    id INTEGER PRIMARY KEY,
    project TEXT NOT NULL,
    a INTEGER NOT NULL REFERENCES memories(id),
    b INTEGER NOT NULL REFERENCES memories(id),
    status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'resolved')),
    resolution TEXT CHECK (resolution IN ('keep_new', 'keep_existing', 'keep_both', 'merge')),
    decided_by TEXT CHECK (decided_by IN ('user', 'judge')),
    reason TEXT,
    created_at TEXT NOT NULL,
    resolved_at TEXT
);

CREATE TABLE ledger(
    session_path TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    tool TEXT NOT NULL,
    project TEXT NOT NULL,
    line INTEGER NOT NULL,
    offset INTEGER NOT NULL,
    context_line INTEGER NOT NULL,
    context_offset INTEGER NOT NULL,
    prefix_hash TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    policy TEXT NOT NULL,
    updated_at TEXT NOT NULL
);

CREATE TABLE replays(
    replay_key TEXT PRIMARY KEY,
    session_path TEXT NOT NULL,
    line_start INTEGER NOT NULL,
    line_end INTEGER NOT NULL,
    policy TEXT NOT NULL,
    created_at TEXT NOT NULL
);

CREATE TABLE jobs(
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    session_path TEXT,
    event TEXT,
    payload TEXT,
    state TEXT NOT NULL DEFAULT 'queued'
        CHECK (state IN ('queued', 'running', 'done', 'deferred', 'failed')),
    attempts INTEGER NOT NULL DEFAULT 0,
    not_before TEXT,
    last_error TEXT,
    replay_key TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX jobs_by_state ON jobs(state, not_before);

CREATE TABLE audit(
    id INTEGER PRIMARY KEY,
    at TEXT NOT NULL,
    actor TEXT NOT NULL CHECK (actor IN ('import', 'hook', 'user', 'judge', 'system')),
    action TEXT NOT NULL,
    memory_id INTEGER,
    conflict_id INTEGER,
    before TEXT,
    after TEXT
);
CREATE INDEX audit_by_memory ON audit(memory_id);

CREATE TABLE usage(
    day TEXT NOT NULL,
    backend TEXT NOT NULL,
    attended INTEGER NOT NULL,
    calls INTEGER NOT NULL DEFAULT 0,
    input_tokens INTEGER NOT NULL DEFAULT 0,
    cached_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY(day, backend, attended)
);

CREATE TABLE tombstones(
    project TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY(project, content_hash)
);

CREATE VIRTUAL TABLE memory_fts USING fts5(
    text, content='memories', content_rowid='id', tokenize='porter unicode61'
);
CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
    INSERT INTO memory_fts(rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
    INSERT INTO memory_fts(memory_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;
CREATE TRIGGER memories_fts_update AFTER UPDATE OF text ON memories BEGIN
    INSERT INTO memory_fts(memory_fts, rowid, text) VALUES ('delete', old.id, old.text);
    INSERT INTO memory_fts(rowid, text) VALUES (new.id, new.text);
END;
"""


def _initial(store: Store) -> None:
    store.conn.execute(INITIAL)
    store.conn.execute(
        "CREATE VIRTUAL TABLE memory_vec USING vec0("
        f"memory_id INTEGER PRIMARY KEY, project TEXT PARTITION KEY, embedding float[{EMBED_DIM}] distance_metric=cosine)"
    )


def _conflict_undo(store: Store) -> None:
    store.conn.execute("ALTER TABLE conflicts ADD COLUMN undo TEXT")


USAGE_BY_MODEL = """
CREATE TABLE usage_by_model(
    day TEXT NOT NULL,
    backend TEXT NOT NULL,
    model TEXT NOT NULL DEFAULT '',
    attended INTEGER NOT NULL,
    calls INTEGER NOT NULL DEFAULT 0,
    input_tokens INTEGER NOT NULL DEFAULT 0,
    cache_read_tokens INTEGER NOT NULL DEFAULT 0,
    cache_creation_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY(day, backend, model, attended)
);
INSERT INTO usage_by_model(day, backend, attended, calls, input_tokens, cache_read_tokens, output_tokens)
    SELECT day, backend, attended, calls, input_tokens, cached_tokens, output_tokens FROM usage;
DROP TABLE usage;
ALTER TABLE usage_by_model RENAME TO usage;
"""


def _usage_by_model(store: Store) -> None:
    """Usage per model (prices differ), with cache reads and cache writes apart."""
    store.conn.execute(USAGE_BY_MODEL)


CAPTURE_QUEUE = """
ALTER TABLE jobs ADD COLUMN session_key TEXT;
ALTER TABLE jobs ADD COLUMN session_id TEXT;
ALTER TABLE jobs ADD COLUMN tool TEXT;
ALTER TABLE jobs ADD COLUMN finished_at TEXT;
CREATE UNIQUE INDEX jobs_one_open_per_session ON jobs(session_key) WHERE state IN ('queued', 'deferred', 'running');
CREATE INDEX jobs_by_session ON jobs(session_key, state);
CREATE TABLE spooled(
    name TEXT PRIMARY KEY,
    job_id INTEGER,
    ingested_at TEXT NOT NULL
);
"""


def _capture_queue(store: Store) -> None:
    """Hook capture: jobs coalesced per session, and the spool files already ingested."""
    store.conn.execute(CAPTURE_QUEUE)


FTS_BY_PROJECT = """
DROP TRIGGER memories_fts_insert;
DROP TRIGGER memories_fts_delete;
DROP TRIGGER memories_fts_update;
DROP TABLE memory_fts;
CREATE VIRTUAL TABLE memory_fts USING fts5(
    text, scope, content='', contentless_delete=1, tokenize='porter unicode61'
);
INSERT INTO memory_fts(rowid, text, scope) SELECT id, text, loreline_scope_token(project) FROM memories;
CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
    INSERT INTO memory_fts(rowid, text, scope) VALUES (new.id, new.text, loreline_scope_token(new.project));
END;
CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
    DELETE FROM memory_fts WHERE rowid = old.id;
END;
CREATE TRIGGER memories_fts_update AFTER UPDATE OF text, project ON memories BEGIN
    DELETE FROM memory_fts WHERE rowid = old.id;
    INSERT INTO memory_fts(rowid, text, scope) VALUES (new.id, new.text, loreline_scope_token(new.project));
END;
"""


def _fts_by_project(store: Store) -> None:
    """Full-text search narrowed to one project inside the index: each row carries a token for
    its project, so a query matches only that project's rows instead of filtering them all."""
    store.conn.execute(FTS_BY_PROJECT)


TEAM_SYNC = """
CREATE TABLE team_links(
    uid TEXT PRIMARY KEY,
    remote TEXT NOT NULL,
    root_id INTEGER,
    author TEXT NOT NULL,
    direction TEXT NOT NULL CHECK (direction IN ('out', 'in')),
    content_hash TEXT NOT NULL,
    status TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX team_links_by_root ON team_links(root_id);
CREATE TABLE team_cursors(
    remote TEXT PRIMARY KEY,
    project TEXT NOT NULL,
    pulled INTEGER NOT NULL DEFAULT 0,
    updated_at TEXT NOT NULL
);
CREATE TABLE team_shares(
    root_id INTEGER PRIMARY KEY,
    shared_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS memories_by_root ON memories(root_id);
"""


def _team_sync(store: Store) -> None:
    """A team's shared memory: which local chains map to which shared rows (and their authors),
    each remote project's pull cursor, and the chains a person approved for sharing."""
    store.conn.execute(TEAM_SYNC)


VECTORS_BY_MEMORY = f"""
CREATE TABLE memory_vec_by_memory(
    memory_id INTEGER PRIMARY KEY REFERENCES memories(id) ON DELETE CASCADE,
    embedding BLOB NOT NULL CHECK (length(embedding) = {EMBED_DIM * 4})
);
INSERT INTO memory_vec_by_memory(memory_id, embedding)
    SELECT v.memory_id, v.embedding FROM memory_vec v JOIN memories m ON m.id = v.memory_id;
DROP TABLE memory_vec;
ALTER TABLE memory_vec_by_memory RENAME TO memory_vec;
CREATE INDEX memories_by_project_id ON memories(project);
"""


def _vectors_by_memory(store: Store) -> None:
    """One plain row per memory instead of a `vec0` table partitioned by project: every
    partition allocated a whole chunk (about 1 MiB), so a store grew by that much per project
    however few memories it held. A KNN now walks the project's memories through an index on
    the project alone (its entries are in id order, so the vector rows are read in file order
    rather than at random) and scores each vector (`vec_distance_cosine`, in C); see
    `search.knn`. The dropped chunks go back to the file system right after the migration
    (`RECLAIMS`)."""
    store.conn.execute(VECTORS_BY_MEMORY)


NATIVE_SOURCES = """
CREATE TABLE native_sources(
    path TEXT PRIMARY KEY,
    tool TEXT NOT NULL,
    project TEXT NOT NULL,
    digest TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    items INTEGER NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE TABLE native_covered(
    memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
    project TEXT NOT NULL,
    path TEXT NOT NULL,
    line INTEGER NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    PRIMARY KEY(project, memory_id)
);
"""


def _native_sources(store: Store) -> None:
    """The assistants' own memory files read as sources (what was read, to follow edits and
    deletions), and which memories a session already loads from them (the hook leaves those out)."""
    store.conn.execute(NATIVE_SOURCES)


def _review_hold(store: Store) -> None:
    """Memories held for a person's review: a `held` status (kept out of every `active` query:
    SessionStart, recall, the editor) and the reason shown to the reviewer. SQLite cannot alter
    a CHECK constraint, so the stored table definition is edited in place (the documented
    procedure for changes that leave the stored rows valid), then the schema version bumped.
    Active memories that already steer somewhere dangerous are held on the way."""
    conn = store.conn
    sql = str(store.scalar("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = 'memories'"))
    if "'held'" not in sql:
        version = int(store.scalar("PRAGMA schema_version") or 0)
        conn.execute("PRAGMA writable_schema=ON")
        conn.execute("UPDATE sqlite_schema SET sql = replace(sql, ?, ?) WHERE type = 'table' AND name = 'memories'",
                     ("'superseded', 'forgotten')", "'superseded', 'forgotten', 'held')"))
        conn.execute(f"PRAGMA schema_version={version + 1}")
        conn.execute("PRAGMA writable_schema=OFF")
    conn.execute("ALTER TABLE memories ADD COLUMN hold_reason TEXT")
    from ..privacy.steering import hold_reason

    for memory_id, text in list(store.rows("SELECT id, text FROM memories WHERE status = 'active'")):
        reason = hold_reason(str(text))
        if reason is not None:
            conn.execute("UPDATE memories SET status = 'held', hold_reason = ? WHERE id = ?", (reason, memory_id))


def _assistant_actor(store: Store) -> None:
    """An assistant may write audit rows (the MCP `remember` tool keeps a memory it was asked to
    keep, held until a person approves it). The CHECK constraint is widened in place, as in
    `_review_hold`: every stored row stays valid."""
    sql = str(store.scalar("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = 'audit'"))
    if "'assistant'" in sql:
        return
    conn = store.conn
    version = int(store.scalar("PRAGMA schema_version") or 0)
    conn.execute("PRAGMA writable_schema=ON")
    conn.execute("UPDATE sqlite_schema SET sql = replace(sql, ?, ?) WHERE type = 'table' AND name = 'audit'",
                 ("'judge', 'system')", "'judge', 'system', 'assistant')"))
    conn.execute(f"PRAGMA schema_version={version + 1}")
    conn.execute("PRAGMA writable_schema=OFF")


FILE_ANCHORS = """
ALTER TABLE memory_files ADD COLUMN blob TEXT;
ALTER TABLE memory_files ADD COLUMN sketch BLOB;
ALTER TABLE memory_files ADD COLUMN anchor_commit TEXT;
ALTER TABLE memory_files ADD COLUMN anchored_at TEXT;
ALTER TABLE memory_files ADD COLUMN state TEXT CHECK (state IN ('changed', 'deleted', 'renamed'));
ALTER TABLE memory_files ADD COLUMN detail TEXT;
ALTER TABLE memories ADD COLUMN stale TEXT;
ALTER TABLE memories ADD COLUMN confirmed_at TEXT;
ALTER TABLE memories ADD COLUMN confirmed_by TEXT;
CREATE INDEX memories_stale ON memories(project) WHERE stale IS NOT NULL;
"""


def _file_anchors(store: Store) -> None:
    """What a memory rests on: each tied file's git blob id and a sketch of its lines when the
    memory was made (`staleness`), the file's state since (changed, deleted, renamed), the
    memory's `stale` reason, and who confirmed it last. Files tied before this migration have
    no anchor yet: the first check anchors them to their content then."""
    store.conn.execute(FILE_ANCHORS)


VECTOR_WIDTHS = """
CREATE TABLE memory_vec_any_width(
    memory_id INTEGER PRIMARY KEY REFERENCES memories(id) ON DELETE CASCADE,
    embedding BLOB NOT NULL CHECK (length(embedding) BETWEEN 4 AND 16384 AND length(embedding) % 4 = 0)
);
INSERT INTO memory_vec_any_width(memory_id, embedding) SELECT memory_id, embedding FROM memory_vec;
DROP TABLE memory_vec;
ALTER TABLE memory_vec_any_width RENAME TO memory_vec;
"""


def _vector_widths(store: Store) -> None:
    """Vectors of any width (float32, up to 4,096 values): the sentence embedder's are 384
    wide, the hashing embedder's 256. A store holds one embedder's vectors at a time
    (`vectors.ensure`), so widths never mix in a comparison."""
    store.conn.execute(VECTOR_WIDTHS)


def _audit_via(store: Store) -> None:
    """The front end a change was made through, when not the command line ("viewer")."""
    store.conn.execute("ALTER TABLE audit ADD COLUMN via TEXT")


SESSION_ID_INDEXES = """
CREATE INDEX provenance_by_session_id ON provenance(session_id);
CREATE INDEX ledger_by_session_id ON ledger(session_id);
"""


def _session_id_indexes(store: Store) -> None:
    """Session ids in order, so a shortened id (`shortids`) reads only its two neighbours."""
    store.conn.execute(SESSION_ID_INDEXES)


MEMORY_CUES = """
ALTER TABLE memories ADD COLUMN cues TEXT;
DROP TRIGGER memories_fts_insert;
DROP TRIGGER memories_fts_delete;
DROP TRIGGER memories_fts_update;
DROP TABLE memory_fts;
CREATE VIRTUAL TABLE memory_fts USING fts5(
    text, scope, cues, content='', contentless_delete=1, tokenize='porter unicode61'
);
INSERT INTO memory_fts(rowid, text, scope, cues)
    SELECT id, text, loreline_scope_token(project), loreline_topic_words(text, cues) FROM memories;
CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
    INSERT INTO memory_fts(rowid, text, scope, cues)
    VALUES (new.id, new.text, loreline_scope_token(new.project), loreline_topic_words(new.text, new.cues));
END;
CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
    DELETE FROM memory_fts WHERE rowid = old.id;
END;
CREATE TRIGGER memories_fts_update AFTER UPDATE OF text, project, cues ON memories BEGIN
    DELETE FROM memory_fts WHERE rowid = old.id;
    INSERT INTO memory_fts(rowid, text, scope, cues)
    VALUES (new.id, new.text, loreline_scope_token(new.project), loreline_topic_words(new.text, new.cues));
END;
"""


def _memory_cues(store: Store) -> None:
    """A memory's retrieval cues (`cues`: the questions it answers and its topic words, one a
    line, written by the model that distilled it, from the glossary, or by a person), searched
    beside its text: the full-text index gains a `cues` column holding them and the categories
    of the tools the memory names (`questions.topic_words`)."""
    store.conn.execute(MEMORY_CUES)


CUE_VECTORS = """
CREATE TABLE memory_cue_vec(
    memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
    line INTEGER NOT NULL,
    embedding BLOB NOT NULL CHECK (length(embedding) BETWEEN 4 AND 16384 AND length(embedding) % 4 = 0),
    PRIMARY KEY (memory_id, line)
) WITHOUT ROWID;
"""


def _cue_vectors(store: Store) -> None:
    """Each retrieval cue of a memory (a question it answers, its topic words: one a line) has its
    own vector beside the memory's: a question is compared with the questions a memory answers,
    not only with its statement, and a memory counts with its best similarity (`search.similarities`).
    Stores from before have none until `loreline reembed` (or an edit of the cues) makes them."""
    store.conn.execute(CUE_VECTORS)


BRIEF = """
CREATE TABLE briefs(
    id INTEGER PRIMARY KEY,
    project TEXT NOT NULL,
    version INTEGER NOT NULL,
    writer TEXT NOT NULL,
    changed_by TEXT,
    basis TEXT NOT NULL,
    stale INTEGER NOT NULL DEFAULT 0,
    dropped INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    UNIQUE(project, version)
);
CREATE TABLE brief_lines(
    id INTEGER PRIMARY KEY,
    brief_id INTEGER NOT NULL REFERENCES briefs(id) ON DELETE CASCADE,
    number INTEGER NOT NULL,
    topic TEXT NOT NULL,
    text TEXT NOT NULL,
    by TEXT NOT NULL CHECK (by IN ('model', 'rules', 'user')),
    pinned INTEGER NOT NULL DEFAULT 0,
    edited INTEGER NOT NULL DEFAULT 0,
    UNIQUE(brief_id, number)
);
CREATE TABLE brief_cites(
    line_id INTEGER NOT NULL REFERENCES brief_lines(id) ON DELETE CASCADE,
    memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
    place INTEGER NOT NULL,
    PRIMARY KEY(line_id, memory_id)
) WITHOUT ROWID;
CREATE INDEX brief_cites_by_memory ON brief_cites(memory_id);
"""


def _brief_day(store: Store) -> None:
    """The day of sessions a brief version was written for (the newest day its memories were
    said): a model rewrites a project's brief once per such day (`brief.model_rewrite`)."""
    store.conn.execute("ALTER TABLE briefs ADD COLUMN day TEXT")


def _brief(store: Store) -> None:
    """A project's brief (`loreline.brief`): its versions, each version's numbered lines (topic,
    text, who wrote the wording, a person's pin or edit) and the memories each line cites."""
    store.conn.execute(BRIEF)


def _asked(store: Store) -> None:
    """A memory the person explicitly asked to keep ("remember this", "from now on …") says so
    (`asked`): it comes first where space is short, and every surface can say it was asked for."""
    store.conn.execute("ALTER TABLE memories ADD COLUMN asked INTEGER NOT NULL DEFAULT 0")


MIGRATIONS: list[tuple[str, Callable[[Store], None]]] = [
    ("0001_initial", _initial),
    ("0002_conflict_undo", _conflict_undo),
    ("0003_usage_by_model", _usage_by_model),
    ("0004_capture_queue", _capture_queue),
    ("0005_fts_by_project", _fts_by_project),
    ("0006_vectors_by_memory", _vectors_by_memory),
    ("0007_review_hold", _review_hold),
    ("0008_native_sources", _native_sources),
    ("0009_assistant_actor", _assistant_actor),
    ("0010_team_sync", _team_sync),
    ("0011_file_anchors", _file_anchors),
    ("0012_vector_widths", _vector_widths),
    ("0013_audit_via", _audit_via),
    ("0014_session_id_indexes", _session_id_indexes),
    ("0015_memory_cues", _memory_cues),
    ("0016_cue_vectors", _cue_vectors),
    ("0017_asked", _asked),
    ("0018_brief", _brief),
    ("0020_brief_day", _brief_day),
]

#: migrations that leave many free pages behind: the file is vacuumed once they are applied
RECLAIMS = frozenset({"0006_vectors_by_memory"})


def pending(store: Store) -> bool:
    """True when a migration is not recorded yet (a read: no write lock needed)."""
    try:
        done = {row[0] for row in store.conn.execute("SELECT name FROM migrations")}
    except Exception as err:  # no migrations table yet: a new file
        if "no such table" in str(err):
            return True
        raise
    return any(name not in done for name, _ in MIGRATIONS)


def apply(store: Store) -> list[str]:
    """Apply every migration not yet recorded; returns the names applied."""
    conn = store.conn
    conn.execute("CREATE TABLE IF NOT EXISTS migrations(name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
    done = {row[0] for row in conn.execute("SELECT name FROM migrations")}
    applied: list[str] = []
    for name, migrate in MIGRATIONS:
        if name in done:
            continue
        migrate(store)
        from datetime import UTC, datetime  # here: an up-to-date store (every open) never needs it

        conn.execute(
            "INSERT INTO migrations(name, applied_at) VALUES(?, ?)",
            (name, datetime.now(UTC).isoformat(timespec="seconds")),
        )
        applied.append(name)
    return applied
