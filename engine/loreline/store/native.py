"""Rows of `native_sources` (the assistants' own memory files Loreline read) and
`native_covered` (memories a session already loads from them), read and written.

Writers expect to run inside `Store.write()`.
"""

from __future__ import annotations


from .. import records
from . import Store
from .memories import now

NATIVE_TOOLS = ("claude-memory", "claude-md", "codex-memory", "gemini-md")


@records.record
class Seen:
    path: str
    tool: str
    project: str
    digest: str
    size: int
    mtime_ns: int


@records.record
class Source:
    """One provenance row a native file gave a memory."""

    id: int
    memory_id: int
    line_start: int
    line_end: int
    key: str | None
    status: str = "active"


def lookup(store: Store, path: str) -> Seen | None:
    row = store.one("SELECT path, tool, project, digest, size, mtime_ns FROM native_sources WHERE path = ?", (path,))
    return Seen(*row) if row else None


def seen(store: Store) -> list[Seen]:
    return [Seen(*r) for r in store.rows(
        "SELECT path, tool, project, digest, size, mtime_ns FROM native_sources ORDER BY path")]


def record(store: Store, item: Seen, items: int) -> None:
    store.conn.execute(
        "INSERT INTO native_sources(path, tool, project, digest, size, mtime_ns, items, updated_at) "
        "VALUES(?,?,?,?,?,?,?,?) ON CONFLICT(path) DO UPDATE SET tool=excluded.tool, project=excluded.project, "
        "digest=excluded.digest, size=excluded.size, mtime_ns=excluded.mtime_ns, items=excluded.items, "
        "updated_at=excluded.updated_at",
        (item.path, item.tool, item.project, item.digest, item.size, item.mtime_ns, items, now()))


def forget_file(store: Store, path: str) -> None:
    store.conn.execute("DELETE FROM native_sources WHERE path = ?", (path,))


def sources(store: Store, path: str) -> list[Source]:
    return [Source(int(r[0]), int(r[1]), int(r[2]), int(r[3]), r[4], str(r[5])) for r in store.rows(
        "SELECT p.id, p.memory_id, p.line_start, p.line_end, p.replay_key, m.status FROM provenance p "
        "JOIN memories m ON m.id = p.memory_id WHERE p.session_path = ? ORDER BY p.id", (path,))]


def ended_here(store: Store, memory_id: int) -> bool:
    """True when the memory's last change was ending it because its native source went away
    (a statement put back revives it; a memory superseded by a person or a conflict stays so)."""
    action = store.scalar("SELECT action FROM audit WHERE memory_id = ? ORDER BY id DESC LIMIT 1", (memory_id,))
    return action == "native-source-gone"


def move_source(store: Store, source_id: int, line_start: int, line_end: int) -> None:
    """An unchanged statement that moved within its file: its lines follow it."""
    store.conn.execute("UPDATE OR IGNORE provenance SET line_start = ?, line_end = ? WHERE id = ?",
                       (line_start, line_end, source_id))


def drop_source(store: Store, source_id: int) -> None:
    store.conn.execute("DELETE FROM provenance WHERE id = ?", (source_id,))


def other_sources(store: Store, memory_id: int, path: str) -> int:
    return int(store.scalar("SELECT count(*) FROM provenance WHERE memory_id = ? AND session_path != ?",
                            (memory_id, path)) or 0)


def end_memory(store: Store, memory_id: int) -> None:
    """A memory whose only source is gone stops being true now."""
    stamp = now()
    store.conn.execute("UPDATE memories SET status = 'superseded', valid_until = ?, updated_at = ? "
                       "WHERE id = ? AND status = 'active'", (stamp, stamp, memory_id))


