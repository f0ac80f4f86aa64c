"""What arrives: a teammate's memory goes through the belief pipeline like any other source.

- a new active row becomes a candidate whose provenance names the author (`team:<author>`
  as its session path, never a path of theirs), with its tool, session id, lines and
  redacted excerpt: an exact duplicate merges (one memory, two sources), a near-identical
  wording versions, an explicit reversal or a judged contradiction records a conflict;
- a change of a row already here (the author edited it) becomes a new version of the
  local chain, unless the local chain was forgotten here (a local forget wins here);
- a tombstone of a row that arrived here forgets the local chain and records the wording's
  tombstone, so no import brings it back;
- a withdrawn row (the author unshared it, or it is held in a conflict there) retires the copy
  here, unless this machine said it too; published again, it arrives again;
- rows this machine published itself are skipped.
`plan()` runs outside the write transaction (it may ask the judge); `apply()` inside it.

A row made by the same embedder as this machine's (same fingerprint, same width) keeps the
vector it arrived with (`their_vector`): the text is not embedded again, and the vector stored
here is the one embedding it would give (same model, and the team store gives vectors back bit
for bit). Rows published before vectors travelled with nine digits carry six: kept too, they
are within 5e-7 per value of it (cosine 1 - 1e-12). Any other row (another embedder, another
width, no vector) is embedded here.
"""

from __future__ import annotations


from .. import beliefs, vectors
from ..beliefs import curate
from ..embed import Embedder
from ..models import Candidate, Provenance
from ..privacy.redact import redact
from ..records import record
from ..store import Store, search, teamsync
from ..store import memories as rows
from ..store.memories import content_hash
from ..store.team.changes import SharedMemory
from ..store.teamsync import TEAM_PREFIX, Link


@record(frozen=False)
class Incoming:
    row: SharedMemory
    plan: beliefs.Plan | None = None


def prepare(store: Store, changed: list[SharedMemory], project: str, me: str, embedder: Embedder,
            judge: beliefs.Judge | None) -> list[Incoming]:
    """Plans for the rows that need the belief pipeline (reads and judge calls only)."""
    out: list[Incoming] = []
    for row in changed:
        if row.origin == me:
            continue
        item = Incoming(row)
        if row.status == "active" and _arrives_anew(store, teamsync.link(store, row.uid)):
            candidate, ctx = _candidate(row, project)
            item.plan = beliefs.plan(store, candidate, ctx, embedder, judge, vector=their_vector(row, embedder))
        out.append(item)
    return out


def apply(store: Store, item: Incoming, project: str, embedder: Embedder) -> str:
    """Apply one incoming row inside the caller's transaction; returns what happened."""
    row, link = item.row, teamsync.link(store, item.row.uid)
    if row.status == "forgotten":
        return _forget(store, row, link, project)
    if row.status != "active":
        return _withdraw(store, row, link)
    if not _arrives_anew(store, link):
        assert link is not None
        return _update(store, row, link, embedder)
    if link is not None and _restore(store, row, link):
        return "restored"
    if item.plan is None:  # became unlinked between prepare and apply: plan now, without a judge
        candidate, ctx = _candidate(row, project)
        item.plan = beliefs.plan(store, candidate, ctx, embedder, None, vector=their_vector(row, embedder))
    outcome, memory_id = beliefs.apply(store, item.plan, embedder)
    if memory_id is not None:
        for source in _provenance(row)[1:]:
            rows.add_provenance(store, memory_id, source, f"team:{row.uid}")
    root = _root(store, memory_id)
    teamsync.put_link(store, Link(row.uid, row.project, root, row.author, "in", row.content_hash, row.status))
    return outcome.value


def their_vector(row: SharedMemory, embedder: Embedder) -> bytes | None:
    """The vector the row arrived with when this machine's embedder would make the same one
    (same fingerprint and width); None when the text must be embedded here."""
    vector = row.embedding
    if vector is None or row.embedder != embedder.fingerprint or len(vector) != 4 * embedder.dim:
        return None
    return vector


def _arrives_anew(store: Store, link: Link | None) -> bool:
    """Never seen here, or withdrawn earlier and retired here: it goes through the belief pipeline."""
    if link is None:
        return True
    return link.status == "superseded" and _active(store, link.root_id) is None


