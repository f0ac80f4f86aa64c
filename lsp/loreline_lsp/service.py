"""The domain layer behind the language server: engine calls in, JSON-ready values out.

Nothing here knows about LSP transport; every method takes plain values and returns dicts in
the shapes `docs/protocol.md` documents (camelCase keys, as LSP clients expect).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from loreline import pipeline

from loreline.beliefs import conflicts

from loreline.beliefs import curate
from loreline.beliefs.conflicts import Conflict
from loreline import backends
from loreline.models import ImportReport, Memory, Provenance
from loreline.project import project_key
from loreline.recall import USER_SCOPE, recall
from loreline.store import Store
from loreline.store import memories as rows
from loreline.store import search
from loreline.transcripts import discover

MAX_HOVER_WORD = 64
BRIEF_EXCERPT = 160


def to_path(uri_or_path: str) -> str:
    if uri_or_path.startswith("file:"):
        return unquote(urlparse(uri_or_path).path)
    return uri_or_path


@functools.lru_cache(maxsize=4096)
def to_uri(path: str) -> str:
    """A file URI for a session path (many memories share a session: computed once)."""
    return Path(path).absolute().as_uri()


def source_json(p: Provenance) -> dict[str, Any]:
    return {"tool": p.tool, "sessionId": p.session_id, "sessionPath": p.session_path,
            "sessionUri": to_uri(p.session_path), "lineStart": p.line_start, "lineEnd": p.line_end,
            "excerpt": p.excerpt, "observedAt": p.observed_at}


def memory_json(m: Memory) -> dict[str, Any]:
    return {"id": m.id, "kind": m.kind, "text": m.text, "status": m.status, "version": m.version,
            "pinned": m.pinned, "project": m.project, "createdAt": m.created_at, "observedAt": m.observed_at,
            "validUntil": m.valid_until, "files": list(m.files), "sourceCount": len(m.provenance),
            "source": _brief(source_json(m.provenance[0])) if m.provenance else None}


def _brief(source: dict[str, Any]) -> dict[str, Any]:
    """A list item's source: the excerpt cut short (`loreline/provenance` has it whole)."""
    excerpt = source["excerpt"]
    return {**source, "excerpt": excerpt if len(excerpt) <= BRIEF_EXCERPT else excerpt[:BRIEF_EXCERPT] + "…"}


