"""Memories held for a person's review (`status = 'held'`, with `hold_reason`).

A memory whose text would steer the assistant toward remote code, a disabled safety check,
sending data out or using credentials is stored held (`privacy.steering`): it is never injected
at SessionStart nor recalled, whoever said it. A person lists the held memories with their
reasons (`loreline review`), then approves one (it becomes active, like any other) or rejects
it (it is forgotten, and no import brings it back).
"""

from __future__ import annotations

from .. import records
import hashlib

from ..embed import Embedder, default_embedder
from ..errors import LorelineError, NotFoundError
from ..models import Candidate, Evidence, Memory, Provenance
from ..privacy import gate
from ..privacy.redact import redact
from ..privacy.sanitize import sanitize
from ..store import Store
from ..store import memories as rows
from ..store import search
from . import Context, Outcome, curate, reconcile


def held(store: Store, project: str | None, limit: int = 200) -> tuple[list[Memory], int]:
    """Held memories (of one project, or all when `project` is None) and how many there are."""
    return rows.query(store, rows.Filter(project=project, status="held", limit=limit))


def approve(store: Store, memory_id: int, actor: str = "user", text: str | None = None,
            embedder: Embedder | None = None) -> Memory:
    """A person vouches for a held memory: it becomes active (in `text`'s wording when given:
    an edit on the way in, redacted like every stored text)."""
    memory = _held(store, memory_id)
    wording = redact(sanitize(text)).strip() if text is not None else ""
    with store.write():
        if wording and wording != memory.text:
            rows.reword(store, memory_id, wording)
            search.put_vector(store, memory_id, (embedder or default_embedder(store)).embed(wording))
        rows.release_hold(store, memory_id)
        rows.audit(store, actor, "approve", memory_id, before={"status": "held", "hold_reason": memory.hold_reason},
                   after={"status": "active", **({"text": wording} if wording and wording != memory.text else {})})
    return rows.get(store, memory_id)


def for_model(store: Store, memory: Memory) -> Memory:
    """The memory as a model may read it: a held memory's text and excerpts withheld; in any
    other memory's excerpts, each sentence that would be held or that carries the text of a
    held memory from the same lines of the same session (two memories taken from one message
    share its words) is cut."""
    if memory.status == "held":
        return records.replace(memory, text=gate.WITHHELD, provenance=tuple(
            records.replace(p, excerpt=gate.WITHHELD) for p in memory.provenance))
    sources = []
    for p in memory.provenance:
        siblings = rows.held_texts_from(store, p.session_id, p.session_path, p.line_start, p.line_end)
        sources.append(records.replace(p, excerpt=gate.mask_held(p.excerpt, siblings)))
    return records.replace(memory, provenance=tuple(sources))


def reject(store: Store, memory_id: int, actor: str = "user") -> list[int]:
    """A person turns a held memory down: it is forgotten for good."""
    _held(store, memory_id)
    return curate.forget(store, memory_id, actor)


def _held(store: Store, memory_id: int) -> Memory:
    memory = rows.get(store, memory_id)
    if memory.status != "held":
        raise NotFoundError(f"memory #{memory_id} is not held for review (it is {memory.status})")
    return memory


def remember(store: Store, project: str, text: str, kind: str, reason: str, actor: str,
             embedder: Embedder) -> tuple[Outcome, int]:
    """A memory an assistant was explicitly asked to keep (the MCP `remember` tool): redacted
    like everything else, recorded with `actor` and the reason, and held as unconfirmed until a
    person approves it. When it repeats an active memory, that memory gains this as a source
    and stays as it was. A wording the person forgot is refused."""
    text = redact(sanitize(text)).strip()
    why = redact(sanitize(reason)).strip()
    if not text:
        raise LorelineError("nothing is left to remember once hidden text is removed")
    stamp = rows.now()
    prov = Provenance(actor, f"{actor}-{stamp}", "", 0, 0, f"asked to remember: {why}"[:480], stamp)
    candidate = Candidate(kind, text, (Evidence(0, text),), f"{actor}@1")
    key = hashlib.sha256(f"{actor}\0{project}\0{text}\0{stamp}".encode()).hexdigest()[:32]
    with store.write():
        outcome, memory_id = reconcile(store, candidate, Context(project, prov, (), key, actor), embedder)
        if outcome is Outcome.FORGOTTEN or memory_id is None:
            raise LorelineError("that memory was forgotten by a person; it is not kept again")
        if outcome in (Outcome.ADDED, Outcome.VERSIONED, Outcome.CONFLICTED):
            rows.hold(store, memory_id, f"the {actor} was asked to keep it ({why}); unconfirmed until you approve it")
        rows.audit(store, actor, "remember", memory_id, before=None, after={"reason": why, "outcome": outcome.value})
    return outcome, memory_id
