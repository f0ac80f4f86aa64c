"""What the application layer answers: frozen records (`loreline.records`), turned into JSON only by `serialize`."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ..records import field, record

TYPE_CHECKING = False  # typing is left to the type checker: the everyday commands import none of it
if TYPE_CHECKING:  # annotations only: a listing must not load the belief layer, the backends or native sync
    from typing import Any

    from ..backends import Choice
    from ..brief.model import Brief, Rewrite
    from ..models import Candidate, Chunk, ImportReport, Memory
    from ..native.sync import SyncReport
    from ..status import Facts as StatusFacts


def __getattr__(name: str) -> Any:
    if name == "Conflict":  # re-exported, loaded on first use
        from ..beliefs.conflicts import Conflict

        return Conflict
    if name == "StatusFacts":  # the status facts' type, loaded on first use
        from ..status import Facts

        return Facts
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = ["BriefView", "Conflict", "Forgotten", "ImportOutcome", "ImportPlan", "ImportRequest", "Page", "ProjectCounts",
           "Status", "StatusFacts"]


@record
class Page:
    """A page of memories: `total` counts every match, `items` holds at most the limit."""

    project: str | None
    total: int
    offset: int
    items: tuple[Memory, ...]


@record
class ProjectCounts:
    active: int
    superseded: int
    forgotten: int
    pending_conflicts: int
    #: memories held for a person's review (`loreline review`)
    held: int = 0


@record
class Status:
    """The facts behind `loreline status` (`loreline.status.collect`), and one project's counts."""

    facts: StatusFacts
    project: str
    counts: ProjectCounts


@record
class Forgotten:
    ids: tuple[int, ...]
    project: str


@record
class ImportRequest:
    """What to import: `paths` (files), or else sessions discovered for `tools` in the window."""

    paths: tuple[str, ...] = ()
    tools: tuple[str, ...] = ("claude-code",)
    #: an assistant's home folder where it is not the default, by assistant name
    #: (`{"codex": "/elsewhere/.codex"}`; see `loreline.assistants`)
    homes: Mapping[str, str] = field(default_factory=dict)
    days: float = 14
    sessions: int = 20
    dry_run: bool = False
    backend: str | None = None
    api_key: str | None = None
    #: a person is waiting (CLI, editor): model calls do not count against the daily cap
    attended: bool = True
    #: import the given `paths` even when their session was paused (`LORELINE_OFF=1`)
    include_paused: bool = False


@record
class ImportPlan:
    """Sessions chosen and the backend that will read them, before anything is imported."""

    request: ImportRequest
    sessions: tuple[tuple[Path, str | None], ...]
    left_out: tuple[tuple[str, str], ...]
    choice: Choice

    @property
    def notice(self) -> str | None:
        """One line for the person (e.g. no API key: the offline distiller is used)."""
        return self.choice.notice


@record
class ImportOutcome:
    report: ImportReport
    #: on dry runs, what would be distilled: each chunk with the candidates an offline
    #: distiller accepted (a paying one makes no call on a dry run)
    preview: tuple[tuple[Chunk, tuple[Candidate, ...]], ...] = ()
    #: the distiller is a paying model (it is metered)
    paid: bool = False
    #: a discovery import of Claude Code sessions also reads the assistants' own memory files
    native: SyncReport | None = None
    #: the brief of each project the import read, when its memories changed (`loreline.brief`)
    briefs: tuple[Rewrite, ...] = ()


@record
class BriefView:
    """A project's brief as SessionStart shows it (`brief`: its latest version without the lines
    that cite a memory no longer active), the memories its lines cite, and how many lines were
    left out so (`hidden`)."""

    brief: Brief
    sources: tuple[Memory, ...]
    hidden: int = 0
    #: why a rewrite asked of a model gave the rules brief instead (`loreline brief --refresh`)
    fallback: str | None = None

    def source(self, memory_id: int) -> Memory | None:
        return next((m for m in self.sources if m.id == memory_id), None)
