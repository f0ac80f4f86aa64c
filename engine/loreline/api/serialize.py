"""The one place engine answers become JSON values, for every front end.

Casing policy: field names are written here once, in snake_case; that is the CLI's `--json`.
The language server sends the same values with camelCase field names, made by `camel()`
(`created_at` → `createdAt`), the LSP convention (docs/protocol.md). Keys that are data rather
than field names (kinds in `active_by_kind`, reasons in `rejected`) are never changed.

Shapes: a memory always carries `source_count` and `source` (its earliest source, excerpt cut
to `BRIEF_EXCERPT` characters, so a list shows provenance without a request per item);
`full=True` adds `provenance`, every source whole.
"""

from __future__ import annotations

import functools
from dataclasses import asdict
from pathlib import Path
from typing import Any

from ..models import ImportReport, Memory, Provenance, RecallHit
from .. import usage
from .results import Conflict, Forgotten, ImportOutcome, Page, ProjectCounts, Status

BRIEF_EXCERPT = 160
#: fields whose value maps data (not field names) to values: `camel()` leaves their keys alone
DATA_MAPS = frozenset({"active_by_kind", "rejected"})

Json = dict[str, Any]


@functools.lru_cache(maxsize=4096)
def file_uri(path: str) -> str:
    """A file URI for a session path (many memories share a session: computed once)."""
    return Path(path).absolute().as_uri()


def source(p: Provenance) -> Json:
    return {**asdict(p), "session_uri": file_uri(p.session_path)}


def _brief(p: Provenance) -> Json:
    """A list item's source: the excerpt cut short (`full` memories have every source whole)."""
    found = source(p)
    excerpt = p.excerpt
    return {**found, "excerpt": excerpt if len(excerpt) <= BRIEF_EXCERPT else excerpt[:BRIEF_EXCERPT] + "…"}


def memory(m: Memory, *, full: bool = False) -> Json:
    out: Json = {
        "id": m.id, "kind": m.kind, "text": m.text, "status": m.status, "project": m.project, "scope": m.scope,
        "version": m.version, "pinned": m.pinned, "created_at": m.created_at, "observed_at": m.observed_at,
        "valid_until": m.valid_until, "extractor": m.extractor, "root_id": m.root_id, "replaces": m.replaces,
        "files": list(m.files),
        "source_count": len(m.provenance), "source": _brief(m.provenance[0]) if m.provenance else None,
    }
    if full:
        out["provenance"] = [source(p) for p in m.provenance]
    return out


def page(found: Page, *, full: bool = False) -> Json:
    return {"project": found.project, "total": found.total, "offset": found.offset,
            "items": [memory(m, full=full) for m in found.items]}


def recall_hit(hit: RecallHit, *, full: bool = False) -> Json:
    return {"memory": memory(hit.memory, full=full), "score": round(hit.score, 6), "fts_rank": hit.fts_rank,
            "vec_rank": hit.vec_rank, "sources": [source(p) for p in hit.memory.provenance]}


def conflict(c: Conflict, *, full: bool = False) -> Json:
    return {"id": c.id, "project": c.project, "status": c.status, "resolution": c.resolution,
            "decided_by": c.decided_by, "reason": c.reason, "created_at": c.created_at,
            "resolved_at": c.resolved_at, "existing": memory(c.existing, full=full), "new": memory(c.new, full=full)}


def forgotten(f: Forgotten) -> Json:
    return {"forgotten": list(f.ids), "project": f.project}


def project_counts(counts: ProjectCounts) -> Json:
    return asdict(counts)


def status(s: Status) -> Json:
    return {**s.facts, "project": s.project, "project_counts": project_counts(s.counts)}


def import_report(outcome: ImportOutcome) -> Json:
    r = outcome.report
    return {
        "dry_run": r.dry_run,
        "backend": r.backend,
        "cancelled": r.cancelled,
        "sessions": {"imported": r.imported, "unchanged": r.unchanged,
                     "left_out": [{"path": p, "reason": why} for p, why in r.left_out],
                     "failed": [{"path": p, "error": e} for p, e in r.failed],
                     "deferred": [{"path": p, "reason": why} for p, why in r.deferred]},
        "model_use": _spend(r),
        "turns": r.turns, "lines_skipped": r.lines_skipped, "chunks": r.chunks, "chunks_replayed": r.chunks_replayed,
        "candidates": r.candidates, "rejected": dict(r.rejected), "added": r.added, "merged": r.merged,
        "versioned": r.versioned, "conflicts": r.conflicts, "forgotten_skipped": r.forgotten_skipped,
        "preview": [{"path": c.path, "line_start": c.line_start, "line_end": c.line_end, "chars": len(c.text),
                     "memories": [{"kind": m.kind, "text": m.text} for m in accepted]}
                    for c, accepted in outcome.preview],
    }


def _spend(r: ImportReport) -> Json:
    spent = r.usage
    return {"model": r.model, "calls": spent.calls, "input_tokens": spent.input_tokens,
            "cache_read_tokens": spent.cache_read_tokens, "cache_creation_tokens": spent.cache_creation_tokens,
            "output_tokens": spent.output_tokens, "estimated_input_tokens": r.estimated_input_tokens,
            "cost_usd_estimate": usage.cost(r.model, spent) if r.model else None}


def camel_name(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(word[:1].upper() + word[1:] for word in rest)


def camel(value: Any) -> Any:
    """The same value with every field name in camelCase (the language server's casing)."""
    if isinstance(value, dict):
        return {camel_name(k): (v if k in DATA_MAPS else camel(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [camel(v) for v in value]
    return value