def set_pinned_scope(store: Store, memory_id: int, pinned: bool, scope: str) -> bool:
    """Pin (and scope) a memory the user wrote into a CLAUDE.md; True when something changed."""
    store.conn.execute("UPDATE memories SET pinned = max(pinned, ?), scope = ?, updated_at = ? "
                       "WHERE id = ? AND (pinned < ? OR scope != ?)",
                       (int(pinned), scope, now(), memory_id, int(pinned), scope))
    return bool(store.conn.changes() > 0)


def active_texts(store: Store, project: str) -> list[tuple[int, str]]:
    return [(int(r[0]), str(r[1])) for r in store.rows(
        "SELECT id, text FROM memories WHERE status = 'active' AND (project = ? OR scope = 'user')", (project,))]


def set_covered(store: Store, project: str, covered: list[tuple[int, str, int, int, int]]) -> None:
    """Replace the project's covered memories: (memory id, file, line, file size, file mtime_ns)."""
    store.conn.execute("DELETE FROM native_covered WHERE project = ?", (project,))
    for memory_id, path, line, size, mtime_ns in covered:
        store.conn.execute("INSERT OR REPLACE INTO native_covered(memory_id, project, path, line, size, mtime_ns) "
                           "VALUES(?,?,?,?,?,?)", (memory_id, project, path, line, size, mtime_ns))


def covered(store: Store, project: str) -> list[tuple[int, str, int]]:
    return [(int(r[0]), str(r[1]), int(r[2])) for r in store.rows(
        "SELECT memory_id, path, line FROM native_covered WHERE project = ? ORDER BY memory_id", (project,))]


def native_projects(store: Store) -> list[str]:
    """Projects with a memory from a native file (a Codex MEMORY.md can name several)."""
    marks = ",".join("?" * len(NATIVE_TOOLS))
    return [str(r[0]) for r in store.rows(
        f"SELECT DISTINCT m.project FROM memories m JOIN provenance p ON p.memory_id = m.id "
        f"WHERE p.tool IN ({marks}) ORDER BY m.project", NATIVE_TOOLS)]


def native_memories(store: Store, project: str) -> list[tuple[int, str, str, int, int]]:
    """Active memories of the project with a native source: (id, text, file, line_start, line_end)."""
    marks = ",".join("?" * len(NATIVE_TOOLS))
    return [(int(r[0]), str(r[1]), str(r[2]), int(r[3]), int(r[4])) for r in store.rows(
        f"SELECT m.id, m.text, p.session_path, p.line_start, p.line_end FROM memories m "
        f"JOIN provenance p ON p.memory_id = m.id WHERE m.project = ? AND m.status = 'active' "
        f"AND p.tool IN ({marks}) ORDER BY m.id, p.id", (project, *NATIVE_TOOLS))]


def native_conflicts(store: Store, project: str) -> list[tuple[int, int, int, str]]:
    """Conflicts of the project between a memory with a native source and one without:
    (conflict id, native memory id, other memory id, status)."""
    marks = ",".join("?" * len(NATIVE_TOOLS))
    native = f"EXISTS (SELECT 1 FROM provenance p WHERE p.memory_id = {{}} AND p.tool IN ({marks}))"
    out: list[tuple[int, int, int, str]] = []
    for cid, a, b, status, a_native, b_native in store.rows(
        f"SELECT c.id, c.a, c.b, c.status, {native.format('c.a')}, {native.format('c.b')} FROM conflicts c "
        "WHERE c.project = ? ORDER BY c.id", (*NATIVE_TOOLS, *NATIVE_TOOLS, project)):
        if bool(a_native) != bool(b_native):
            out.append((int(cid), int(a if a_native else b), int(b if a_native else a), str(status)))
    return out


def project_of_sessions(store: Store, folder: str) -> str | None:
    """The project the ledger recorded for session files in this folder."""
    value = store.scalar("SELECT project FROM ledger WHERE session_path LIKE ? ESCAPE '\\' AND project != '(unknown)' "
                         "ORDER BY updated_at DESC LIMIT 1",
                         (folder.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "/%",))
    return str(value) if value is not None else None
