"""The hook's reads of the store: the project brief SessionStart gives (or, for a project
without one, the memories it injects), and the candidates for the memories relevant to one
prompt (UserPromptSubmit).

The one exception to "the store owns every table's SQL" (`loreline.store`): the hook runs on
every session start and every prompt and must stay standard-library only and fast, and
`loreline.store` imports apsw and sqlite-vec. So these queries read the `memories` and
`memory_files` tables with the standard library's `sqlite3`, read-only (`mode=ro`, never a
write, never an extension), and live here, in the part of `loreline.capture` the hook
imports. A change to those tables' columns must keep them working; `tests/test_hooks.py` and
`tests/test_prompt_recall.py` run them against a store the real importer wrote.

The store's own full-text index is contentless with `contentless_delete=1` (SQLite ≥ 3.43),
which the standard library's SQLite of many Pythons (3.40 on Debian 12) cannot open; so the
prompt lookup keeps its own FTS5 index of the project's active memories (at most `max_rows`,
pinned then newest) in a private file in the state dir, rebuilt from the store whenever the
store changed, and ranks with bm25 there. Only `status = 'active'` counts: superseded,
forgotten or held memories are never offered. Nor is a memory that may be stale (its files
changed since it was made, `loreline.staleness`) unless it is pinned; a store no Loreline with
file anchors has opened yet has no `stale` column, and nothing in it is stale.
"""

from __future__ import annotations

from ..recall_rules import KIND_ORDER, fresh_covers, session_order, with_authors

#: SessionStart's order (`recall_rules.session_order`: by kind, then pinned, newest, highest id)
KIND_RANK = "CASE kind " + " ".join(f"WHEN '{kind}' THEN {n}" for n, kind in enumerate(KIND_ORDER)) + \
    f" ELSE {len(KIND_ORDER)} END"
SESSION_START = f"""
SELECT id, kind, text FROM memories
WHERE status = 'active' AND (stale IS NULL OR pinned = 1) AND (project = ? OR scope = 'user')
ORDER BY {KIND_RANK}, pinned DESC, coalesce(observed_at, created_at) DESC, id DESC
LIMIT ?
"""

#: the lines of the project's latest brief (`loreline.brief`), one row per cited memory, with
#: whether that memory may be shown (active, and not maybe stale unless pinned)
BRIEF = """
SELECT l.number, l.topic, l.text, c.memory_id, m.status = 'active' AND (m.stale IS NULL OR m.pinned = 1)
FROM brief_lines l JOIN brief_cites c ON c.line_id = l.id JOIN memories m ON m.id = c.memory_id
WHERE l.brief_id = (SELECT id FROM briefs WHERE project = ? ORDER BY version DESC LIMIT 1)
ORDER BY l.number, c.place
"""

ACTIVE = """
SELECT id, kind, text, cues FROM memories
WHERE status = 'active' AND (stale IS NULL OR pinned = 1) AND (project = ? OR scope = 'user')
ORDER BY pinned DESC, coalesce(observed_at, created_at) DESC, id DESC
LIMIT ?
"""

#: which memories a Claude Code session already loads (CLAUDE.md layers, the head of the auto
#: memory MEMORY.md), as `loreline import native` recorded them
COVERED = "SELECT memory_id, path, size, mtime_ns FROM native_covered WHERE project = ?"

NOT_STALE = "AND (stale IS NULL OR pinned = 1) "

TIED_TO_FILES = "SELECT DISTINCT memory_id FROM memory_files WHERE path IN ({marks})"
MAX_PATHS = 500

#: the memories offered at SessionStart that rest on one of the given files or folders (a tool
#: call about to touch them: `loreline.moment`), pinned then newest
ON_PATHS = f"""
SELECT id, kind, text FROM memories
WHERE status = 'active' {NOT_STALE}AND (project = ? OR scope = 'user')
AND id IN (SELECT memory_id FROM memory_files WHERE path IN ({{marks}}))
ORDER BY pinned DESC, coalesce(observed_at, created_at) DESC, id DESC
LIMIT ?
"""

TYPE_CHECKING = False  # importing typing costs the hook milliseconds
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Collection, Sequence
    from typing import Any


def _connect(db: str) -> sqlite3.Connection:
    import sqlite3
    from pathlib import Path

    return sqlite3.connect(Path(db).as_uri() + "?mode=ro", uri=True, timeout=0.5)


