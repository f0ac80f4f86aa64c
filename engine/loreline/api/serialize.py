"""The one place engine answers become JSON values, for every front end.

Casing policy: every record's field names are written here once, in snake_case (`Record`);
that is the CLI's `--json`. The language server asks for the same records with `camel=True`
and gets the same values under camelCase names (`created_at` → `createdAt`), the LSP
convention (docs/protocol.md). Keys that are data rather than field names (the kinds in
`active_by_kind`, the reasons in `rejected`) are never renamed. The status facts
(`StatusFacts`: their nested values are free-form dicts) are renamed by `recase` under the same
rule.

Shapes: a memory always carries `source_count` and `source` (its earliest source, excerpt cut
to `BRIEF_EXCERPT` characters, so a list shows provenance without a request per item), `stale`
(why it may be stale, or null), `confirmed_at`/`confirmed_by` and `last_seen` (when it was last
said in a session or confirmed);
`full=True` adds `provenance`, every source whole.
"""

from __future__ import annotations

import functools
from pathlib import Path

from ..models import ImportReport, Memory, Provenance, RecallHit
from ..privacy.display import printable
from ..records import asdict
from .results import BriefView, Forgotten, ImportOutcome, Page, ProjectCounts, Status

TYPE_CHECKING = False  # typing is left to the type checker: the everyday commands import none of it
if TYPE_CHECKING:  # annotations only (`usage` is imported where a report is turned into JSON)
    from typing import Any

    from ..beliefs.conflicts import Conflict
    from ..brief.model import Brief, Line, Rewrite
    from ..inbox import Inbox
    from ..native.sync import SyncReport

BRIEF_EXCERPT = 160
#: fields whose value maps data (not field names) to values: their keys are never renamed
DATA_MAPS = frozenset({"active_by_kind", "rejected"})

if TYPE_CHECKING:
    Json = dict[str, Any]
else:
    Json = dict


@functools.lru_cache(maxsize=1024)
def camel_name(name: str) -> str:
    """`created_at` → `createdAt`."""
    head, *rest = name.split("_")
    return head + "".join(word[:1].upper() + word[1:] for word in rest)


class Record:
    """One JSON record's field names: snake_case as written, camelCase worked out once. Values
    are given by name; a record made without one of its fields, or with one it does not have,
    is a mistake caught at once (ValueError), never a value under the wrong name."""

    def __init__(self, *names: str) -> None:
        self.fields = frozenset(names)
        self.names = {False: names, True: tuple(camel_name(n) for n in names)}

    def make(self, camel: bool, /, **values: Any) -> Json:
        if values.keys() != self.fields:
            raise ValueError(f"record fields {sorted(values.keys() ^ self.fields)} missing or unknown")
        return {shown: values[name] for shown, name in zip(self.names[camel], self.names[False], strict=True)}


SOURCE = Record("tool", "session_id", "session_short", "session_path", "session_uri", "line_start", "line_end",
                "excerpt", "observed_at")
MEMORY = Record("id", "kind", "text", "status", "hold_reason", "project", "scope", "version", "pinned", "created_at",
                "observed_at", "valid_until", "extractor", "root_id", "replaces", "files", "source_count", "source",
                "stale", "confirmed_at", "confirmed_by", "last_seen", "cues", "asked")
PAGE = Record("project", "total", "offset", "items")
HIT = Record("memory", "score", "fts_rank", "vec_rank", "sources")
CONFLICT = Record("id", "project", "status", "resolution", "decided_by", "reason", "created_at", "resolved_at",
                  "existing", "new")
FORGOTTEN = Record("forgotten", "project")
INBOX = Record("held", "conflicts")
COUNTS = Record("active", "superseded", "forgotten", "pending_conflicts", "held")
#: what status adds to the store-wide facts: the asking folder's project and its counts
HERE = Record("project", "project_counts")
SESSIONS = Record("imported", "unchanged", "left_out", "failed", "deferred", "until_tomorrow")
SPEND = Record("model", "calls", "input_tokens", "cache_read_tokens", "cache_creation_tokens", "output_tokens",
               "estimated_input_tokens", "cost_usd_estimate")
REPORT = Record("dry_run", "backend", "backend_reason", "cancelled", "sessions", "model_use", "turns", "lines_skipped", "chunks",
                "chunks_replayed", "candidates", "rejected", "added", "merged", "versioned", "conflicts",
                "forgotten_skipped", "preview")
