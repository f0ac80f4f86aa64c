"""Explicit reversals, recognised without a model.

When a person says "actually, scrap that: we'll use Postgres for reporting" or "from now on
we deploy to Fly.io", an earlier decision on the same topic stops being true. With a model the
judge settles this; without one, this rule covers the explicit case so a reversed decision does
not stay active:

- the new decision's sentence carries an explicit reversal cue (`CUE`) and no additive one
  ("also", "too", "as well");
- the earlier memory is an active *decision* of the same project, said before the new one;
- the two share at least one topic word (content words, minus the choice verbs in FILLER).

The result is a conflict resolved `keep_new` by the judge with the cue and the shared words as
its reason — recorded, audited and revertible like any other resolution.
"""

from __future__ import annotations

import re

from ..models import Candidate, Memory
from ..store import Store
from ..store import memories as rows
from ..store import search

CUE = re.compile(
    r"\b(?:scrap that|scratch that|forget that|instead|no longer|not \w+(?: \w+)? any ?more|changed? (?:my|our) mind|"
    r"from now on|moving (?:\w+ ){0,3}off|switch(?:ing|ed)? (?:from|back)|revert(?:ing)? to|we were wrong|"
    r"actually,? (?:let'?s|we'?ll|we will|we should|we are|we'?re))\b",
    re.IGNORECASE,
)
ADDITIVE = re.compile(r"\b(?:also|too|as well|additionally|in addition)\b", re.IGNORECASE)
_WORD = re.compile(r"[\w.-]+")
FILLER = frozenset(
    "a an the this that these those to of for in on at by with and or we i you our it is are be will 'll "
    "let's lets us use using used go going decided decide decision from now actually scrap scratch instead "
    "because since so need needs want not no never always just then than more any anymore there here "
    "should would could can all new old".split())


def topic_words(text: str) -> frozenset[str]:
    words = (w.strip(".-").lower() for w in _WORD.findall(text))
    return frozenset(w for w in words if len(w) > 2 and w not in FILLER and not w.isdigit())


def cue(candidate: Candidate) -> str | None:
    """The explicit reversal cue in a decision, or None."""
    if candidate.kind != "decision" or ADDITIVE.search(candidate.text):
        return None
    found = CUE.search(candidate.text)
    return found.group(0) if found else None


def targets(store: Store, candidate: Candidate, project: str, said_at: str | None) -> list[tuple[Memory, str]]:
    """Earlier active decisions this explicit reversal replaces, each with the reason."""
    signal = cue(candidate)
    if signal is None:
        return []
    mine = topic_words(candidate.text)
    ids = search.fts(store, " ".join(sorted(mine)), (project,), 10, ("active",))
    out: list[tuple[Memory, str]] = []
    for memory in rows.load(store, ids):
        shared = mine & topic_words(memory.text)
        earlier = said_at is None or memory.observed_at is None or memory.observed_at < said_at
        if memory.kind == "decision" and shared and earlier:
            out.append((memory, f"explicit reversal ({signal!r}) of a decision about {', '.join(sorted(shared))}"))
    return out
