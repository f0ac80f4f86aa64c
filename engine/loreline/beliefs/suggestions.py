"""What the offline rules only suggest: held for review, replaced when a model reads the same lines.

The rules distiller gives each candidate a confidence (`Candidate.confidence`). Only the cues
that carry across authors reach `ACTIVE_CONFIDENCE` (a standing instruction, an answer to the
assistant's question, a rejection reason); any other candidate is stored held with the reason
`SUGGESTED`, so it waits in the review inbox with its evidence, is never injected at
SessionStart and never recalled, until
- a person approves it (`review.approve`: it becomes active) or rejects it (forgotten), or
- a model backend reads the same chunk (`settle`): a suggestion the model states in the same
  words is confirmed (it becomes active, with the model's source added); every other
  suggestion of those lines is removed, the model's own memories taking their place.
"""

from __future__ import annotations

from ..models import Candidate
from ..store import Store
from ..store import memories as rows

SUGGESTED = "suggested by offline rules"
#: a rules candidate at or above this is stored active; below it, held as a suggestion
ACTIVE_CONFIDENCE = 0.85


def hold_for(candidate: Candidate) -> str | None:
    """The hold reason a candidate is stored with (None: stored active)."""
    return SUGGESTED if candidate.confidence < ACTIVE_CONFIDENCE else None


def settle(store: Store, session_path: str, line_start: int, line_end: int, confirmed: set[int],
           actor: str = "import") -> tuple[int, int]:
    """Inside the caller's write transaction, after a model read lines `line_start`-`line_end` of
    `session_path`: the suggestions among `confirmed` (memories the model's candidates merged
    into) become active; the other suggestions resting only on those lines are removed.
    Returns (confirmed, removed)."""
    found = store.conn.execute(
        "SELECT m.id, min(p.session_path = ? AND p.line_start >= ? AND p.line_end <= ?) FROM memories m "
        "JOIN provenance p ON p.memory_id = m.id WHERE m.status = 'held' AND m.hold_reason = ? "
        "AND m.id IN (SELECT memory_id FROM provenance WHERE session_path = ?) GROUP BY m.id",
        (session_path, line_start, line_end, SUGGESTED, session_path)).fetchall()
    kept = removed = 0
    for row in found:
        memory_id, only_here = int(str(row[0])), bool(row[1])
        if memory_id in confirmed:
            rows.release_hold(store, memory_id)
            rows.audit(store, actor, "confirm", memory_id, before={"status": "held", "hold_reason": SUGGESTED},
                       after={"status": "active"})
            kept += 1
        elif only_here and not _in_conflict(store, memory_id):
            rows.audit(store, actor, "replace", memory_id, before={"status": "held", "hold_reason": SUGGESTED},
                       after={"status": "removed", "reason": "a model read the same lines"})
            rows.delete(store, memory_id)
            removed += 1
    return kept, removed


def _in_conflict(store: Store, memory_id: int) -> bool:
    return store.conn.execute("SELECT 1 FROM conflicts WHERE a = ? OR b = ? LIMIT 1",
                              (memory_id, memory_id)).fetchone() is not None
