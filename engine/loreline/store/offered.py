"""The memories a session is offered at its start, read for the engine (`recall.session_notes`):
the same rows, in the same order, as the hook's standard-library reader
(`capture.hookread.session_start_memories`), both following `recall_rules`."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from ..recall_rules import KIND_ORDER, OFFERED
from . import Store

#: the project's offered memories (and the user's): not stale unless pinned, in kind, pinned,
#: newest, id order (`recall_rules.session_order`)
_KIND_RANK = "CASE kind " + " ".join(f"WHEN '{kind}' THEN {n}" for n, kind in enumerate(KIND_ORDER)) + \
    f" ELSE {len(KIND_ORDER)} END"
_SESSION_START = (f"SELECT id, kind, text FROM memories WHERE status = ? AND (stale IS NULL OR pinned = 1) "
                  f"AND (project = ? OR scope = 'user') "
                  f"ORDER BY {_KIND_RANK}, pinned DESC, coalesce(observed_at, created_at) DESC, id DESC LIMIT ?")
MAX_PATHS = 500


def session_start(store: Store, project: str, limit: int) -> list[tuple[int, str, str]]:
    return [(int(i), str(kind), str(text))
            for i, kind, text in store.rows(_SESSION_START, (OFFERED, project, limit))]


def tied(store: Store, files: Collection[str]) -> set[int]:
    """The memories tied to one of `files` (paths relative to the project)."""
    paths = list(files)[:MAX_PATHS]
    if not paths:
        return set()
    marks = ",".join("?" * len(paths))
    return {int(r[0]) for r in store.rows(f"SELECT DISTINCT memory_id FROM memory_files WHERE path IN ({marks})",
                                          tuple(paths))}


def covers(store: Store, project: str) -> list[tuple[int, str, int, int]]:
    """(memory id, native file, size, mtime_ns) as `loreline import native` recorded them."""
    return [(int(m), str(p), int(s), int(t)) for m, p, s, t in
            store.rows("SELECT memory_id, path, size, mtime_ns FROM native_covered WHERE project = ?", (project,))]


def team_authors(store: Store, ids: Sequence[int]) -> dict[int, str]:
    """The teammates each memory came from, comma-separated (team sync's incoming links)."""
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    found = store.rows(f"SELECT m.id, group_concat(DISTINCT l.author) FROM memories m "
                       f"JOIN team_links l ON l.root_id = coalesce(m.root_id, m.id) AND l.direction = 'in' "
                       f"WHERE m.id IN ({marks}) GROUP BY m.id", tuple(ids))
    return {int(memory_id): str(authors) for memory_id, authors in found if authors}
