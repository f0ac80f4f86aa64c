"""The belief pipeline: how a validated candidate changes what the project believes.

Invariants:
- everything happens within one project; a memory never merges across projects;
- a wording the user forgot (a tombstone) never comes back from any import;
- an exact duplicate (same normalised wording) is merged: no new memory, one more
  provenance row (the same source twice adds nothing), so re-reading a session is a no-op;
- otherwise the candidate is added as an active memory with its first provenance row,
  its files and its vector;
- every write leaves an audit row naming the actor.

Near-duplicate classification, contradictions and the judge build on this module.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from .embed import Embedder
from .models import Candidate, Provenance
from .store import Store
from .store import memories as rows
from .store import search


class Outcome(Enum):
    ADDED = "added"
    MERGED = "merged"
    KNOWN_SOURCE = "known-source"
    FORGOTTEN = "forgotten"


@dataclass(frozen=True, slots=True)
class Context:
    """What the application (never the model) knows about where a candidate came from."""

    project: str
    provenance: Provenance
    files: tuple[str, ...]
    replay_key: str
    actor: str = "import"


def reconcile(store: Store, candidate: Candidate, ctx: Context, embedder: Embedder) -> tuple[Outcome, int | None]:
    """Apply one candidate inside the caller's write transaction."""
    digest = rows.content_hash(candidate.text)
    if rows.is_tombstoned(store, ctx.project, digest):
        return Outcome.FORGOTTEN, None
    existing = rows.find_by_hash(store, ctx.project, digest)
    if existing is not None:
        memory_id, _status = existing
        if not rows.add_provenance(store, memory_id, ctx.provenance, ctx.replay_key):
            return Outcome.KNOWN_SOURCE, memory_id
        rows.add_files(store, memory_id, ctx.files)
        rows.note_observed(store, memory_id, ctx.provenance.observed_at)
        rows.audit(store, ctx.actor, "merge", memory_id, after=_source(ctx))
        return Outcome.MERGED, memory_id
    memory_id = rows.insert(store, rows.NewMemory(
        project=ctx.project, kind=candidate.kind, text=candidate.text,
        observed_at=ctx.provenance.observed_at, extractor=candidate.extractor,
    ))
    rows.add_provenance(store, memory_id, ctx.provenance, ctx.replay_key)
    rows.add_files(store, memory_id, ctx.files)
    search.put_vector(store, memory_id, ctx.project, embedder.embed(candidate.text))
    rows.audit(store, ctx.actor, "add", memory_id,
               after={"kind": candidate.kind, "text": candidate.text, **_source(ctx)})
    return Outcome.ADDED, memory_id


def _source(ctx: Context) -> dict[str, object]:
    p = ctx.provenance
    return {"session_id": p.session_id, "path": p.session_path, "lines": [p.line_start, p.line_end]}