PREVIEW = Record("path", "line_start", "line_end", "chars", "memories")
BRIEF = Record("project", "version", "writer", "changed_by", "created_at", "stale", "dropped", "hidden", "fallback",
               "lines")
BRIEF_LINE = Record("number", "topic", "title", "text", "by", "pinned", "edited", "memories", "sources")
BRIEF_VERSION = Record("version", "writer", "changed_by", "created_at", "stale", "dropped", "lines")
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
    return SOURCE.make(camel, tool=p.tool, session_id=shown(p.session_id), session_short=shown(p.session_label),
                       session_path=shown(p.session_path), session_uri=file_uri(p.session_path),
                       line_start=p.line_start, line_end=p.line_end,
                       excerpt=printable(excerpt, multiline=True) if camel else excerpt, observed_at=p.observed_at)


def _kept(text: str) -> str:
    return text


def _shown(text: str) -> str:
    return printable(text)


def memory(m: Memory, *, full: bool = False, camel: bool = False) -> Json:
    first = source(m.provenance[0], brief=True, camel=camel) if m.provenance else None
    shown = _shown if camel else _kept  # an editor renders these strings: control characters escaped
    out = MEMORY.make(camel, id=m.id, kind=m.kind, text=shown(m.text), status=m.status, hold_reason=m.hold_reason,
                      project=shown(m.project), scope=m.scope, version=m.version, pinned=m.pinned,
                      created_at=m.created_at, observed_at=m.observed_at, valid_until=m.valid_until,
                      extractor=m.extractor, root_id=m.root_id, replaces=m.replaces, files=[shown(f) for f in m.files],
                      source_count=len(m.provenance), source=first, stale=shown(m.stale) if m.stale else None,
                      confirmed_at=m.confirmed_at, confirmed_by=m.confirmed_by, last_seen=m.last_seen,
                      cues=[shown(c) for c in m.cues.splitlines()], asked=m.asked)
    if full:
        out["provenance"] = [source(p, camel=camel) for p in m.provenance]
    return out


def page(found: Page, *, full: bool = False, camel: bool = False) -> Json:
    return PAGE.make(camel, project=found.project, total=found.total, offset=found.offset,
                     items=[memory(m, full=full, camel=camel) for m in found.items])


def recall_hit(hit: RecallHit, *, full: bool = False, camel: bool = False) -> Json:
    return HIT.make(camel, memory=memory(hit.memory, full=full, camel=camel), score=round(hit.score, 6),
                    fts_rank=hit.fts_rank, vec_rank=hit.vec_rank,
                    sources=[source(p, camel=camel) for p in hit.memory.provenance])


def conflict(c: Conflict, *, full: bool = False, camel: bool = False) -> Json:
    return CONFLICT.make(camel, id=c.id, project=c.project, status=c.status, resolution=c.resolution,
                         decided_by=c.decided_by, reason=c.reason, created_at=c.created_at, resolved_at=c.resolved_at,
                         existing=memory(c.existing, full=full, camel=camel), new=memory(c.new, full=full, camel=camel))


def inbox(found: Inbox, *, camel: bool = False) -> Json:
    """The review inbox: held memories (each with `hold_reason`) and pending conflicts."""
    return INBOX.make(camel, held=[memory(m, camel=camel) for m in found.held],
                      conflicts=[conflict(c, camel=camel) for c in found.conflicts])


def brief(view: BriefView, *, camel: bool = False) -> Json:
    """A project's brief as SessionStart shows it; each line with the memories it cites (`sources`:
    each memory with its first source, as a list shows it)."""
    b = view.brief
    return BRIEF.make(camel, project=_shown(b.project) if camel else b.project, version=b.version, writer=b.writer,
                      changed_by=b.changed_by, created_at=b.created_at, stale=b.stale, dropped=b.dropped,
                      hidden=view.hidden, fallback=view.fallback, lines=[brief_line(line, view, camel) for line in b.lines])


def brief_line(line: Line, view: BriefView | None = None, camel: bool = False) -> Json:
    from ..brief.block import TOPICS

    cited = [view.source(i) for i in line.memories] if view is not None else []
    return BRIEF_LINE.make(camel, number=line.number, topic=line.topic, title=dict(TOPICS).get(line.topic, line.topic),
                           text=_shown(line.text) if camel else line.text, by=line.by, pinned=line.pinned,
                           edited=line.edited, memories=list(line.memories),
                           sources=[memory(m, camel=camel) for m in cited if m is not None])


