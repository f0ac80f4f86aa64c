"""The deterministic brief: one line per memory, in the memory's own words, under its topic
(`topics`), first first (`priority`). No model, no network; cheap enough to write again after
every change to a project's memories.

A long memory is cut to its first sentences within `MAX_CHARS` (else at a word, with "…"), so
every line still says only what its memory says. Two memories with the same wording (the
project's and the user's own) give one line.
"""

from __future__ import annotations

import re

from . import priority
from .model import BY_RULES, RULES, Line, Written
from .topics import topic

TYPE_CHECKING = False  # typing is left to the type checker: the everyday commands import none of it
if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..models import Memory

MAX_CHARS = 240
MIN_SENTENCES_CHARS = 60
_SENTENCE_END = re.compile(r"[.!?](?=\s)")


def build(memories: Sequence[Memory]) -> Written:
    """A line for each memory, first first."""
    topics = {m.id: topic(m) for m in memories}
    lines: list[Line] = []
    seen: set[str] = set()
    for memory in priority.rank(memories, topics):
        text = shortened(" ".join(memory.text.split()))
        wording = text.lower()
        if not text or wording in seen:
            continue
        seen.add(wording)
        lines.append(Line(topics[memory.id], text, (memory.id,), BY_RULES))
    return Written(tuple(lines), RULES, {})


def shortened(text: str) -> str:
    """`text` within `MAX_CHARS`: whole sentences when they say enough, else cut at a word."""
    if len(text) <= MAX_CHARS:
        return text
    ends = [m.end() for m in _SENTENCE_END.finditer(text, 0, MAX_CHARS)]
    if ends and ends[-1] >= MIN_SENTENCES_CHARS:
        return text[: ends[-1]]
    cut = text[: MAX_CHARS - 1].rsplit(" ", 1)[0]
    return cut.rstrip(" ,;:") + "…"
