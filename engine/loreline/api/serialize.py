"""The one place engine answers become JSON values, for every front end.

Casing policy: every record's field names are written here once, in snake_case (`Record`);
that is the CLI's `--json`. The language server asks for the same records with `camel=True`
and gets the same values under camelCase names (`created_at` → `createdAt`), the LSP
convention (docs/protocol.md). Keys that are data rather than field names (the kinds in
`active_by_kind`, the reasons in `rejected`) are never renamed. The status facts, a free-form
nested dict, are renamed by `camel()` under the same rule.

Shapes: a memory always carries `source_count` and `source` (its earliest source, excerpt cut
to `BRIEF_EXCERPT` characters, so a list shows provenance without a request per item), `stale`
(why it may be stale, or null), `confirmed_at`/`confirmed_by` and `last_seen` (when it was last
said in a session or confirmed);
`full=True` adds `provenance`, every source whole.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .. import usage
from ..inbox import Inbox
from ..native.sync import SyncReport
from ..privacy.display import printable
from ..models import ImportReport, Memory, Provenance, RecallHit
from .results import Conflict, Forgotten, ImportOutcome, Page, ProjectCounts, Status

BRIEF_EXCERPT = 160
#: fields whose value maps data (not field names) to values: their keys are never renamed
DATA_MAPS = frozenset({"active_by_kind", "rejected"})

Json = dict[str, Any]


@functools.lru_cache(maxsize=1024)
def camel_name(name: str) -> str:
    """`created_at` → `createdAt`."""
    head, *rest = name.split("_")
    return head + "".join(word[:1].upper() + word[1:] for word in rest)


class Record:
    """One JSON record's field names: snake_case as written, camelCase worked out once."""

    def __init__(self, *names: str) -> None:
        self.names = {False: names, True: tuple(camel_name(n) for n in names)}

    def make(self, values: Iterable[Any], camel: bool) -> Json:
        return dict(zip(self.names[camel], values, strict=True))


SOURCE = Record("tool", "session_id", "session_short", "session_path", "session_uri", "line_start", "line_end",
                "excerpt", "observed_at")
MEMORY = Record("id", "kind", "text", "status", "hold_reason", "project", "scope", "version", "pinned", "created_at",
                "observed_at", "valid_until", "extractor", "root_id", "replaces", "files", "source_count", "source",
                "stale", "confirmed_at", "confirmed_by", "last_seen", "cues")
PAGE = Record("project", "total", "offset", "items")
HIT = Record("memory", "score", "fts_rank", "vec_rank", "sources")
CONFLICT = Record("id", "project", "status", "resolution", "decided_by", "reason", "created_at", "resolved_at",
                  "existing", "new")
FORGOTTEN = Record("forgotten", "project")
INBOX = Record("held", "conflicts")
COUNTS = Record("active", "superseded", "forgotten", "pending_conflicts", "held")
#: what status adds to the store-wide facts: the asking folder's project and its counts
HERE = Record("project", "project_counts")
SESSIONS = Record("imported", "unchanged", "left_out", "failed", "deferred")
SPEND = Record("model", "calls", "input_tokens", "cache_read_tokens", "cache_creation_tokens", "output_tokens",
               "estimated_input_tokens", "cost_usd_estimate")
REPORT = Record("dry_run", "backend", "backend_reason", "cancelled", "sessions", "model_use", "turns", "lines_skipped", "chunks",
                "chunks_replayed", "candidates", "rejected", "added", "merged", "versioned", "conflicts",
                "forgotten_skipped", "preview")
PREVIEW = Record("path", "line_start", "line_end", "chars", "memories")
NATIVE = Record("files", "unchanged", "deleted", "items", "added", "joined", "versioned", "conflicts", "known",
                "ended", "dropped_sources", "failed")


@functools.lru_cache(maxsize=4096)
def file_uri(path: str) -> str:
    """A file URI for a session path (many memories share a session: computed once)."""
    return Path(path).absolute().as_uri()


def source(p: Provenance, *, brief: bool = False, camel: bool = False) -> Json:
    """A source; `brief` cuts the excerpt short (a list item's: `full` memories have it whole)."""
    excerpt = p.excerpt if not brief or len(p.excerpt) <= BRIEF_EXCERPT else p.excerpt[:BRIEF_EXCERPT] + "…"
    shown = _shown if camel else _kept
    return SOURCE.make((p.tool, shown(p.session_id), shown(p.session_label), shown(p.session_path),
                        file_uri(p.session_path), p.line_start, p.line_end,
                        printable(excerpt, multiline=True) if camel else excerpt, p.observed_at), camel)


def _kept(text: str) -> str:
    return text


def _shown(text: str) -> str:
    return printable(text)


