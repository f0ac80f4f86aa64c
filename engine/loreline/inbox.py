"""The review inbox: what waits for a person before Loreline uses it.

Two kinds of item share it: memories held for review (`status = 'held'` with `hold_reason`,
`beliefs.review`: steering held by the privacy checks, what an assistant was asked to keep,
and — with `capture.review = "ask"` — every memory the capture worker makes, reason
`capture.worker.REVIEW_REASON`) and pending conflicts (`beliefs.conflicts`, with their own
resolve actions). A held memory is never injected at SessionStart nor recalled until a person
approves it (`beliefs.review.approve`, optionally in their own wording) or rejects it.
"""

from __future__ import annotations


from .beliefs import review
from .beliefs.conflicts import Conflict, listing
from .models import Memory
from .records import record
from .store import Store


@record
class Inbox:
    """Held memories (oldest first) and pending conflicts of a project (or of all)."""

    held: tuple[Memory, ...]
    conflicts: tuple[Conflict, ...]


def inbox(store: Store, project: str | None, limit: int = 200) -> Inbox:
    found, _ = review.held(store, project, limit)
    return Inbox(tuple(sorted(found, key=lambda m: m.id)), tuple(listing(store, project, "pending")))
