"""Read-only queries for browsing the store: sessions and what each taught, model use per day,
when a project last learned something, and the values a listing can be filtered by."""

from __future__ import annotations


from ..records import record
from . import Store


@record
class SessionRow:
    session_path: str
    session_id: str
    tool: str
    project: str
    lines: int
    updated_at: str
    #: memories (any status) that cite this session
    taught: int


@record
class DayRow:
    day: str
    calls: int
    unattended_calls: int
    input_tokens: int
    output_tokens: int


def sessions(store: Store, project: str | None, limit: int = 500) -> list[SessionRow]:
    where, params = ("WHERE l.project = ?", (project,)) if project is not None else ("", ())
    return _sessions(store, where, params, limit)


def _sessions(store: Store, where: str, params: tuple[object, ...], limit: int) -> list[SessionRow]:
    found = store.rows(
        "SELECT l.session_path, l.session_id, l.tool, l.project, l.line, l.updated_at, "
        "(SELECT count(DISTINCT p.memory_id) FROM provenance p WHERE p.session_path = l.session_path) "
        f"FROM ledger l {where} ORDER BY l.updated_at DESC LIMIT ?", (*params, limit))
    return [SessionRow(str(r[0]), str(r[1]), str(r[2]), str(r[3]), int(r[4]), str(r[5]), int(r[6])) for r in found]


def session(store: Store, session_path: str) -> SessionRow | None:
    found = _sessions(store, "WHERE l.session_path = ?", (session_path,), 1)
    return found[0] if found else None


def imported(store: Store, paths: list[str]) -> set[str]:
    """Which of `paths` the ledger holds."""
    found: set[str] = set()
    for start in range(0, len(paths), 500):  # within SQLite's limit on bound parameters
        chunk = paths[start:start + 500]
        marks = ",".join("?" * len(chunk))
        found.update(str(r[0]) for r in store.rows(
            f"SELECT session_path FROM ledger WHERE session_path IN ({marks})", tuple(chunk)))
    return found


def taught_ids(store: Store, session_path: str) -> list[int]:
    """The memories that cite a session, in the order of the lines they cite."""
    return [int(r[0]) for r in store.rows(
        "SELECT memory_id FROM provenance WHERE session_path = ? GROUP BY memory_id ORDER BY min(line_start)",
        (session_path,))]


def usage_by_day(store: Store, since: str) -> list[DayRow]:
    return [DayRow(str(r[0]), int(r[1] or 0), int(r[2] or 0), int(r[3] or 0), int(r[4] or 0)) for r in store.rows(
        "SELECT day, sum(calls), sum(CASE WHEN attended = 0 THEN calls ELSE 0 END), "
        "sum(input_tokens + cache_read_tokens + cache_creation_tokens), sum(output_tokens) "
        "FROM usage WHERE day >= ? GROUP BY day ORDER BY day", (since,))]


def last_learned(store: Store, project: str) -> str | None:
    value = store.scalar("SELECT max(created_at) FROM memories WHERE project = ?", (project,))
    return str(value) if value else None


def stale_count(store: Store, project: str) -> int:
    return int(store.scalar("SELECT count(*) FROM memories WHERE project = ? AND status = 'active' "
                            "AND stale IS NOT NULL", (project,)) or 0)


def authors(store: Store, project: str) -> list[str]:
    return [str(r[0]) for r in store.rows("SELECT DISTINCT extractor FROM memories WHERE project = ? "
                                          "ORDER BY extractor", (project,))]


def tools(store: Store, project: str) -> list[str]:
    return [str(r[0]) for r in store.rows(
        "SELECT DISTINCT p.tool FROM provenance p JOIN memories m ON m.id = p.memory_id WHERE m.project = ? "
        "ORDER BY p.tool", (project,))]
