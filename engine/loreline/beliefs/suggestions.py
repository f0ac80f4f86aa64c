"""What the offline rules only suggest: held for review, replaced when a model reads the same lines.

On unless `distill.rules_suggest = false` (or `LORELINE_RULES_SUGGEST=0` for one process):
then everything the rules find is stored active, as before suggestions existed.

The rules distiller gives each candidate a confidence (`Candidate.confidence`) below
`ACTIVE_CONFIDENCE` (see `distill.rules`: no offline cue carried across authors), and a model
backend's candidates are above it. A candidate below it is stored held with the reason
`SUGGESTED`, so it waits in the review inbox with its evidence, is never injected at
SessionStart and never recalled, until
- a person approves it (`review.approve`: it becomes active) or rejects it (forgotten), or
- the same words arrive again as a standing rule (`confirm`): said again in a later session of
  the project (`repeated`), or stated by a model, they become active; or
- a memory stored active says again what a suggestion said, in other words or another session
  (`fold`): the suggestion becomes one more source of it and leaves the inbox; or
- a model backend reads the same chunk (`settle`): a suggestion the model states in the same
  words is confirmed (it becomes active, with the model's source added); every other
  suggestion of those lines is removed, the model's own memories taking their place.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from ..models import Candidate
from ..store import Store
from ..store import memories as rows

SUGGESTED = "suggested by offline rules"
#: a rules candidate at or above this is stored active; below it, held as a suggestion
ACTIVE_CONFIDENCE = 0.85


def enabled() -> bool:
    """Whether an import holds what the rules only suggest: `$LORELINE_RULES_SUGGEST` (1/0) when
    set, else config `distill.rules_suggest` (on by default)."""
    forced = os.environ.get("LORELINE_RULES_SUGGEST", "").strip().lower()
    if forced in ("0", "false", "no", "off"):
        return False
    if forced in ("1", "true", "yes", "on"):
        return True
    from .. import config

    return config.load().get_bool("distill.rules_suggest")


def hold_for(candidate: Candidate) -> str | None:
    """The hold reason a candidate is stored with (None: stored active)."""
    return SUGGESTED if candidate.confidence < ACTIVE_CONFIDENCE else None


def confirm(store: Store, memory_id: int, actor: str = "import") -> bool:
    """Inside the caller's write transaction: a memory held only as a suggestion becomes active,
    because the same words arrived again as a standing rule (said again in a later session, or
    stated by a model). Any other hold (a person asked to review) stays. True when released."""
    if rows.hold_reason(store, memory_id) != SUGGESTED:
        return False
    rows.release_hold(store, memory_id)
    rows.audit(store, actor, "confirm", memory_id, before={"status": "held", "hold_reason": SUGGESTED},
               after={"status": "active"})
    return True


def waiting(store: Store, project: str) -> list[tuple[int, str]]:
    """(id, text) of the project's suggestions that wait for review, unpinned (what `fold` reads)."""
    return rows.held_with_reason(store, project, SUGGESTED)


def fold(store: Store, project: str, memory_id: int, says_again: Callable[[str], bool],
         waiting: list[tuple[int, str]], actor: str = "import") -> int:
    """Inside the caller's write transaction: the project's suggestions (`waiting`: what the
    function `waiting` read, once per chunk, kept up to date here) that the active
    memory `memory_id` says again (`says_again(text)`) become sources of it and leave the inbox,
    so the person is not asked about what they already settled. A suggestion in a conflict, or
    pinned, stays. Returns how many were folded in."""
    if rows.statuses(store, [memory_id]).get(memory_id) != "active":
        return 0
    folded = 0
    for held_id, text in list(waiting):
        if held_id == memory_id or not says_again(text) or rows.in_conflict(store, held_id):
            continue
        rows.add_sources_of(store, memory_id, held_id)
        rows.audit(store, actor, "replace", held_id, before={"status": "held", "hold_reason": SUGGESTED},
                   after={"status": "removed", "reason": f"said again: now a source of #{memory_id}"})
        rows.delete(store, held_id)
        waiting.remove((held_id, text))
        folded += 1
    return folded


def settle(store: Store, session_path: str, line_start: int, line_end: int, confirmed: set[int],
           actor: str = "import") -> tuple[int, int]:
    """Inside the caller's write transaction, after a model read lines `line_start`-`line_end` of
    `session_path`: the suggestions among `confirmed` (memories the model's candidates merged
    into) become active; the other suggestions resting only on those lines are removed.
    Returns (confirmed, removed)."""
    found = rows.held_from_session(store, session_path, SUGGESTED, line_start, line_end)
    kept = removed = 0
    for memory_id, only_here in found:
        if memory_id in confirmed:
            rows.release_hold(store, memory_id)
            rows.audit(store, actor, "confirm", memory_id, before={"status": "held", "hold_reason": SUGGESTED},
                       after={"status": "active"})
            kept += 1
        elif only_here and not rows.in_conflict(store, memory_id):
            rows.audit(store, actor, "replace", memory_id, before={"status": "held", "hold_reason": SUGGESTED},
                       after={"status": "removed", "reason": "a model read the same lines"})
            rows.delete(store, memory_id)
            removed += 1
    return kept, removed

