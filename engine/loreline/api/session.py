"""`Loreline`: one open store and every question and change a front end asks of it.

Reads never take the write lock; each change is one transaction (the belief layer's). Every
answer is a model noun (`Memory`, `RecallHit`, `Conflict`) or a result of `api.results`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType

from ..models import Memory, RecallHit
from ..names import KEEP
from ..project import project_key
from ..store import Store, anchors, search
from ..store import conflicts as conflict_rows
from ..store import memories as rows
from .results import BriefView, Forgotten, Page, ProjectCounts, Status

TYPE_CHECKING = False  # typing is left to the type checker: the everyday commands import none of it
if TYPE_CHECKING:
    from typing import Any

    from .. import inbox as review_inbox
    from .. import staleness
    from ..brief.model import Brief, Rewrite
    from ..beliefs.conflicts import Conflict
    from .results import StatusFacts

# The belief layer, recall, the status facts and staleness are imported by the methods that use
# them: listing or showing memories must not load them (`tests/test_lazy_imports.py`).

if TYPE_CHECKING:
    from typing import TypeVar

    from ..beliefs.conflicts import Conflict as _Conflict

    #: what a person's change answers: each names the project it changed
    Changed = TypeVar("Changed", Memory, Forgotten, _Conflict)

MAX_HOVER_WORD = 64


def project_of(directory: str | None) -> str:
    """The project a directory (or file) belongs to: its git top level; the current directory's
    when none is given."""
    return project_key(directory or os.getcwd())


class Loreline:
    def __init__(self, path: Path | None = None, *, via: str | None = None) -> None:
        """`via`: the front end a person makes changes through, when it is not the command line
        ("viewer"): the audit records it beside the actor."""
        self.store = Store(path)
        self.store.via = via

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> Loreline:
        return self

    def __exit__(self, kind: type[BaseException] | None, err: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def data_version(self) -> int:
        """Changes whenever another connection commits (a cheap way to notice outside writes)."""
        return rows.data_version(self.store)

    # -- reading ---------------------------------------------------------------------------

    def memories(self, project: str | None, *, kind: str | None = None, status: str | None = "active",
                 text: str | None = None, offset: int = 0, limit: int = 200, stale: bool | None = None,
                 pinned: bool | None = None, extractor: str | None = None, tool: str | None = None) -> Page:
        """A page of memories (of one project, or of all when `project` is None), pinned first;
        `stale` True or False: only those that may be stale, or only the others; `pinned`,
        `extractor` (who made it) and `tool` (a source from that assistant) narrow it further."""
        found, total = rows.query(self.store, rows.Filter(project=project, kind=kind, status=status, text=text,
                                                          stale=stale, pinned=pinned, extractor=extractor, tool=tool,
                                                          limit=limit, offset=offset))
        return Page(project, total, offset, tuple(found))

    def memory(self, memory_id: int) -> Memory:
        return rows.get(self.store, memory_id)

    def memory_for_model(self, memory_id: int) -> Memory:
        """A memory as an assistant may read it: held text withheld, excerpts cut where they
        carry held text (`beliefs.review.for_model`)."""
        from ..beliefs import review

        return review.for_model(self.store, rows.get(self.store, memory_id))

    def recall(self, project: str, query: str, *, limit: int = 10, include_inactive: bool = False) -> list[RecallHit]:
        from ..recall import recall

        return recall(self.store, query, project, limit=limit, include_inactive=include_inactive)

    def prompt_notes(self, project: str, prompt: str, *, limit: int = 3, words: Sequence[int] = (),
                     shown: Sequence[int] = ()) -> list[tuple[Memory, float]] | None:
        """The few memories a prompt bears on, with their similarity (None: the store's embedder
        does not compare meaning); `words`: the memories the prompt's words chose; `shown`: those
        the session already received. See `prompt_notes.for_prompt`."""
        from ..prompt_notes import for_prompt

        return for_prompt(self.store, prompt, project, limit=limit, words=words, shown=shown)

    def session_notes(self, project: str, files: Sequence[str] = (),
                      limit: int = 400) -> tuple[list[tuple[int, str, str]], int]:
        """What a session of the project is offered at its start, in injection order, and how
        many the session already loads from a native file (`recall.session_notes`; the hook
        reads the same with the standard library)."""
        from ..recall import session_notes

        return session_notes(self.store, project, files=files, limit=limit)

    def file_memories(self, project: str, file_path: str) -> list[Memory]:
        """Active memories tied to a file, named relative to the project or as given."""
        rel = os.path.relpath(file_path, project) if os.path.isabs(project) else file_path
        return rows.for_file(self.store, project, (rel, file_path))

    def hover_memories(self, project: str, word: str, limit: int) -> list[Memory]:
        """Memories whose text matches the word under the cursor (lexically)."""
        if len(word) < 3 or len(word) > MAX_HOVER_WORD:
            return []
        from ..recall import USER_SCOPE

        found = rows.load(self.store, search.fts(self.store, word, (project, USER_SCOPE), limit * 3, ("active",)))
        needle = word.lower()
        exact = [m for m in found if needle in m.text.lower()]
        return (exact or found)[:limit]

    def stale_file_memories(self, project: str, file_path: str) -> list[Memory]:
        """Active memories tied to a file that may be stale (the file changed since)."""
        rel = os.path.relpath(file_path, project) if os.path.isabs(project) else file_path
        return rows.load(self.store, anchors.stale_for_file(self.store, project, (rel, file_path)))

    def check_files(self, project: str, paths: list[str] | None = None) -> staleness.CheckReport:
        """Compare the files the project's memories rest on (all, or those named) with what
        they were when each memory was made; flag or clear the memories (`staleness`)."""
        from .. import staleness

        return staleness.check(self.store, project, paths)

    def inbox(self, project: str | None) -> review_inbox.Inbox:
        """What waits for a person: held memories and pending conflicts (`loreline.inbox`)."""
        from .. import inbox as review_inbox

        return review_inbox.inbox(self.store, project)

    def history(self, memory_id: int) -> list[Memory]:
        """Every version of the memory's chain, oldest first."""
        from ..beliefs import curate

        return curate.chain(self.store, memory_id)

    def conflicts(self, project: str | None, status: str | None = "pending") -> list[Conflict]:
        from ..beliefs import conflicts

        return conflicts.listing(self.store, project, status)

    def projects(self) -> list[str]:
        return rows.projects(self.store)

    def project_counts(self, project: str) -> ProjectCounts:
        by_status = rows.count_by_status(self.store, project)
        return ProjectCounts(by_status["active"], by_status["superseded"], by_status["forgotten"],
                             conflict_rows.pending_count(self.store, project), by_status["held"])

    def status(self, project: str, known: StatusFacts | None = None) -> Status:
        """What the store holds, how capture is doing, and `project`'s own counts (`known`: the
        facts, when the caller already has them)."""
        return Status(known if known is not None else self.status_facts(), project, self.project_counts(project))

    def status_facts(self) -> StatusFacts:
        from .. import status as facts

        return facts.collect(self.store)

    def status_inputs(self) -> list[Path]:
        """Every file the status facts are read from: unchanged files, unchanged facts (but for
        the day's model use and a key stored in the keyring)."""
        from .. import status as facts

        return facts.inputs(self.store)

    # -- a person's changes ------------------------------------------------------------------

    def forget(self, memory_id: int) -> Forgotten:
        from ..beliefs import curate

        project = rows.get(self.store, memory_id).project
        return self._rebriefed(Forgotten(tuple(curate.forget(self.store, memory_id)), project))

    def edit(self, memory_id: int, text: str) -> Memory:
        from ..beliefs import curate

        return self._rebriefed(curate.edit(self.store, memory_id, text))

    def set_cues(self, memory_id: int, cues: str) -> Memory:
        """Replace a memory's retrieval cues (questions it answers, topic words; one a line or
        separated by semicolons) in place."""
        from ..beliefs import curate

        return self._rebriefed(curate.set_cues(self.store, memory_id, cues))

    def write_cues(self, backend: str | None = None, progress: Callable[[int], None] | None = None) -> tuple[int, int]:
        """Cues written by a model backend (`distill.cue_writer`) for the active memories no model
        wrote cues for: (written, refused). A model's answer that is unusable is counted, not kept."""
        from .. import backends, usage
        from ..beliefs import curate
        from ..distill import cue_writer
        from ..distill.anthropic import ToolDistiller
        from ..errors import ConfigError, ModelOutputError

        distiller = backends.choose(backend).distiller
        if not isinstance(distiller, ToolDistiller):
            raise ConfigError("writing cues needs a model backend (--backend, or distill.backend): "
                              "the offline rules write none")
        distiller.attach(usage.Meter(self.store, backend=distiller.name, model=distiller.model, attended=True))
        written = refused = 0
        for memory_id, kind, text in rows.without_model_cues(self.store):
            try:
                cues = cue_writer.write(distiller.client, kind, text)
            except ModelOutputError:
                refused += 1
                continue
            curate.set_cues(self.store, memory_id, cues, actor="system",
                            written_by=f"{rows.MODEL_CUES_ACTOR}{distiller.name}")
            written += 1
            if progress is not None and written % 20 == 0:
                progress(written)
        return written, refused

    def confirm(self, memory_id: int, by: str) -> Memory:
        """A person vouches for a memory as the code stands now: no longer stale; `by` (who,
        through which front end) is recorded with the time and in the audit."""
        from .. import staleness

        with self.store.write():
            staleness.confirm(self.store, memory_id, by)
        return self._rebriefed(rows.get(self.store, memory_id))

    def pin(self, memory_id: int, pinned: bool = True) -> Memory:
        from ..beliefs import curate

        return self._rebriefed(curate.pin(self.store, memory_id, pinned))

    def resolve(self, conflict_id: int, keep: str | None = None, merge: str | None = None) -> Conflict:
        """Settle a conflict: keep `new`, `existing` or `both`, or merge into the given text."""
        from ..beliefs import conflicts

        verdict = "merge" if merge is not None else KEEP.get(keep or "", keep or "")
        return self._rebriefed(conflicts.resolve(self.store, conflict_id, verdict, merge_text=merge))

    def held(self, project: str | None, limit: int = 200) -> Page:
        """Memories held for a person's review (of one project, or of all), with their reasons."""
        from ..beliefs import review

        found, total = review.held(self.store, project, limit)
        return Page(project, total, 0, tuple(found))

    def remember(self, project: str, text: str, kind: str, *, reason: str, actor: str) -> Memory:
        """A memory an assistant was asked to keep: held as unconfirmed until a person approves it
        (or, when it repeats an active memory, a new source of that one)."""
        from ..beliefs import review
        from ..embed import default_embedder

        _, memory_id = review.remember(self.store, project, text, kind, reason, actor, default_embedder(self.store))
        return self._rebriefed(rows.get(self.store, memory_id))

    def approve(self, memory_id: int, text: str | None = None) -> Memory:
        """A held memory becomes active (in the given wording, when there is one)."""
        from ..beliefs import review

        return self._rebriefed(review.approve(self.store, memory_id, text=text))

    def reject(self, memory_id: int) -> Forgotten:
        from ..beliefs import review

        project = rows.get(self.store, memory_id).project
        return self._rebriefed(Forgotten(tuple(review.reject(self.store, memory_id)), project))

    def revert(self, conflict_id: int) -> Conflict:
        from ..beliefs import conflicts

        return self._rebriefed(conflicts.revert(self.store, conflict_id))

    def _rebriefed(self, changed: Changed) -> Changed:
        """`changed` (a person's change to a memory of its project), once the project's brief
        follows it (`brief.rewrite.after_change`: the rules brief written again, a model's marked
        stale). The change is made whatever happens to the brief: a store busy now leaves that to
        the next change or import, and lines citing a memory no longer active are never shown."""
        from ..brief import rewrite
        from ..errors import StoreBusyError

        try:
            rewrite.after_change(self.store, changed.project)
        except StoreBusyError:
            pass
        return changed

    # -- the project brief ---------------------------------------------------------------------

    def brief(self, project: str) -> BriefView | None:
        """The project's brief as SessionStart shows it, with the memories its lines cite (None:
        it has none yet; `refresh_brief` writes one)."""
        from ..store import briefs

        found = briefs.latest(self.store, project)
        return self._view(found) if found is not None else None

    def brief_versions(self, project: str, limit: int = 20) -> list[Brief]:
        """The project's brief versions, newest first, each whole (its lines as written)."""
        from ..store import briefs

        return briefs.versions(self.store, project, limit)

    def refresh_brief(self, project: str, backend: str | None = None) -> BriefView:
        """Write the project's brief now: by the configured model (or `backend`), else the rules."""
        from .. import backends, usage
        from ..brief import rewrite
        from ..distill import Metered

        distiller = backends.choose(backend).distiller
        model = rewrite.caller_of(distiller)
        if model is not None and isinstance(distiller, Metered):
            distiller.attach(usage.Meter(self.store, backend=distiller.name, model=distiller.model, attended=True))
        done = rewrite.rewrite(self.store, project, model, force=True)
        return self._view(done.brief, done)

    def edit_brief_line(self, project: str, number: int, text: str) -> BriefView:
        """Reword line `number` of the project's brief (kept in every rewrite from now on)."""
        from ..brief import rewrite

        return self._view(rewrite.edit_line(self.store, project, number, text))

    def pin_brief_line(self, project: str, number: int, pinned: bool = True) -> BriefView:
        """Pin (or unpin) line `number` of the project's brief: a pinned line is kept in every
        rewrite while the memories it cites stay active."""
        from ..brief import rewrite

        return self._view(rewrite.pin_line(self.store, project, number, pinned))

    def _view(self, found: Brief, done: Rewrite | None = None) -> BriefView:
        from ..brief import rewrite

        shown, hidden = rewrite.shown(self.store, found)
        return BriefView(shown, tuple(rows.load(self.store, sorted(shown.cited))), hidden,
                         done.fallback if done is not None else None)

    def reembed(self, progress: Callable[[int], None] | None = None) -> tuple[int, str, str | None]:
        """Rebuild every vector with the current embedder: (count, new fingerprint, old one);
        `progress` hears the running count every few hundred memories."""
        from .. import vectors
        from ..embed import default_embedder

        embedder = default_embedder()
        before = vectors.stamp(self.store)
        return vectors.reembed(self.store, embedder, progress), embedder.fingerprint, before
