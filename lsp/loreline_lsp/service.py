"""The domain layer behind the language server: calls into `loreline.api`, JSON-ready values out.

Nothing here knows about LSP transport and nothing here builds JSON by hand: every value is
`loreline.api.serialize`'s with camelCase field names (`camel=True`, the LSP's casing), the
shapes `docs/protocol.md` documents.
"""

from __future__ import annotations

from collections.abc import Callable
from types import TracebackType
from pathlib import Path
from typing import Any

from loreline.api import ImportOutcome, ImportRequest, Loreline, StatusFacts, imports, serialize
from loreline.api import project_of as project_key
from loreline.api.uris import file_path
from loreline.models import Memory

#: the protocol's casing (docs/protocol.md): camelCase field names
CAMEL = True


def to_path(uri_or_path: str) -> str:
    if uri_or_path.startswith("file:"):
        return file_path(uri_or_path) or uri_or_path
    return uri_or_path


def to_uri(path: str) -> str:
    """A file URI for a session path (many memories share a session: computed once)."""
    return serialize.file_uri(path)


def memory_json(m: Memory) -> dict[str, Any]:
    return serialize.memory(m, camel=CAMEL)


class Service:
    def __init__(self, lore: Loreline) -> None:
        self.lore = lore

    @classmethod
    def open(cls) -> Service:
        return cls(Loreline())

    def close(self) -> None:
        self.lore.close()

    def __enter__(self) -> Service:
        return self

    def __exit__(self, kind: type[BaseException] | None, err: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def data_version(self) -> int:
        return self.lore.data_version()

    # -- reading ----------------------------------------------------------------------

    def memories(self, project: str, *, kind: str | None, status: str | None, text: str | None,
                 offset: int, limit: int) -> dict[str, Any]:
        page = self.lore.memories(project, kind=kind, status=status, text=text, offset=offset, limit=limit)
        return serialize.page(page, camel=CAMEL)

    def provenance(self, memory_id: int) -> dict[str, Any]:
        memory = self.lore.memory(memory_id)
        return {"memory": serialize.memory(memory, camel=CAMEL),
                "sources": [serialize.source(p, camel=CAMEL) for p in memory.provenance]}

    def recall(self, project: str, query: str, *, limit: int, include_inactive: bool) -> dict[str, Any]:
        hits = self.lore.recall(project, query, limit=limit, include_inactive=include_inactive)
        return {"project": project, "query": query, "items": [serialize.recall_hit(h, camel=CAMEL) for h in hits]}

    def brief(self, project: str) -> dict[str, Any] | None:
        """The project brief as SessionStart gives it, each line with its sources (None: none yet)."""
        view = self.lore.brief(project)
        return serialize.brief(view, camel=CAMEL) if view is not None else None

    def conflicts(self, project: str | None, status: str | None) -> dict[str, Any]:
        return {"items": [serialize.conflict(c, camel=CAMEL) for c in self.lore.conflicts(project, status)]}

    def file_memories(self, project: str, file_path: str) -> list[dict[str, Any]]:
        return [memory_json(m) for m in self.lore.file_memories(project, file_path)]

    def stale_file_memories(self, project: str, file_path: str) -> list[Memory]:
        """Active memories tied to the file that may be stale (a diagnostic's content)."""
        return self.lore.stale_file_memories(project, file_path)

    def hover_memories(self, project: str, word: str, limit: int) -> list[Memory]:
        """Memories whose text matches the word under the cursor (lexically)."""
        return self.lore.hover_memories(project, word, limit)

    def project_counts(self, project: str) -> dict[str, int]:
        return serialize.project_counts(self.lore.project_counts(project), camel=CAMEL)

    def status(self, project: str, facts: StatusFacts | None = None) -> dict[str, Any]:
        """`loreline status --json` for this project, camelCased like every other answer; `facts`
        are the engine's part when the caller already has them (a cache)."""
        return serialize.status(self.lore.status(project, facts), camel=CAMEL)

    def status_facts(self) -> StatusFacts:
        return self.lore.status_facts()

    def status_inputs(self) -> list[Path]:
        """Every file the status facts are read from (a cache keys on them)."""
        return self.lore.status_inputs()

    # -- writing ----------------------------------------------------------------------

    def resolve_conflict(self, conflict_id: int, verdict: str, merge_text: str | None) -> dict[str, Any]:
        found = self.lore.resolve(conflict_id, keep=None if merge_text is not None else verdict, merge=merge_text)
        return serialize.conflict(found, camel=CAMEL)

    def forget(self, memory_id: int) -> dict[str, Any]:
        return serialize.forgotten(self.lore.forget(memory_id), camel=CAMEL)

    def inbox(self, project: str | None) -> dict[str, Any]:
        return serialize.inbox(self.lore.inbox(project), camel=CAMEL)

    def approve(self, memory_id: int, text: str | None) -> dict[str, Any]:
        return memory_json(self.lore.approve(memory_id, text))

    def reject(self, memory_id: int) -> dict[str, Any]:
        return serialize.forgotten(self.lore.reject(memory_id), camel=CAMEL)

    def confirm(self, memory_id: int, by: str) -> dict[str, Any]:
        return memory_json(self.lore.confirm(memory_id, by))

    def check_files(self, project: str, paths: list[str] | None) -> dict[str, Any]:
        """Compare the files (all the project's tied files when None) with their anchors."""
        report = self.lore.check_files(project, paths)
        return {"project": project, "checked": report.checked, "flagged": list(report.flagged),
                "cleared": list(report.cleared)}


def project_of(path_or_uri: str) -> str:
    return project_key(to_path(path_or_uri))


def run_import(paths: list[str] | None, scope: str, days: float, sessions: int,
               progress: Callable[[int, int, str], None], should_stop: Callable[[], bool]) -> ImportOutcome:
    """An import in its own store connection (it runs off the server's event loop)."""
    request = ImportRequest(paths=tuple(to_path(p) for p in paths or ()), tools=(scope,), days=days,
                            sessions=sessions)
    return imports.run(imports.plan(request), progress, should_stop)


def report_json(outcome: ImportOutcome) -> dict[str, Any]:
    return serialize.import_report(outcome, camel=CAMEL)
