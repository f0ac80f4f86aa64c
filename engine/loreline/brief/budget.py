"""A brief's budget: at most `block.MAX_LINES` lines and `brief.max_tokens` tokens of block
(600 by default: a brief of 15 memories of the repository's retrieval sets, as the rules write
it, takes 554 tokens at the median and 596 at the 95th percentile; docs/benchmarks.md).

Lines are taken in priority order (`priority.order`) while the block they make still fits: a
line too long for what is left is passed over for a shorter one after it. The lines kept are
then numbered in the order the block prints them (by topic, then priority), the numbers a
person edits and pins them by.
"""

from __future__ import annotations

from . import block
from .model import Line

TYPE_CHECKING = False  # typing is left to the type checker: the everyday commands import none of it
if TYPE_CHECKING:
    from collections.abc import Sequence


def fit(lines: Sequence[Line], max_tokens: int) -> list[Line]:
    """The first lines, in the given order, whose block fits the budget."""
    chosen: list[Line] = []
    for line in lines:
        if len(chosen) == block.MAX_LINES:
            break
        if block.fits([kept.row() for kept in [*chosen, line]], max_tokens):
            chosen.append(line)
    return chosen


def numbered(lines: Sequence[Line]) -> tuple[Line, ...]:
    """The lines in the block's order (topics in `block.TOPICS` order, the given order within a
    topic), numbered from 1."""
    place = {key: n for n, key in enumerate(block.TOPIC_KEYS)}
    printed = sorted(range(len(lines)), key=lambda i: (place.get(lines[i].topic, len(place)), i))
    return tuple(_renumber(lines[i], n) for n, i in enumerate(printed, start=1))


def _renumber(line: Line, number: int) -> Line:
    return Line(line.topic, line.text, line.memories, line.by, line.pinned, line.edited, number)
