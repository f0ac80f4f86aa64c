"""The brief's nouns: a line citing memories, and one version of a project's brief."""

from __future__ import annotations

from ..records import record

#: who wrote a line's wording
BY_MODEL = "model"
BY_RULES = "rules"
BY_USER = "user"
#: the writer of a brief no model wrote
RULES = "rules"


@record
class Line:
    """One line of a brief: its topic (`block.TOPICS`), its text and the memories it rests on.

    `number` is its place in its version, from 1 (what `loreline brief edit N` names); a person
    may pin a line (it survives rewrites while its memories stay active) or reword it (`edited`,
    which keeps it too)."""

    topic: str
    text: str
    memories: tuple[int, ...]
    by: str = BY_RULES
    pinned: bool = False
    edited: bool = False
    number: int = 0

    @property
    def kept(self) -> bool:
        """A person's line: pinned or reworded, carried into every rewrite."""
        return self.pinned or self.edited

    def row(self) -> tuple[str, str, tuple[int, ...]]:
        """The line as `block.render` prints it."""
        return (self.topic, self.text, self.memories)


@record
class Brief:
    """One version of a project's brief.

    `writer` is the model that wrote it, or "rules"; `changed_by` is "user" when a person's
    edit or pin made this version from the one before; `basis` fingerprints the memories it was
    written from (a rewrite over the same memories is skipped); `stale`: a person changed the
    project's memories since a model wrote it (lines citing a memory no longer active are not
    shown, and the next import or worker run writes it again); `dropped`: model lines the
    check refused when it was written."""

    project: str
    version: int
    writer: str
    created_at: str
    lines: tuple[Line, ...]
    basis: str = ""
    stale: bool = False
    changed_by: str | None = None
    dropped: int = 0
    #: the day of sessions it was written for (the newest day its memories were said)
    day: str | None = None

    @property
    def cited(self) -> set[int]:
        return {i for line in self.lines for i in line.memories}


@record
class Written:
    """What a writer produced: the lines, in priority order, and how many it dropped and why."""

    lines: tuple[Line, ...]
    writer: str
    dropped: dict[str, int]
    #: why a model brief gave way to the rules one (the model failed or wrote nothing usable)
    fallback: str | None = None


@record
class Rewrite:
    """What asking for a rewrite did: the latest version, whether it is a new one (`written`:
    False when the memories were what it was written from), model lines dropped by reason, and
    why a model's brief gave way to the rules one."""

    brief: Brief
    written: bool
    dropped: dict[str, int]
    fallback: str | None = None