def _withdraw(store: Store, row: SharedMemory, link: Link | None) -> str:
    """The author withdrew it (unshared, held, now private): retire the copy here unless this
    machine knows it from its own sessions too. Not a forget: no tombstone, and it comes back
    if published again."""
    if link is None:
        return "skipped"
    teamsync.put_link(store, Link(row.uid, link.remote, link.root_id, row.author, "in", link.content_hash,
                                  "superseded"))
    current = _active(store, link.root_id)
    if current is None or teamsync.local_sources(store, current.id, limit=1):
        return "kept"
    teamsync.retire(store, current.id, f"withdrawn by {row.author}")
    return "withdrawn"


def _restore(store: Store, row: SharedMemory, link: Link) -> bool:
    """Published again unchanged after a withdrawal: the retired copy here becomes active again."""
    versions = teamsync.chain(store, link.root_id) if link.root_id is not None else []
    if not versions or versions[0].status != "superseded" or content_hash(versions[0].text) != row.content_hash:
        return False
    teamsync.revive(store, versions[0].id)
    teamsync.put_link(store, Link(row.uid, link.remote, link.root_id, row.author, "in", row.content_hash, "active"))
    return True


def _candidate(row: SharedMemory, project: str) -> tuple[Candidate, beliefs.Context]:
    provenance = _provenance(row)
    first = provenance[0] if provenance else Provenance("generic", row.uid, TEAM_PREFIX + row.author, 0, 0, "",
                                                        row.observed_at)
    candidate = Candidate(row.kind, row.text, (), f"team:{row.extractor}"[:80], cues=redact(row.cues))
    return candidate, beliefs.Context(project, first, (), f"team:{row.uid}", actor="import")


def _provenance(row: SharedMemory) -> list[Provenance]:
    return [Provenance(s.tool, s.session_id, TEAM_PREFIX + row.author, s.line_start, s.line_end, s.excerpt,
                       s.observed_at) for s in row.sources]


def _root(store: Store, memory_id: int | None) -> int | None:
    if memory_id is None:
        return None
    return rows.root_of(store, memory_id)


def _update(store: Store, row: SharedMemory, link: Link, embedder: Embedder) -> str:
    if link.content_hash == row.content_hash and link.status == row.status:
        return _recued(store, row, link, embedder)
    teamsync.put_link(store, Link(row.uid, link.remote, link.root_id, row.author, "in", row.content_hash,
                                  row.status))
    current = _active(store, link.root_id)
    if current is None or content_hash(current.text) == row.content_hash:
        return _recued(store, row, link, embedder)
    old = rows.get(store, current.id)
    vector = their_vector(row, embedder) or embedder.embed(rows.embedded_text(row.text, row.cues))
    new_id = curate.supersede_with(store, old, row.text, "import", embedder, kind=row.kind,
                                   action="team-edit", details={"author": row.author, "uid": row.uid}, vector=vector)
    if row.cues != old.cues:
        rows.set_cues(store, new_id, redact(row.cues))
        vectors.put_cues(store, new_id, embedder, redact(row.cues))
    return "edited"


def _recued(store: Store, row: SharedMemory, link: Link, embedder: Embedder) -> str:
    """The same text with other cues (a teammate edited them): the cues change here too."""
    current = _active(store, link.root_id)
    if current is None or current.cues == row.cues:
        return "unchanged"
    rows.set_cues(store, current.id, redact(row.cues))
    vectors.put_cues(store, current.id, embedder, redact(row.cues))
    search.put_vector(store, current.id, their_vector(row, embedder)
                      or embedder.embed(rows.embedded_text(current.text, row.cues)))
    return "edited"


def _forget(store: Store, row: SharedMemory, link: Link | None, project: str) -> str:
    if link is None:  # never arrived here: nothing to forget (a teammate's forget is not ours to record)
        return "skipped"
    teamsync.tombstone(store, project, row.content_hash)
    teamsync.put_link(store, Link(row.uid, link.remote, link.root_id, row.author, "in", row.content_hash,
                                  "forgotten"))
    current = _active(store, link.root_id)
    if current is None:
        return "tombstoned"
    curate.forget(store, current.id, actor="import")
    return "forgotten"


def _active(store: Store, root_id: int | None) -> teamsync.ChainRow | None:
    if root_id is None:
        return None
    return next((v for v in teamsync.chain(store, root_id) if v.status == "active"), None)
