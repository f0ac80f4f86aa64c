"""The hook's reads of the store: the memories SessionStart injects, and the candidates for
the memories relevant to one prompt (UserPromptSubmit).

The one exception to "the store owns every table's SQL" (`loreline.store`): the hook runs on
every session start and every prompt and must stay standard-library only and fast, and
`loreline.store` imports apsw and sqlite-vec. So these queries read the `memories` and
`memory_files` tables with the standard library's `sqlite3`, read-only (`mode=ro`, never a
write, never an extension), and live here, in the part of `loreline.capture` the hook
imports. A change to those tables' columns must keep them working; `tests/test_hooks.py` and
`tests/test_prompt_recall.py` run them against a store the real importer wrote.

The store's own full-text index is contentless with `contentless_delete=1` (SQLite ≥ 3.43),
which the standard library's SQLite of many Pythons (3.40 on Debian 12) cannot open; so the
prompt lookup indexes the project's active memories (at most `max_rows`, pinned then newest)
in a throwaway in-memory FTS5 table and ranks them with bm25 there. Only `status = 'active'`
counts: superseded, forgotten or held memories are never offered.
"""

from __future__ import annotations

SESSION_START = """
SELECT id, kind, text FROM memories
WHERE status = 'active' AND (project = ? OR scope = 'user')
ORDER BY CASE kind WHEN 'preference' THEN 0 WHEN 'decision' THEN 1 WHEN 'fact' THEN 2
                   WHEN 'procedure' THEN 3 ELSE 4 END,
         pinned DESC, coalesce(observed_at, created_at) DESC, id DESC
LIMIT ?
"""

ACTIVE = """
SELECT id, kind, text FROM memories
WHERE status = 'active' AND (project = ? OR scope = 'user')
ORDER BY pinned DESC, coalesce(observed_at, created_at) DESC, id DESC
LIMIT ?
"""

TIED_TO_FILES = "SELECT DISTINCT memory_id FROM memory_files WHERE path IN ({marks})"
MAX_PATHS = 500

TYPE_CHECKING = False  # importing typing costs the hook milliseconds
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Collection, Sequence


def _connect(db: str) -> sqlite3.Connection:
    import sqlite3
    from pathlib import Path

    return sqlite3.connect(Path(db).as_uri() + "?mode=ro", uri=True, timeout=0.5)


def session_start_memories(db: str, project: str, max_rows: int,
                           files: Collection[str] = ()) -> list[tuple[int, str, str]]:
    """(id, kind, text) of the project's active memories and the user's, in injection order:
    preferences, decisions, facts, procedures, the rest; within a kind, memories tied to one of
    `files` (paths relative to the project) first, then pinned, then newest."""
    conn = _connect(db)
    try:
        found = conn.execute(SESSION_START, (project, max_rows)).fetchall()
        tied = _tied(conn, files) if files and found else set()
    finally:
        conn.close()
    rows = [(int(i), str(kind), str(text)) for i, kind, text in found]
    if tied:  # a stable sort keeps pinned-then-newest inside each (kind, tied) group
        order = {kind: n for n, kind in enumerate(dict.fromkeys(kind for _, kind, _ in rows))}
        rows.sort(key=lambda row: (order[row[1]], row[0] not in tied))
    return rows


def _tied(conn: sqlite3.Connection, files: Collection[str]) -> set[int]:
    paths = list(files)[:MAX_PATHS]
    sql = TIED_TO_FILES.format(marks=",".join("?" * len(paths)))
    return {int(r[0]) for r in conn.execute(sql, paths)}


def prompt_candidates(db: str, project: str, terms: Sequence[str], max_rows: int,
                      limit: int) -> tuple[int, dict[str, set[int]], list[tuple[int, str, str]]]:
    """For the prompt's `terms`: how many memories were indexed, which of them each term matches
    (the index's own porter stemming), and the best `limit` matches by bm25, as (id, kind, text)."""
    conn = _connect(db)
    try:
        rows = conn.execute(ACTIVE, (project, max_rows)).fetchall()
    finally:
        conn.close()
    if not rows or not terms:
        return len(rows), {}, []
    import sqlite3

    index = sqlite3.connect(":memory:")
    try:
        index.execute("CREATE VIRTUAL TABLE m USING fts5(text, tokenize='porter unicode61')")
        index.executemany("INSERT INTO m(rowid, text) VALUES(?, ?)", ((r[0], r[2]) for r in rows))
        hits = {t: {int(r[0]) for r in index.execute("SELECT rowid FROM m WHERE m MATCH ?", (_quote(t),))}
                for t in terms}
        match = " OR ".join(_quote(t) for t in terms if hits[t])
        ranked = [int(r[0]) for r in index.execute(
            "SELECT rowid FROM m WHERE m MATCH ? ORDER BY bm25(m), rowid DESC LIMIT ?", (match, limit))] if match else []
    finally:
        index.close()
    by_id = {int(r[0]): (int(r[0]), str(r[1]), str(r[2])) for r in rows}
    return len(rows), hits, [by_id[i] for i in ranked]


def _quote(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'