def session_start_memories(db: str, project: str, max_rows: int,
                           files: Collection[str] = ()) -> tuple[list[tuple[int, str, str]], int]:
    """(id, kind, text) of the project's active memories and the user's, in injection order:
    preferences, decisions, facts, procedures, the rest; within a kind, memories tied to one of
    `files` (paths relative to the project) first, then pinned, then newest; and how many were
    left out because the session already loads them (`covered_ids`)."""
    conn = _connect(db)
    try:
        found = _select(conn, SESSION_START, (project, max_rows))
        tied = _tied(conn, files) if files and found else set()
        covered = covered_ids(conn, project) if found else set()
        authors = _team_authors(conn, [int(r[0]) for r in found]) if found else {}
    finally:
        conn.close()
    rows = [(int(i), str(kind), with_authors(str(text), authors.get(int(i)))) for i, kind, text in found
            if int(i) not in covered]
    return session_order(rows, tied), len(found) - len(rows)


def session_brief(db: str, project: str) -> tuple[list[tuple[str, str, list[int]]], int] | None:
    """The project's brief as SessionStart shows it: (topic, text, cited memory ids) of each line
    of its latest version whose every cited memory may still be shown, in line order, minus the
    lines whose memories the session all loads from a native file (`covered_ids`); and how many
    were left out for that. None when the project has no brief (or the store predates briefs)."""
    conn = _connect(db)
    try:
        try:
            found = conn.execute(BRIEF, (project,)).fetchall()
        except _sqlite_error() as err:
            if "no such table" in str(err):
                return None
            raise
        covered = covered_ids(conn, project) if found else set()
    finally:
        conn.close()
    lines: dict[int, tuple[str, str, list[int]]] = {}
    hidden: set[int] = set()
    for number, topic, text, memory_id, showable in found:
        lines.setdefault(int(number), (str(topic), str(text), []))[2].append(int(memory_id))
        if not showable:
            hidden.add(int(number))
    if not lines:
        return None
    kept = [line for number, line in lines.items() if number not in hidden]
    shown = [line for line in kept if not set(line[2]) <= covered]
    return shown, len(kept) - len(shown)


def tied_to_paths(db: str, project: str, paths: Sequence[str], limit: int = 10) -> list[tuple[int, str, str]]:
    """(id, kind, text) of the offered memories that rest on one of `paths` (relative to the
    project: a file, or a folder above it), pinned then newest."""
    wanted = list(dict.fromkeys(paths))[:MAX_PATHS]
    if not wanted:
        return []
    conn = _connect(db)
    try:
        found = _select(conn, ON_PATHS.format(marks=",".join("?" * len(wanted))), (project, *wanted, limit))
    finally:
        conn.close()
    return [(int(i), str(kind), str(text)) for i, kind, text in found]


def _select(conn: sqlite3.Connection, sql: str, params: tuple[Any, ...]) -> list[Any]:
    """The rows of a memories query; on a store without the `stale` or `cues` column (an older
    Loreline wrote it), without them."""
    for attempt in range(3):
        try:
            return conn.execute(sql, params).fetchall()
        except _sqlite_error() as err:
            if "no such column" not in str(err) or attempt == 2:
                raise
            sql = sql.replace(NOT_STALE, "") if "stale" in str(err) else sql.replace(", cues FROM", ", NULL FROM")
    return []


#: the teammates a memory came from (stores with team sync: `loreline team`)
TEAM_AUTHORS = """
SELECT m.id, group_concat(DISTINCT l.author) FROM memories m
JOIN team_links l ON l.root_id = coalesce(m.root_id, m.id) AND l.direction = 'in'
WHERE m.id IN ({marks}) GROUP BY m.id
"""


def _team_authors(conn: sqlite3.Connection, ids: list[int]) -> dict[int, str]:
    try:
        found = conn.execute(TEAM_AUTHORS.format(marks=",".join("?" * len(ids))), ids).fetchall()
    except _sqlite_error():
        return {}  # a store without team sync
    return {int(memory_id): str(authors) for memory_id, authors in found if authors}


def _tied(conn: sqlite3.Connection, files: Collection[str]) -> set[int]:
    paths = list(files)[:MAX_PATHS]
    sql = TIED_TO_FILES.format(marks=",".join("?" * len(paths)))
    return {int(r[0]) for r in conn.execute(sql, paths)}


