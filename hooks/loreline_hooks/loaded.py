"""Which memories a Claude Code session already loads (CLAUDE.md layers, the head of the auto
memory MEMORY.md), as `loreline import native` recorded them in `native_covered`.

Standard library only, and cheap: one indexed SELECT and one `stat` per covering file. A
cover counts only while its file has the size and mtime recorded with it (an edited or
deleted file no longer proves anything: the memory is injected until the next import), and
covers from MEMORY.md do not count when `CLAUDE_CODE_DISABLE_AUTO_MEMORY` is set for the
session (Claude Code then loads no auto memory). A store without the table covers nothing.
"""

from __future__ import annotations

import os
import sqlite3

SQL = "SELECT memory_id, path, size, mtime_ns FROM native_covered WHERE project = ?"


def covered_ids(conn: sqlite3.Connection, project: str) -> set[int]:
    try:
        rows = conn.execute(SQL, (project,)).fetchall()
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
