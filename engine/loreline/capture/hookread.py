"""The hook's one read of the store: the memories SessionStart injects.

The one exception to "the store owns every table's SQL" (`loreline.store`): the hook runs on
every session start and must stay standard-library only and fast, and `loreline.store` imports
apsw and sqlite-vec. So this query reads the `memories` table alone with the standard library's
`sqlite3`, read-only (`mode=ro`, never a write, never an extension), and lives here, in the part
of `loreline.capture` the hook imports. A change to the `memories` table's columns must keep it
working; `tests/test_hooks.py` runs it against a store the real importer wrote.
"""

from __future__ import annotations

SESSION_START = """
SELECT kind, text FROM memories
WHERE status = 'active' AND (project = ? OR scope = 'user')
ORDER BY CASE kind WHEN 'preference' THEN 0 WHEN 'decision' THEN 1 WHEN 'fact' THEN 2
                   WHEN 'procedure' THEN 3 ELSE 4 END,
         pinned DESC, coalesce(observed_at, created_at) DESC, id DESC
LIMIT ?
"""


def session_start_memories(db: str, project: str, max_rows: int) -> list[tuple[str, str]]:
    """(kind, text) of the project's active memories and the user's, in injection order:
    preferences, decisions, facts, procedures, the rest; pinned then newest first in a kind."""
    import sqlite3
    from pathlib import Path

    conn = sqlite3.connect(Path(db).as_uri() + "?mode=ro", uri=True, timeout=0.5)
    try:
        found = conn.execute(SESSION_START, (project, max_rows)).fetchall()
    finally:
        conn.close()
    return [(str(kind), str(text)) for kind, text in found]