def prompt_candidates(db: str, project: str, terms: Sequence[str], max_rows: int, limit: int, cache: str,
                      covered: set[int] | None = None) -> tuple[int, dict[str, int],
                                                             list[tuple[int, str, str, frozenset[str]]]]:
    """For the prompt's `terms`: how many memories the project's index holds, in how many of them
    each term occurs (the index's own porter stemming), and the best `limit` matches by bm25 as
    (id, kind, text, the terms it holds), minus those the session loads from a native file
    (`covered`, read from the store when not given). The index is a file in the folder `cache`,
    rebuilt when the store changed."""
    if not terms:
        return 0, {}, []
    conn = _prompt_index(db, project, max_rows, cache)
    try:
        total = int(conn.execute("SELECT value FROM meta WHERE key = 'rows'").fetchone()[0])
        counts = {t: int(conn.execute("SELECT count(*) FROM m WHERE m MATCH ?", (_match(t),)).fetchone()[0])
                  for t in terms}
        found = [t for t in terms if counts[t]]
        ranked = conn.execute("SELECT rowid, kind, text FROM m WHERE m MATCH ? ORDER BY bm25(m), rowid DESC LIMIT ?",
                              (" OR ".join(map(_match, found)), limit)).fetchall() if found else []
        held = _held(conn, found, [int(r[0]) for r in ranked])
    finally:
        conn.close()
    if covered is None:
        covered = covered_in_store(db, project) if ranked else set()
    return total, counts, [(int(i), str(kind), str(text), frozenset(held.get(int(i), ())))
                           for i, kind, text in ranked if int(i) not in covered]


def index_folder() -> str:
    """Where the prompt index lives (a private folder of the state dir)."""
    from .. import home

    return str(home.state_dir() / "prompt-index")


def by_words(db: str, project: str, words: list[str], covered: set[int] | None = None,
             groups: list[list[str]] | None = None) -> list[tuple[int, str, str]]:
    """The memories a prompt's `words` choose (`relevant` over the prompt index's matches), minus
    those the session loads from a native file (`covered`, read when not given); `groups`: what
    each sentence of a longer prompt is searched for (`recall_rules.parts`)."""
    from ..recall_rules import CANDIDATES, MAX_INDEXED, relevant

    cache = index_folder()
    searched = list(dict.fromkeys([*words, *(t for g in groups or () for t in g)]))
    found = prompt_candidates(db, project, searched, MAX_INDEXED, CANDIDATES, cache, covered)
    return relevant(*found, [words, *groups] if groups else None)


def chosen_by_words(db: str, project: str, prompt: str) -> tuple[list[tuple[int, str, str]], set[int]]:
    """The prompt's words path in one call, as the hook runs it: (the memories the prompt's words
    choose, the memories the session loads from a native file, left out). The warm process runs
    it too when the hook asks it to (`loreline_warm`), so the hook skips it when meaning answers."""
    from ..recall_rules import asked, parts

    covered = covered_in_store(db, project)
    words = asked(prompt)
    if not words:
        return [], covered
    return by_words(db, project, words, covered, parts(prompt)), covered


def covered_in_store(db: str, project: str) -> set[int]:
    """`covered_ids` from the store itself (the prompt index holds no native coverage)."""
    conn = _connect(db)
    try:
        return covered_ids(conn, project)
    finally:
        conn.close()


def _held(conn: sqlite3.Connection, terms: list[str], ids: list[int]) -> dict[int, set[str]]:
    """Which of `terms` each of the memories `ids` holds."""
    held: dict[int, set[str]] = {}
    if not ids:
        return held
    marks = ",".join("?" * len(ids))
    for term in terms:
        for (memory_id,) in conn.execute(f"SELECT rowid FROM m WHERE m MATCH ? AND rowid IN ({marks})",
                                         (_match(term), *ids)):
            held.setdefault(int(memory_id), set()).add(term)
    return held


