"""Whole rows of the tables an export carries, read and written column by column.

Export and import copy every column a table has (read from `PRAGMA table_info`), so a
column or status added by a later migration travels without this module knowing it. Ids
are kept when the target has them free (an import into an empty store reproduces the
source's ids); otherwise SQLite picks new ones and the caller remaps references.

Writers expect to run inside `Store.write()`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from . import Store

#: the tables an export carries, in the order an import writes them
TABLES = ("memories", "provenance", "memory_files", "conflicts", "tombstones", "audit")

#: what identifies a row across stores (ids never do): an import that finds a row with the
#: same values here keeps it and writes nothing
NATURAL_KEYS: dict[str, tuple[str, ...]] = {
    "memories": ("project", "content_hash", "version", "created_at"),
    "provenance": ("memory_id", "session_path", "line_start", "line_end"),
    "memory_files": ("memory_id", "path"),
    "conflicts": ("project", "a", "b", "created_at"),
    "tombstones": ("project", "content_hash"),
    "audit": ("at", "actor", "action", "memory_id", "conflict_id", "before", "after"),
}


def columns(store: Store, table: str) -> list[str]:
    return [str(row[1]) for row in store.rows(f"PRAGMA table_info({table})")]


#: how a table's rows belong to one project: by their own `project` column, or through the
#: memory they hang off
_OF_PROJECT = {"memories": "project = ?", "conflicts": "project = ?", "tombstones": "project = ?",
               "provenance": "memory_id IN (SELECT id FROM memories WHERE project = ?)",
               "memory_files": "memory_id IN (SELECT id FROM memories WHERE project = ?)"}


def dump(store: Store, table: str, project: str | None = None) -> list[dict[str, Any]]:
    """Every column of the table's rows (those of `project` only, when given), ordered by rowid."""
    names = columns(store, table)
    order = "rowid" if table != "memory_files" else "memory_id, path"
    where, params = (f"WHERE {_OF_PROJECT[table]}", (project,)) if project is not None else ("", ())
    sql = f"SELECT {', '.join(names)} FROM {table} {where} ORDER BY {order}"
    return [dict(zip(names, row, strict=True)) for row in store.rows(sql, params)]


def find(store: Store, table: str, row: dict[str, Any]) -> int | None:
    """The rowid of a row with the same natural key, or None."""
    key = NATURAL_KEYS[table]
    clause = " AND ".join(f"{name} IS ?" for name in key)
    found = store.one(f"SELECT rowid FROM {table} WHERE {clause}", tuple(row.get(name) for name in key))
    return int(found[0]) if found else None


def insert(store: Store, table: str, row: dict[str, Any], known: Sequence[str]) -> int:
    """Insert the row's columns that the table has; the id is kept when it is free."""
    names = [name for name in known if name in row]
    if "id" in names and store.one(f"SELECT 1 FROM {table} WHERE id = ?", (row["id"],)) is not None:
        names.remove("id")
    store.conn.execute(
        f"INSERT INTO {table}({', '.join(names)}) VALUES({', '.join('?' * len(names))})",
        tuple(row[name] for name in names),
    )
    return int(store.conn.last_insert_rowid())


def set_chain(store: Store, memory_id: int, root_id: int | None, replaces: int | None) -> None:
    store.conn.execute("UPDATE memories SET root_id = ?, replaces = ? WHERE id = ?", (root_id, replaces, memory_id))


def projects(store: Store) -> list[str]:
    return [str(r[0]) for r in store.rows("SELECT DISTINCT project FROM memories ORDER BY project")]
