"""Which memories come first in a brief when its budget runs out: `rank`, one function.

A memory's place is decided by `TERMS`, in order: the first term it meets puts it ahead of every
memory that meets only later ones; among equals, the newest (when it was last said or confirmed)
comes first, then by its words (so the order, and the model's message, depend on the memories
alone, not on the ids a store gave them), then the highest id.

1. pinned: a person pinned it (lines a person pinned or reworded come before every other line:
   `order` below);
2. corrected or said again: it replaced an earlier statement (a newer version: a reversal, a
   person's edit) or it was said in more than one session;
3. asked: the person explicitly asked to keep it ("remember this", "from now on …": `Memory.asked`);
4. how to build, run, test and deploy: procedures and facts under that topic;
5. a standing kind: a preference, decision, fact or procedure before an episode (a notable
   event, the least durable kind);
6. the rest.
"""

from __future__ import annotations

from .model import Line

TYPE_CHECKING = False  # typing is left to the type checker: the everyday commands import none of it
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from ..models import Memory


def sessions(memory: Memory) -> int:
    """In how many sessions the memory was said."""
    return len({p.session_id for p in memory.provenance})


def _pinned(memory: Memory, topic: str) -> bool:
    return memory.pinned


def _corrected_or_again(memory: Memory, topic: str) -> bool:
    return memory.replaces is not None or sessions(memory) > 1


def _asked(memory: Memory, topic: str) -> bool:
    return memory.asked


def _how_to_run(memory: Memory, topic: str) -> bool:
    return topic == "build" and memory.kind in ("procedure", "fact")


def _standing(memory: Memory, topic: str) -> bool:
    return memory.kind != "episode"


#: (name, test) in order of precedence
TERMS: tuple[tuple[str, Callable[[Memory, str], bool]], ...] = (
    ("pinned", _pinned),
    ("corrected or said again", _corrected_or_again),
    ("asked to be remembered", _asked),
    ("how to build, run, test and deploy", _how_to_run),
    ("a standing kind, not an episode", _standing),
)


def rank(memories: Sequence[Memory], topics: Mapping[int, str]) -> list[Memory]:
    """The memories, first first (see the module's docstring)."""
    newest = sorted(memories, key=lambda m: (m.last_seen, m.text, m.id), reverse=True)
    return sorted(newest, key=lambda m: tuple(not test(m, topics.get(m.id, "notes")) for _, test in TERMS))


def order(lines: Sequence[Line], places: Mapping[int, int]) -> list[Line]:
    """Lines, first first: a person's (pinned or reworded) lines, then by the best place
    (`places`: memory id → its index in `rank`) among the memories each cites; at the same
    place a model's line (it may gather several memories) before a rules one."""
    far = len(places)

    def key(line: Line) -> tuple[bool, int, bool]:
        return (not line.kept, min((places.get(i, far) for i in line.memories), default=far), line.by != "model")

    return sorted(lines, key=key)
