"""Rows of `briefs`, `brief_lines` and `brief_cites`: the versions of each project's brief.

A version is written whole and never changed afterwards, but for its `stale` mark (a person
changed the project's memories since a model wrote it). The hook reads the latest version of
a project with the standard library (`capture.hookread.session_brief`), so a change to these
columns must keep that query working.
"""

from __future__ import annotations

from ..brief.model import Brief, Line
from . import Store
from .memories import now

TYPE_CHECKING = False  # typing is left to the type checker: the everyday commands import none of it
if TYPE_CHECKING:
    from collections.abc import Sequence

VERSION_COLUMNS = "id, project, version, writer, created_at, basis, stale, changed_by, dropped, day"


def latest(store: Store, project: str) -> Brief | None:
    """The project's newest version, or None when it has none."""
    row = store.one(f"SELECT {VERSION_COLUMNS} FROM briefs WHERE project = ? ORDER BY version DESC LIMIT 1",
                    (project,))
    return _brief(store, row) if row is not None else None


def version(store: Store, project: str, number: int) -> Brief | None:
    row = store.one(f"SELECT {VERSION_COLUMNS} FROM briefs WHERE project = ? AND version = ?", (project, number))
    return _brief(store, row) if row is not None else None


def versions(store: Store, project: str, limit: int = 50) -> list[Brief]:
    """The project's versions, newest first (their lines too)."""
    rows = store.rows(f"SELECT {VERSION_COLUMNS} FROM briefs WHERE project = ? ORDER BY version DESC LIMIT ?",
                      (project, limit))
    return [_brief(store, row) for row in rows]


def _brief(store: Store, row: tuple[object, ...]) -> Brief:
    brief_id, project, number, writer, created, basis, stale, changed_by, dropped, day = row
    return Brief(str(project), int(str(number)), str(writer), str(created), _lines(store, int(str(brief_id))),
                 str(basis), bool(stale), None if changed_by is None else str(changed_by), int(str(dropped)),
                 None if day is None else str(day))


def _lines(store: Store, brief_id: int) -> tuple[Line, ...]:
    cites: dict[int, list[int]] = {}
    for line_id, memory_id in store.rows(
            "SELECT c.line_id, c.memory_id FROM brief_cites c JOIN brief_lines l ON l.id = c.line_id "
            "WHERE l.brief_id = ? ORDER BY c.line_id, c.place", (brief_id,)):
        cites.setdefault(int(line_id), []).append(int(memory_id))
    return tuple(Line(str(topic), str(text), tuple(cites.get(int(line_id), ())), str(by), bool(pinned), bool(edited),
                      int(number))
                 for line_id, number, topic, text, by, pinned, edited in store.rows(
                     "SELECT id, number, topic, text, by, pinned, edited FROM brief_lines WHERE brief_id = ? "
                     "ORDER BY number", (brief_id,)))


def save(store: Store, project: str, writer: str, lines: Sequence[Line], basis: str, *,
         changed_by: str | None = None, dropped: int = 0, day: str | None = None) -> int:
    """Add the project's next version (inside `Store.write()`); returns its number."""
    number = int(store.scalar("SELECT coalesce(max(version), 0) + 1 FROM briefs WHERE project = ?", (project,)))
    store.conn.execute("INSERT INTO briefs(project, version, writer, changed_by, basis, dropped, created_at, day) "
                       "VALUES(?,?,?,?,?,?,?,?)", (project, number, writer, changed_by, basis, dropped, now(), day))
    brief_id = int(store.conn.last_insert_rowid())
    for line in lines:
        store.conn.execute("INSERT INTO brief_lines(brief_id, number, topic, text, by, pinned, edited) "
                           "VALUES(?,?,?,?,?,?,?)", (brief_id, line.number, line.topic, line.text, line.by,
                                                    int(line.pinned), int(line.edited)))
        line_id = int(store.conn.last_insert_rowid())
        store.conn.executemany("INSERT OR IGNORE INTO brief_cites(line_id, memory_id, place) VALUES(?,?,?)",
                               [(line_id, memory_id, place) for place, memory_id in enumerate(line.memories)])
    return number


def mark_stale(store: Store, project: str) -> None:
    """The project's newest version no longer reflects its memories (a person changed them)."""
    store.conn.execute("UPDATE briefs SET stale = 1 WHERE project = ? AND version = "
                       "(SELECT max(version) FROM briefs WHERE project = ?)", (project, project))


def projects(store: Store) -> list[str]:
    """Every project that has a brief."""
    return [str(r[0]) for r in store.rows("SELECT DISTINCT project FROM briefs ORDER BY project")]


def sources(store: Store, project: str, limit: int) -> list[int]:
    """The ids of the memories a brief of `project` may cite: active, of the project or the
    user's own scope, not maybe stale unless pinned; pinned then newest first."""
    return [int(r[0]) for r in store.rows(
        "SELECT id FROM memories WHERE status = 'active' AND (stale IS NULL OR pinned = 1) "
        "AND (project = ? OR scope = 'user') ORDER BY pinned DESC, coalesce(observed_at, created_at) DESC, id DESC "
        "LIMIT ?", (project, limit))]


def statuses(store: Store, ids: Sequence[int]) -> dict[int, tuple[str, bool]]:
    """Each memory's (status, whether it is left out as maybe stale: stale and not pinned)."""
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    return {int(i): (str(status), bool(hidden)) for i, status, hidden in store.rows(
        f"SELECT id, status, stale IS NOT NULL AND pinned = 0 FROM memories WHERE id IN ({marks})", tuple(ids))}
