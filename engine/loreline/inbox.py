"""The review inbox: what waits for a person before Loreline uses it.

Two kinds of item share it: memories held for review (`status = 'held'` with `hold_reason`;
with `capture.review = "ask"` every memory background capture makes is held, reason
`capture.worker.REVIEW_REASON`) and pending conflicts. A held memory is never injected at
SessionStart nor recalled (both read active memories only) until a person approves it
(optionally in their own wording: it becomes active as written) or rejects it (forgotten: no
import brings it back). Conflicts keep their own resolve actions (`beliefs.conflicts`).
"""

from __future__ import annotations

from dataclasses import dataclass

from .beliefs import curate
from .beliefs.conflicts import Conflict, listing
from .embed import default_embedder
from .errors import NotFoundError
from .models import Memory
from .store import Store, search
from .store import memories as rows

#: why a memory an assistant asked to keep waits for review (`capture.review = "ask"`)
ASKED_REASON = "an assistant asked to keep it (review = ask)"


@dataclass(frozen=True, slots=True)
class Inbox:
    """Held memories (oldest first) and pending conflicts of a project (or of all)."""

    held: tuple[Memory, ...]
    conflicts: tuple[Conflict, ...]


def inbox(store: Store, project: str | None, limit: int = 200) -> Inbox:
    found, _ = rows.query(store, rows.Filter(project=project, status="held", limit=limit))
    return Inbox(tuple(sorted(found, key=lambda m: m.id)), tuple(listing(store, project, "pending")))


def approve(store: Store, memory_id: int, text: str | None = None, actor: str = "user") -> Memory:
    """A person vouches for a held memory (in their own words when `text` is given): active."""
    memory = _held(store, memory_id)
    wording = text.strip() if text is not None and text.strip() else None
    with store.write():
        rows.release(store, memory_id, wording)
        if wording is not None and wording != memory.text:
            search.put_vector(store, memory_id, default_embedder().embed(wording))
        rows.audit(store, actor, "approve", memory_id, before={"status": "held", "hold_reason": memory.hold_reason,
                                                               "text": memory.text},
                   after={"status": "active", "text": wording or memory.text})
    return rows.get(store, memory_id)


def reject(store: Store, memory_id: int, actor: str = "user") -> list[int]:
    """A person turns a held memory down: it is forgotten for good."""
    _held(store, memory_id)
    return curate.forget(store, memory_id, actor)


def _held(store: Store, memory_id: int) -> Memory:
    memory = rows.get(store, memory_id)
    if memory.status != "held":
        raise NotFoundError(f"memory #{memory_id} is not waiting for review (it is {memory.status})")
    return memory