class Service:
    def __init__(self, store: Store) -> None:
        self.store = store

    # -- reading ----------------------------------------------------------------------

    def memories(self, project: str, *, kind: str | None, status: str | None, text: str | None,
                 offset: int, limit: int) -> dict[str, Any]:
        found, total = rows.query(self.store, rows.Filter(project=project, kind=kind, status=status, text=text,
                                                          limit=limit, offset=offset))
        return {"project": project, "total": total, "offset": offset, "items": [memory_json(m) for m in found]}

    def provenance(self, memory_id: int) -> dict[str, Any]:
        memory = rows.get(self.store, memory_id)
        return {"memory": memory_json(memory), "sources": [source_json(p) for p in memory.provenance]}

    def recall(self, project: str, query: str, *, limit: int, include_inactive: bool) -> dict[str, Any]:
        hits = recall(self.store, query, project, limit=limit, include_inactive=include_inactive)
        return {"project": project, "query": query, "items": [
            {"memory": memory_json(h.memory), "score": round(h.score, 6), "ftsRank": h.fts_rank,
             "vecRank": h.vec_rank, "sources": [source_json(p) for p in h.memory.provenance]} for h in hits]}

    def conflicts(self, project: str | None, status: str | None) -> dict[str, Any]:
        return {"items": [self._conflict_json(c) for c in conflicts.listing(self.store, project, status)]}

    def _conflict_json(self, c: Conflict) -> dict[str, Any]:
        return {"id": c.id, "project": c.project, "status": c.status, "resolution": c.resolution,
                "decidedBy": c.decided_by, "reason": c.reason, "createdAt": c.created_at,
                "resolvedAt": c.resolved_at, "existing": memory_json(c.existing), "new": memory_json(c.new)}

    def file_memories(self, project: str, file_path: str) -> list[dict[str, Any]]:
        rel = os.path.relpath(file_path, project) if os.path.isabs(project) else file_path
        ids = [int(r[0]) for r in self.store.rows(
            "SELECT m.id FROM memory_files f JOIN memories m ON m.id = f.memory_id "
            "WHERE m.project = ? AND m.status = 'active' AND f.path IN (?, ?) "
            "ORDER BY m.pinned DESC, m.kind, m.id", (project, rel, file_path))]
        return [memory_json(m) for m in rows.load(self.store, list(dict.fromkeys(ids)))]

    def hover_memories(self, project: str, word: str, limit: int) -> list[Memory]:
        """Memories whose text matches the word under the cursor (lexically)."""
        if len(word) < 3 or len(word) > MAX_HOVER_WORD:
            return []
        ids = search.fts(self.store, word, (project, USER_SCOPE), limit * 3, ("active",))
        found = rows.load(self.store, ids)
        needle = word.lower()
        exact = [m for m in found if needle in m.text.lower()]
        return (exact or found)[:limit]

    # -- writing ----------------------------------------------------------------------

    def resolve_conflict(self, conflict_id: int, verdict: str, merge_text: str | None) -> dict[str, Any]:
        return self._conflict_json(conflicts.resolve(self.store, conflict_id, verdict, merge_text=merge_text))

    def forget(self, memory_id: int) -> dict[str, Any]:
        project = rows.get(self.store, memory_id).project
        return {"forgotten": curate.forget(self.store, memory_id), "project": project}

    def project_counts(self, project: str) -> dict[str, int]:
        counts = dict(self.store.rows("SELECT status, count(*) FROM memories WHERE project = ? GROUP BY status",
                                      (project,)))
        pending = self.store.scalar("SELECT count(*) FROM conflicts WHERE project = ? AND status = 'pending'",
                                    (project,))
        return {"active": int(counts.get("active", 0)), "superseded": int(counts.get("superseded", 0)),
                "forgotten": int(counts.get("forgotten", 0)), "pendingConflicts": int(pending or 0)}


def project_of(path_or_uri: str) -> str:
    return project_key(to_path(path_or_uri))


def run_import(paths: list[str] | None, scope: str, days: float, sessions: int,
               progress: Callable[[int, int, str], None], should_stop: Callable[[], bool]) -> ImportReport:
    """An import in its own store connection (it runs off the server's event loop)."""
    left_out: list[tuple[str, str]] = []
    if paths:
        chosen: list[tuple[Path, str | None]] = [(Path(to_path(p)), None) for p in paths]
    else:
        found = discover.discover_all([scope], window=discover.Window(days, sessions))
        chosen, left_out = found.in_import_order(), found.left_out
    choice = backends.choose()
    options = pipeline.Options(distiller=choice.distiller, judge=choice.judge, progress=progress,
                               should_stop=should_stop)
    with Store() as store:
        report = pipeline.import_sessions(store, chosen, options)
        if not paths:
            from loreline.native import run as native_run

            native_run.follow(store, judge=choice.judge)  # the assistants' own memory files too
    report.backend_reason = choice.reason
    report.left_out.extend(left_out)
    return report


def report_json(report: ImportReport) -> dict[str, Any]:
    return {"imported": report.imported, "unchanged": report.unchanged,
            "leftOut": [{"path": p, "reason": r} for p, r in report.left_out],
            "failed": [{"path": p, "error": e} for p, e in report.failed],
            "turns": report.turns, "chunks": report.chunks, "candidates": report.candidates,
            "rejected": report.rejected, "added": report.added, "merged": report.merged,
            "cancelled": report.cancelled, "backend": report.backend,
            "backendReason": report.backend_reason}
