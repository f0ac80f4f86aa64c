"""Native memory files through the belief pipeline, following edits and deletions.

Invariants:
- each statement of a native file goes through `beliefs` like a distilled candidate: an
  exact or near duplicate of a memory learnt elsewhere adds a source (provenance to the file
  and its lines, tool `claude-memory`, `claude-md` or `codex-memory`) instead of a copy; a
  judged contradiction becomes a conflict; a forgotten wording stays forgotten;
- a file whose bytes did not change costs one stat and one lookup;
- a statement already read from this file (same wording) is not re-planned: if it moved,
  its provenance lines follow it;
- a statement gone from its file (edited away, or the file deleted) drops that source; a
  memory left active with no source at all is superseded (`valid_until` = now) and audited;
- CLAUDE.md material is pinned (the user wrote it there); Loreline never writes these files.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

from .. import beliefs, vectors
from ..embed import Embedder, default_embedder
from ..models import Candidate, Provenance
from ..privacy.redact import redact
from ..privacy.sanitize import sanitize
from ..records import field, record
from ..store import Store
from ..store import memories as rows
from ..store import native as table
from . import Item, NativeFile


@record(frozen=False)
class SyncReport:
    files: int = 0
    unchanged: int = 0
    deleted: int = 0
    items: int = 0
    added: int = 0
    joined: int = 0
    versioned: int = 0
    conflicts: int = 0
    known: int = 0
    dropped_sources: int = 0
    ended: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)


def item_key(path: str, text: str) -> str:
    """What identifies a statement within its file across edits: its wording."""
    return hashlib.sha256(f"native\0{path}\0{rows.content_hash(text)}".encode()).hexdigest()[:32]


def unchanged(store: Store, path: Path) -> bool:
    seen = table.lookup(store, str(path))
    if seen is None:
        return False
    try:
        st = path.stat()
    except OSError:
        return False
    return seen.size == st.st_size and seen.mtime_ns == st.st_mtime_ns


def sync_file(store: Store, parts: Sequence[NativeFile], report: SyncReport, embedder: Embedder,
              judge: beliefs.Judge | None = None) -> None:
    """Bring the store in line with one native file (read into one part per project)."""
    path = parts[0].path
    seen = table.lookup(store, path)
    if seen is not None and seen.digest == parts[0].digest:
        with store.write():
            table.record(store, _seen(parts), sum(len(p.items) for p in parts))
        report.unchanged += 1
        return
    before = table.sources(store, path)
    moves, fresh = _match(store, parts, before)
    report.known += len(moves)
    plans = [(part, item, _plan(store, part, item, embedder, judge)) for part, item in fresh]
    with store.write():
        for part, _, plan in plans:
            _apply(store, part, plan, report, embedder)
        old = {s.id for s in before}
        kept = set(moves) | {s.id for s in table.sources(store, path) if s.id not in old}
        _drop_stale(store, path, kept, report)
        for source_id, (line_start, line_end) in moves.items():
            table.move_source(store, source_id, line_start, line_end)
        table.record(store, _seen(parts), sum(len(p.items) for p in parts))
    report.files += 1
    report.items += sum(len(p.items) for p in parts)


def _match(store: Store, parts: Sequence[NativeFile], before: list[table.Source],
           ) -> tuple[dict[int, tuple[int, int]], list[tuple[NativeFile, Item]]]:
    """Statements said before in this file (same wording, perhaps moved): source id → their
    new lines; the other statements, to go through the belief pipeline. A memory this file's
    edit had ended is not matched: saying it again revives it."""
    existing: dict[str, list[table.Source]] = {}
    for source in before:
        if source.key and (source.status == "active" or not table.ended_here(store, source.memory_id)):
            existing.setdefault(source.key, []).append(source)
    moves: dict[int, tuple[int, int]] = {}
    fresh: list[tuple[NativeFile, Item]] = []
    for part in parts:
        for item in part.items:
            known = existing.get(item_key(part.path, _clean(item.text))) or []
            if known:
                moves[known.pop(0).id] = (item.line_start, item.line_end)
            elif _clean(item.text):
                fresh.append((part, item))
    return moves, fresh


def _seen(parts: Sequence[NativeFile]) -> table.Seen:
    first = parts[0]
    projects = sorted({p.project for p in parts})
    return table.Seen(first.path, first.tool, projects[0] if len(projects) == 1 else "(several)",
                      first.digest, first.size, first.mtime_ns)


def _clean(text: str) -> str:
    return redact(sanitize(text)).strip()


def _plan(store: Store, part: NativeFile, item: Item, embedder: Embedder,
          judge: beliefs.Judge | None) -> beliefs.Plan:
    text = _clean(item.text)
    prov = Provenance(part.tool, item.label, part.path, item.line_start, item.line_end,
                      _clean(item.excerpt), part.observed_at)
    ctx = beliefs.Context(part.project, prov, (), item_key(part.path, text), "import")
    return beliefs.plan(store, Candidate(item.kind, text, (), f"native:{part.tool}"), ctx, embedder, judge)


def _apply(store: Store, part: NativeFile, plan: beliefs.Plan, report: SyncReport, embedder: Embedder) -> None:
    outcome, memory_id = beliefs.apply(store, plan, embedder)
    if outcome in (beliefs.Outcome.ADDED, beliefs.Outcome.CONFLICTED):
        report.added += 1
    report.conflicts += outcome is beliefs.Outcome.CONFLICTED
    report.joined += outcome in (beliefs.Outcome.MERGED, beliefs.Outcome.KNOWN_SOURCE)
    report.versioned += outcome is beliefs.Outcome.VERSIONED
    if memory_id is not None and (part.pinned or part.scope != "project"):
        if table.set_pinned_scope(store, memory_id, part.pinned, part.scope):
            rows.audit(store, "import", "pin", memory_id, after={"pinned": part.pinned, "scope": part.scope,
                                                                 "path": part.path})


def _drop_stale(store: Store, path: str, kept: set[int], report: SyncReport) -> None:
    current = table.sources(store, path)
    still_said = {s.memory_id for s in current if s.id in kept}
    for source in current:
        if source.id in kept:
            continue
        if source.memory_id not in still_said and table.other_sources(store, source.memory_id, path) == 0:
            before = rows.get(store, source.memory_id)
            if before.status == "active":
                table.end_memory(store, source.memory_id)
                rows.audit(store, "import", "native-source-gone", source.memory_id,
                           before={"status": "active"}, after={"status": "superseded", "path": path,
                                                               "lines": [source.line_start, source.line_end]})
                report.ended += 1
            continue  # the memory keeps its last source as history
        table.drop_source(store, source.id)
        rows.audit(store, "import", "drop-source", source.memory_id,
                   before={"path": path, "lines": [source.line_start, source.line_end]})
        report.dropped_sources += 1


def sync_deleted(store: Store, path: str, report: SyncReport) -> None:
    """A native file that is gone: its statements are no longer anyone's source."""
    with store.write():
        _drop_stale(store, path, set(), report)
        table.forget_file(store, path)
    report.deleted += 1


def prepare(store: Store, embedder: Embedder | None) -> Embedder:
    embedder = embedder or default_embedder(store)
    vectors.ensure(store, embedder)
    return embedder