def memory(m: Memory, *, full: bool = False, camel: bool = False) -> Json:
    first = source(m.provenance[0], brief=True, camel=camel) if m.provenance else None
    shown = _shown if camel else _kept  # an editor renders these strings: control characters escaped
    out = MEMORY.make((m.id, m.kind, shown(m.text), m.status, m.hold_reason, shown(m.project), m.scope, m.version,
                       m.pinned, m.created_at, m.observed_at, m.valid_until, m.extractor, m.root_id, m.replaces,
                       [shown(f) for f in m.files], len(m.provenance), first,
                       shown(m.stale) if m.stale else None, m.confirmed_at, m.confirmed_by, m.last_seen,
                       [shown(c) for c in m.cues.splitlines()]), camel)
    if full:
        out["provenance"] = [source(p, camel=camel) for p in m.provenance]
    return out


def page(found: Page, *, full: bool = False, camel: bool = False) -> Json:
    return PAGE.make((found.project, found.total, found.offset,
                      [memory(m, full=full, camel=camel) for m in found.items]), camel)


def recall_hit(hit: RecallHit, *, full: bool = False, camel: bool = False) -> Json:
    return HIT.make((memory(hit.memory, full=full, camel=camel), round(hit.score, 6), hit.fts_rank, hit.vec_rank,
                     [source(p, camel=camel) for p in hit.memory.provenance]), camel)


def conflict(c: Conflict, *, full: bool = False, camel: bool = False) -> Json:
    return CONFLICT.make((c.id, c.project, c.status, c.resolution, c.decided_by, c.reason, c.created_at,
                          c.resolved_at, memory(c.existing, full=full, camel=camel),
                          memory(c.new, full=full, camel=camel)), camel)


def inbox(found: Inbox, *, camel: bool = False) -> Json:
    """The review inbox: held memories (each with `hold_reason`) and pending conflicts."""
    return INBOX.make(([memory(m, camel=camel) for m in found.held],
                       [conflict(c, camel=camel) for c in found.conflicts]), camel)


def forgotten(f: Forgotten, *, camel: bool = False) -> Json:
    return FORGOTTEN.make((list(f.ids), f.project), camel)


def project_counts(counts: ProjectCounts, *, camel: bool = False) -> Json:
    return COUNTS.make((counts.active, counts.superseded, counts.forgotten, counts.pending_conflicts, counts.held),
                       camel)


def status(s: Status, *, camel: bool = False) -> Json:
    facts = recase(s.facts) if camel else dict(s.facts)
    return {**facts, **HERE.make((s.project, project_counts(s.counts, camel=camel)), camel)}


def import_report(outcome: ImportOutcome, *, camel: bool = False) -> Json:
    r = outcome.report
    return REPORT.make((
        r.dry_run, r.backend, r.backend_reason, r.cancelled, _sessions(r, camel), _spend(r, camel), r.turns, r.lines_skipped,
        r.chunks, r.chunks_replayed, r.candidates, dict(r.rejected), r.added, r.merged, r.versioned, r.conflicts,
        r.forgotten_skipped, [PREVIEW.make((c.path, c.line_start, c.line_end, len(c.text),
                                            [{"kind": m.kind, "text": m.text} for m in accepted]), camel)
                              for c, accepted in outcome.preview]), camel) | (
        {"native": native_report(outcome.native, camel=camel)} if outcome.native is not None else {})


def native_report(n: SyncReport, *, camel: bool = False) -> Json:
    """What a native-memory import did (`loreline import native`, or after a discovery import)."""
    return NATIVE.make((n.files, n.unchanged, n.deleted, n.items, n.added, n.joined, n.versioned, n.conflicts,
                        n.known, n.ended, n.dropped_sources, [{"path": p, "error": e} for p, e in n.failed]), camel)


def _sessions(r: ImportReport, camel: bool) -> Json:
    return SESSIONS.make((r.imported, r.unchanged, [{"path": p, "reason": why} for p, why in r.left_out],
                          [{"path": p, "error": e} for p, e in r.failed],
                          [{"path": p, "reason": why} for p, why in r.deferred]), camel)


def _spend(r: ImportReport, camel: bool) -> Json:
    spent = r.usage
    return SPEND.make((r.model, spent.calls, spent.input_tokens, spent.cache_read_tokens,
                       spent.cache_creation_tokens, spent.output_tokens, r.estimated_input_tokens,
                       usage.cost(r.model, spent) if r.model else None), camel)


def recase(value: Any) -> Any:
    """A free-form nested value with every field name in camelCase (data keys left alone)."""
    if type(value) is list:
        return [recase(v) for v in value]
    if type(value) is not dict:
        return value
    return {camel_name(k): (v if k in DATA_MAPS else recase(v)) for k, v in value.items()}