def brief_version(b: Brief, *, camel: bool = False) -> Json:
    """One version as it was written (`loreline brief versions`)."""
    return BRIEF_VERSION.make(camel, version=b.version, writer=b.writer, changed_by=b.changed_by,
                              created_at=b.created_at, stale=b.stale, dropped=b.dropped,
                              lines=[brief_line(line, camel=camel) for line in b.lines])


def forgotten(f: Forgotten, *, camel: bool = False) -> Json:
    return FORGOTTEN.make(camel, forgotten=list(f.ids), project=f.project)


def project_counts(counts: ProjectCounts, *, camel: bool = False) -> Json:
    return COUNTS.make(camel, **asdict(counts))


def status(s: Status, *, camel: bool = False) -> Json:
    facts = recase(asdict(s.facts)) if camel else asdict(s.facts)
    return {**facts, **HERE.make(camel, project=s.project, project_counts=project_counts(s.counts, camel=camel))}


def import_report(outcome: ImportOutcome, *, camel: bool = False) -> Json:
    r = outcome.report
    preview = [PREVIEW.make(camel, path=c.path, line_start=c.line_start, line_end=c.line_end, chars=len(c.text),
                            memories=[{"kind": m.kind, "text": m.text} for m in accepted])
               for c, accepted in outcome.preview]
    return REPORT.make(
        camel, dry_run=r.dry_run, backend=r.backend, backend_reason=r.backend_reason, cancelled=r.cancelled,
        sessions=_sessions(r, camel), model_use=_spend(r, camel), turns=r.turns, lines_skipped=r.lines_skipped,
        chunks=r.chunks, chunks_replayed=r.chunks_replayed, candidates=r.candidates, rejected=dict(r.rejected),
        added=r.added, merged=r.merged, versioned=r.versioned, conflicts=r.conflicts,
        forgotten_skipped=r.forgotten_skipped, preview=preview) | (
        {"native": native_report(outcome.native, camel=camel)} if outcome.native is not None else {}) | (
        {"briefs": [rewritten(done, camel=camel) for done in outcome.briefs]} if outcome.briefs else {})


REWRITTEN = Record("project", "version", "writer", "written", "lines", "dropped", "fallback")


def rewritten(done: Rewrite, *, camel: bool = False) -> Json:
    """What an import did to a project's brief."""
    return REWRITTEN.make(camel, project=_shown(done.brief.project) if camel else done.brief.project,
                          version=done.brief.version, writer=done.brief.writer, written=done.written,
                          lines=len(done.brief.lines), dropped=dict(done.dropped), fallback=done.fallback)


def native_report(n: SyncReport, *, camel: bool = False) -> Json:
    """What a native-memory import did (`loreline import native`, or after a discovery import)."""
    return NATIVE.make(camel, files=n.files, unchanged=n.unchanged, deleted=n.deleted, items=n.items, added=n.added,
                       joined=n.joined, versioned=n.versioned, conflicts=n.conflicts, known=n.known, ended=n.ended,
                       dropped_sources=n.dropped_sources, failed=[{"path": p, "error": e} for p, e in n.failed])


def _sessions(r: ImportReport, camel: bool) -> Json:
    return SESSIONS.make(camel, imported=r.imported, unchanged=r.unchanged,
                         left_out=[{"path": p, "reason": why} for p, why in r.left_out],
                         failed=[{"path": p, "error": e} for p, e in r.failed],
                         deferred=[{"path": p, "reason": why} for p, why in r.deferred],
                         until_tomorrow=list(r.until_tomorrow))


def _spend(r: ImportReport, camel: bool) -> Json:
    from .. import usage

    spent = r.usage
    return SPEND.make(camel, model=r.model, calls=spent.calls, input_tokens=spent.input_tokens,
                      cache_read_tokens=spent.cache_read_tokens, cache_creation_tokens=spent.cache_creation_tokens,
                      output_tokens=spent.output_tokens, estimated_input_tokens=r.estimated_input_tokens,
                      cost_usd_estimate=usage.cost(r.model, spent) if r.model else None)


def recase(value: Any) -> Any:
    """A free-form nested value with every field name in camelCase (data keys left alone)."""
    if type(value) is list:
        return [recase(v) for v in value]
    if type(value) is not dict:
        return value
    return {camel_name(k): (v if k in DATA_MAPS else recase(v)) for k, v in value.items()}
