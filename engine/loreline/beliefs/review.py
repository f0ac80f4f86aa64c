"""Memories held for a person's review (`status = 'held'`, with `hold_reason`).

A memory whose text would steer the assistant toward remote code, a disabled safety check,
sending data out or using credentials is stored held (`privacy.steering`): it is never injected
at SessionStart nor recalled, whoever said it. A person lists the held memories with their
reasons (`loreline review`), then approves one (it becomes active, like any other) or rejects
it (it is forgotten, and no import brings it back).
"""

from __future__ import annotations

from ..errors import NotFoundError
from ..models import Memory
from ..store import Store
from ..store import memories as rows
from . import curate


def held(store: Store, project: str | None, limit: int = 200) -> tuple[list[Memory], int]:
    """Held memories (of one project, or all when `project` is None) and how many there are."""
    return rows.query(store, rows.Filter(project=project, status="held", limit=limit))


def approve(store: Store, memory_id: int, actor: str = "user") -> Memory:
    """A person vouches for a held memory: it becomes active."""
    memory = _held(store, memory_id)
    with store.write():
        rows.release_hold(store, memory_id)
        rows.audit(store, actor, "approve", memory_id, before={"status": "held", "hold_reason": memory.hold_reason},
                   after={"status": "active"})
    return rows.get(store, memory_id)


def reject(store: Store, memory_id: int, actor: str = "user") -> list[int]:
    """A person turns a held memory down: it is forgotten for good."""
    _held(store, memory_id)
    return curate.forget(store, memory_id, actor)


def _held(store: Store, memory_id: int) -> Memory:
    memory = rows.get(store, memory_id)
    if memory.status != "held":
        raise NotFoundError(f"memory #{memory_id} is not held for review (it is {memory.status})")
    return memory
