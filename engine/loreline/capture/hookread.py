"""The hook's one read of the store: the memories SessionStart injects.

The one exception to "the store owns every table's SQL" (`loreline.store`): the hook runs on
every session start and must stay standard-library only and fast, and `loreline.store` imports
apsw and sqlite-vec. So this query reads the `memories` table alone with the standard library's
`sqlite3`, read-only (`mode=ro`, never a write, never an extension), and lives here, in the part
of `loreline.capture` the hook imports. A change to the `memories` table's columns must keep it
working; `tests/test_hooks.py` runs it against a store the real importer wrote.
"""

from __future__ import annotations

import os
import sqlite3

SESSION_START = """
SELECT kind, text, id FROM memories
WHERE status = 'active' AND (project = ? OR scope = 'user')
ORDER BY CASE kind WHEN 'preference' THEN 0 WHEN 'decision' THEN 1 WHEN 'fact' THEN 2
                   WHEN 'procedure' THEN 3 ELSE 4 END,
         pinned DESC, coalesce(observed_at, created_at) DESC, id DESC
LIMIT ?
"""


#: which memories a Claude Code session already loads (CLAUDE.md layers, the head of the auto
#: memory MEMORY.md), as `loreline import native` recorded them
COVERED = "SELECT memory_id, path, size, mtime_ns FROM native_covered WHERE project = ?"


def session_start_memories(db: str, project: str, max_rows: int) -> tuple[list[tuple[str, str]], int]:
    """(kind, text) of the project's active memories and the user's, in injection order:
    preferences, decisions, facts, procedures, the rest; pinned then newest first in a kind;
    and how many were left out because the session already loads them (`covered_ids`)."""
    from pathlib import Path

    conn = sqlite3.connect(Path(db).as_uri() + "?mode=ro", uri=True, timeout=0.5)
    try:
        found = conn.execute(SESSION_START, (project, max_rows)).fetchall()
        covered = covered_ids(conn, project)
    finally:
        conn.close()
    kept = [(str(kind), str(text)) for kind, text, memory_id in found if memory_id not in covered]
    return kept, len(found) - len(kept)


def covered_ids(conn: sqlite3.Connection, project: str) -> set[int]:
    """Memories the session loads from a native file. A cover counts only while its file has
    the size and mtime recorded with it (an edited or deleted file proves nothing: the memory is
    injected until the next import); covers from MEMORY.md do not count when
    `CLAUDE_CODE_DISABLE_AUTO_MEMORY` is set (Claude Code then loads no auto memory). A store
    without the table covers nothing."""
    try:
        rows = conn.execute(COVERED, (project,)).fetchall()
    except sqlite3.Error:
        return set()  # an older store, or one no native import has touched
    auto_off = os.environ.get("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "").strip().lower() in ("1", "true", "yes")
    fresh: dict[str, bool] = {}
    out: set[int] = set()
    for memory_id, path, size, mtime_ns in rows:
        if auto_off and os.path.basename(str(path)) == "MEMORY.md":
            continue
        if path not in fresh:
            fresh[path] = _unchanged(str(path), int(size), int(mtime_ns))
        if fresh[path]:
            out.add(int(memory_id))
    return out


def _unchanged(path: str, size: int, mtime_ns: int) -> bool:
    try:
        st = os.stat(path)
    except OSError:
        return False
    return st.st_size == size and st.st_mtime_ns == mtime_ns