def _prompt_index(db: str, project: str, max_rows: int, cache: str) -> sqlite3.Connection:
    """A read-only connection to the project's prompt index, current with the store.

    Fresh means: built for this project from the store as it is now (the sizes and times of
    the store file and its WAL; any write changes them). A store change makes every index
    stale, so a rebuild removes the other projects' files too: forgotten text never lingers
    past the next prompt. Concurrent hooks may both rebuild; each renames a whole file (a hook
    whose fresh file another one removed in between adds nothing this once)."""
    import os
    import zlib  # a cheap name (hashlib costs the hook ~2 ms); the project is checked inside

    stamp = _stamp(db)
    path = os.path.join(cache, f"{zlib.crc32(project.encode('utf-8', 'replace')):08x}.db")
    conn = _open_index(path, project, stamp)
    if conn is not None:
        return conn
    _build_index(db, project, max_rows, path, stamp)
    conn = _open_index(path, project, stamp)
    if conn is None:
        raise OSError(f"the prompt index {path} could not be read back")
    return conn


def _stamp(db: str) -> str:
    import os

    parts = []
    for name in (db, db + "-wal"):  # an empty WAL (a reader opening the store makes one) is no change
        try:
            info = os.stat(name)
        except FileNotFoundError:
            parts.append("-")
            continue
        parts.append(f"{info.st_size}:{info.st_mtime_ns}" if info.st_size else "-")
    return "|".join(parts)


def _open_index(path: str, project: str, stamp: str) -> sqlite3.Connection | None:
    import sqlite3

    try:
        conn = _connect(path)
        found = dict(conn.execute("SELECT key, value FROM meta").fetchall())
    except (sqlite3.Error, OSError):
        return None
    if found.get("stamp") == stamp and found.get("project") == project and found.get("format") == INDEX_FORMAT:
        return conn
    conn.close()
    return None


def _build_index(db: str, project: str, max_rows: int, path: str, stamp: str) -> None:
    import os
    import sqlite3
    from pathlib import Path

    from loreline import home
    from loreline.questions import split_cues

    store = _connect(db)
    try:
        rows = _select(store, ACTIVE, (project, max_rows))
    finally:
        store.close()
    folder = home.ensure_private_dir(Path(path).parent)
    tmp = folder / f".{Path(path).name}.{os.getpid()}.{os.urandom(4).hex()}.tmp"
    os.close(home.open_private(tmp, os.O_WRONLY | os.O_EXCL))
    try:
        index = sqlite3.connect(tmp)
        try:
            index.executescript(INDEX_SCHEMA)
            index.executemany("INSERT INTO m(rowid, kind, text, cues, topics) VALUES(?, ?, ?, ?, ?)",
                              [(i, kind, text, *split_cues(text, cues or "")) for i, kind, text, cues in rows])
            index.executemany("INSERT INTO meta(key, value) VALUES(?, ?)",
                              (("stamp", stamp), ("project", project), ("rows", str(len(rows))),
                               ("format", INDEX_FORMAT)))
            index.commit()
        finally:
            index.close()
        for stale in folder.glob("*.db"):
            stale.unlink(missing_ok=True)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


#: the index's layout; an index file of another format is rebuilt
INDEX_FORMAT = "4"
#: `cues`: the cues a model or a person wrote (questions it answers, topic words), matched by the
#: prompt's words; `topics`: the categories of the developer tools it names (`questions.split_cues`),
#: matched by the categories the prompt asks about (`questions.topics`: "which package manager" →
#: python package manager), so such a prompt reaches "we use pnpm"; only `text` is shown
INDEX_SCHEMA = """
CREATE VIRTUAL TABLE m USING fts5(kind UNINDEXED, text, cues, topics, tokenize='porter unicode61');
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


def _quote(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


def _match(term: str) -> str:
    """A term's FTS5 expression: a category a prompt asks about (`questions.is_topic`) matches a
    memory's topics; a word matches its text and the cues a model or a person wrote."""
    from loreline.questions import is_topic

    return f"topics : {_quote(term)}" if is_topic(term) else f"{{text cues}} : {_quote(term)}"


def covered_ids(conn: sqlite3.Connection, project: str) -> set[int]:
    """Memories the session loads from a native file (`recall_rules.fresh_covers`). A store
    without the table covers nothing."""
    try:
        rows = conn.execute(COVERED, (project,)).fetchall()
    except _sqlite_error():
        return set()  # an older store, or one no native import has touched
    return fresh_covers(rows)


def _sqlite_error() -> type[Exception]:
    import sqlite3

    return sqlite3.Error
