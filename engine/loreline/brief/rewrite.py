"""When a project's brief is written, by whom, and what a person keeps of it.

- `after_import(store, projects, distiller)`: after an import or a capture-worker run, each
  project whose memories changed since its brief was written (`basis`), or whose brief a
  person's change left stale, is written again: by the model when the run's distiller is a
  model's (one call per project per run, through the same client and meter), else by the
  rules. A model that fails (unavailable, the daily cap, an answer off the contract) gives way
  to the rules brief, with the reason.
- `after_change(store, project)`: after a person's change (an edit, a forget, a pin, an
  approval, a conflict settled): a brief a model wrote is marked stale (lines citing a memory no
  longer active stop being shown at once; the next run writes it again); otherwise the rules
  brief is written again, which is cheap.
- `rewrite(...)`: one project now (`loreline brief --refresh`).

How often a model writes (`brief.model_rewrite`): `daily` (the default) asks the model once per
day of sessions (the newest day the project's memories were said: a person's working day, the
sessions' own days when a history is imported); until the day changes, a rewrite keeps the
model's lines that still hold (every memory they cite active, every claim still in their words)
and the rules add lines for what is new. `always` asks after every import that changed the
memories. A forced rewrite (`--refresh`) always asks.
- `edit_line`, `pin_line`: a person's new version of the latest one.

Every version is kept. A model's lines come first at equal priority, and the rules fill what
budget is left with lines for the memories no kept line cites. Lines a person pinned or
reworded carry into every rewrite while every memory they cite stays active; a written line
whose memories such a line already cites is left out.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from .. import errors
from ..recall_rules import USER_SCOPE
from ..store import briefs as table
from ..store import memories as rows
from . import budget, priority, rules
from .model import BY_USER, RULES, Brief, Line, Rewrite, Written
from .topics import topic

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence

    from ..distill import Distiller, ToolCaller
    from ..models import Memory
    from ..store import Store

#: a brief is written from at most this many memories (pinned, then newest)
MAX_SOURCES = 1000
#: what may go wrong with a model call: the rules brief is written instead
MODEL_FAILURES = (errors.ModelOutputError, errors.RateLimitedError, errors.CapReachedError, errors.DistillError)


def sources(store: Store, project: str) -> list[Memory]:
    """The memories a brief of `project` rests on: its active ones and the user's own, minus
    those that may be stale (unless pinned), as SessionStart has always offered them."""
    return rows.load(store, table.sources(store, project, MAX_SOURCES))


def basis(memories: Sequence[Memory]) -> str:
    """A fingerprint of everything a brief is written from: which memories, their words, kind,
    cues, pin and standing (versions, sessions, asked)."""
    digest = hashlib.sha256()
    for m in sorted(memories, key=lambda m: m.id):
        digest.update(f"{m.id}\0{m.kind}\0{m.text}\0{m.cues}\0{m.pinned}\0{m.asked}\0{m.replaces}\0"
                      f"{priority.sessions(m)}\0{m.last_seen}\n".encode())
    return digest.hexdigest()[:32]


def max_tokens() -> int:
    from .. import config

    return config.load().get_int("brief.max_tokens")


def caller_of(distiller: Distiller | None) -> tuple[ToolCaller, str] | None:
    """The model client and model name behind a distiller, when a model distills."""
    from ..distill.anthropic import ToolDistiller

    if isinstance(distiller, ToolDistiller):
        return distiller.client, distiller.model
    return None


def after_import(store: Store, projects: Iterable[str], distiller: Distiller | None) -> dict[str, Rewrite]:
    """Write the brief of each project whose memories changed (see the module's docstring)."""
    model = caller_of(distiller)
    return {project: rewrite(store, project, model) for project in sorted(set(projects)) if project != USER_SCOPE}


def after_change(store: Store, project: str) -> None:
    """A person changed a memory of `project` (of every project, for a memory of the user's own)."""
    for each in table.projects(store) if project == USER_SCOPE else [project]:
        current = table.latest(store, each)
        if current is not None and current.writer != RULES:
            with store.write():
                table.mark_stale(store, each)
        else:
            rewrite(store, each)


def rewrite(store: Store, project: str, model: tuple[ToolCaller, str] | None = None, *,
            force: bool = False, limit: int | None = None) -> Rewrite:
    """Write the project's brief now, unless its memories are what the latest version was
    written from (and it is not stale, and the same writer would write it): then that one."""
    memories = sources(store, project)
    fingerprint = basis(memories)
    current = table.latest(store, project)
    writer = model[1] if model is not None and memories else RULES
    if current is not None and not force and not current.stale and current.basis == fingerprint \
            and (current.writer == writer or writer == RULES):
        return Rewrite(current, False, {})
    limit = limit or max_tokens()
    day = _day(memories)
    earlier = None if force or model is None else _model_version(store, project, day)
    written = _reused(earlier, memories) if earlier is not None else _written(memories, model, limit)
    active = {m.id for m in memories}
    kept = [line for line in (current.lines if current is not None else ()) if line.kept
            and set(line.memories) <= active]
    lines = budget.numbered(budget.fit(_ordered(kept, written, memories), limit))
    with store.write():
        table.save(store, project, written.writer, lines, fingerprint, dropped=sum(written.dropped.values()), day=day)
    return Rewrite(_latest(store, project), True, written.dropped, written.fallback)


def _day(memories: Sequence[Memory]) -> str:
    """The newest day any of the memories was said (or confirmed): the day a brief is written for."""
    return max((m.last_seen[:10] for m in memories), default="")


def _model_version(store: Store, project: str, day: str) -> Brief | None:
    """The latest version a model wrote for this day, when briefs are rewritten daily."""
    from .. import config

    if config.load().get_str("brief.model_rewrite") != "daily":
        return None
    for version in table.versions(store, project, limit=20):
        if version.writer not in (RULES, BY_USER) and version.changed_by != BY_USER:
            return version if version.day == day else None
    return None


def _reused(earlier: Brief, memories: Sequence[Memory]) -> Written:
    """The model lines of `earlier` that still hold, then the rules' lines for the rest."""
    from .claims import problem
    from .model import BY_MODEL

    by_id = {m.id: m for m in memories}
    held = [line for line in earlier.lines if line.by == BY_MODEL and line.memories
            and all(i in by_id for i in line.memories)
            and problem(line.text, [by_id[i] for i in line.memories]) is None]
    cited = {i for line in held for i in line.memories}
    fill = tuple(line for line in rules.build(memories).lines if not set(line.memories) <= cited)
    return Written(tuple(held) + fill, earlier.writer, {})


def _latest(store: Store, project: str) -> Brief:
    found = table.latest(store, project)
    if found is None:
        raise errors.NotFoundError(f"no brief of {project}")
    return found


def _written(memories: Sequence[Memory], model: tuple[ToolCaller, str] | None, limit: int) -> Written:
    offline = rules.build(memories)
    if model is None or not memories:
        return offline
    from . import writer

    try:
        found = writer.write(model[0], model[1], memories, limit)
    except MODEL_FAILURES as err:
        return Written(offline.lines, RULES, {}, fallback=f"{type(err).__name__}: {err}")
    if not found.lines:
        return Written(offline.lines, RULES, found.dropped, fallback="the model wrote no line that passed the check")
    cited = {i for line in found.lines for i in line.memories}
    fill = tuple(line for line in offline.lines if not set(line.memories) <= cited)
    return Written(found.lines + fill, found.writer, found.dropped)


def _ordered(kept: Sequence[Line], written: Written, memories: Sequence[Memory]) -> list[Line]:
    """A person's lines, then the written ones not already covered by them, first first."""
    places = {m.id: n for n, m in enumerate(priority.rank(memories, {m.id: topic(m) for m in memories}))}
    held = {i for line in kept for i in line.memories}
    fresh = [line for line in written.lines if not set(line.memories) <= held]
    return priority.order([*kept, *fresh], places)


# -- a person's say --------------------------------------------------------------------------


def edit_line(store: Store, project: str, number: int, text: str) -> Brief:
    """A new version with line `number` in the person's words (it is kept from now on)."""
    from ..privacy import gate

    admitted = gate.admit(" ".join(text.split()))
    if not admitted.text:
        raise errors.LorelineError("the new text is empty")
    if admitted.hold is not None:
        raise errors.LorelineError(f"a brief line cannot say this: {admitted.hold}")
    cleaned = admitted.text
    return _changed(store, project, number, lambda line: Line(line.topic, cleaned, line.memories, BY_USER,
                                                               line.pinned, True, line.number))


def pin_line(store: Store, project: str, number: int, pinned: bool = True) -> Brief:
    """A new version with line `number` pinned (kept in every rewrite) or unpinned."""
    return _changed(store, project, number, lambda line: Line(line.topic, line.text, line.memories, line.by,
                                                               pinned, line.edited, line.number))


def _changed(store: Store, project: str, number: int, change: Callable[[Line], Line]) -> Brief:
    current = table.latest(store, project)
    if current is None:
        raise errors.NotFoundError("this project has no brief yet; `loreline brief --refresh` writes one")
    if not any(line.number == number for line in current.lines):
        raise errors.NotFoundError(f"the brief (version {current.version}) has no line {number}")
    lines = [change(line) if line.number == number else line for line in current.lines]
    with store.write():
        table.save(store, project, current.writer, lines, current.basis, changed_by=BY_USER)
    return _latest(store, project)


# -- what is shown ----------------------------------------------------------------------------


def shown(store: Store, brief: Brief) -> tuple[Brief, int]:
    """The version as SessionStart shows it: without the lines that cite a memory no longer
    active (or maybe stale and not pinned); and how many lines were left out so."""
    status = table.statuses(store, sorted(brief.cited))
    keep = tuple(line for line in brief.lines if line.memories and all(
        status.get(i, ("gone", True))[0] == "active" and not status[i][1] for i in line.memories))
    return Brief(brief.project, brief.version, brief.writer, brief.created_at, keep, brief.basis, brief.stale,
                 brief.changed_by, brief.dropped), len(brief.lines) - len(keep)
