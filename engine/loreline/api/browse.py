"""Browsing the store for the local viewer: projects with their counts, imported sessions and
what each taught, a transcript around the lines a memory cites (cleaned and redacted exactly as
a model read it), a dry-run preview of a session not yet imported, and model use per day."""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path

from .. import pipeline, usage
from ..errors import LorelineError
from ..models import Memory, Turn
from ..records import record
from ..store import browse as rows
from ..store.browse import DayRow, SessionRow
from ..store import memories as memory_rows
from ..transcripts import discover, files
from .results import ProjectCounts
from .session import Loreline


@record
class ProjectSummary:
    project: str
    counts: ProjectCounts
    last_learned: str | None
    stale: int


@record
class TranscriptWindow:
    """The turns around lines `cited` of a session file, as a model read them; `error` says why
    there are none (the file moved, cannot be read …)."""
    path: str
    cited: tuple[int, int]
    turns: tuple[Turn, ...]
    error: str | None = None

    def is_cited(self, turn: Turn) -> bool:
        return turn.line_start <= self.cited[1] and turn.line_end >= self.cited[0]


@record
class UsageChart:
    days: tuple[DayRow, ...]
    daily_unattended_cap: int
    #: today's background tokens against their daily budget
    unattended_tokens: int = 0
    daily_unattended_tokens: int = 0
    #: what stops background distillation now, one line each: a cooldown, the cap, the budget
    paused: tuple[str, ...] = ()


@record
class Options:
    """What a project's memories can be filtered by."""
    authors: tuple[str, ...]
    tools: tuple[str, ...]


def projects(lore: Loreline) -> list[ProjectSummary]:
    return [ProjectSummary(p, lore.project_counts(p), rows.last_learned(lore.store, p), rows.stale_count(lore.store, p))
            for p in lore.projects()]


def filter_options(lore: Loreline, project: str) -> Options:
    return Options(tuple(rows.authors(lore.store, project)), tuple(rows.tools(lore.store, project)))


def sessions(lore: Loreline, project: str | None) -> list[SessionRow]:
    return rows.sessions(lore.store, project)


def session(lore: Loreline, path: str) -> tuple[SessionRow, list[int]]:
    """One imported session and the ids of the memories it taught."""
    found = rows.session(lore.store, path)
    if found is None:
        raise LorelineError(f"no imported session at {path}")
    return found, rows.taught_ids(lore.store, path)


def not_imported(lore: Loreline, days: int = 14, most: int = 50) -> list[tuple[str, str]]:
    """Sessions discovery finds (every assistant, within `days`) that the store has not imported:
    (path, tool), newest first."""
    from ..assistants import registry

    found = registry.discover_all(("all",), window=discover.Window(days, most))
    candidates = [(str(path), tool or "") for path, tool in found.in_import_order()]
    known = rows.imported(lore.store, [path for path, _ in candidates])
    return [(path, tool) for path, tool in candidates if path not in known]


def transcript_window(path: str, line_start: int, line_end: int, around: int = 3) -> TranscriptWindow:
    """The cleaned turns of a session around lines `line_start`–`line_end`: `around` turns on
    each side of the cited ones."""
    from ..assistants import registry

    where = Path(path)
    problem = files.unreadable(where)
    if problem:
        return TranscriptWindow(path, (line_start, line_end), (), f"the session file cannot be read: {problem}")
    try:
        turns = pipeline.clean_turns(registry.parse(where).transcript.turns)
    except (OSError, LorelineError, ValueError) as err:
        return TranscriptWindow(path, (line_start, line_end), (), f"the session file cannot be read: {err}")
    hits = [i for i, t in enumerate(turns) if t.line_start <= line_end and t.line_end >= line_start]
    if not hits:
        return TranscriptWindow(path, (line_start, line_end), (), "the cited lines are no longer in the session file")
    first, last = max(0, hits[0] - around), min(len(turns), hits[-1] + around + 1)
    return TranscriptWindow(path, (line_start, line_end), tuple(turns[first:last]))


def usage_chart(lore: Loreline, days: int = 30) -> UsageChart:
    today = date.fromisoformat(usage.today())
    start = today - timedelta(days=days - 1)
    known = {r.day: r for r in rows.usage_by_day(lore.store, start.isoformat())}
    chart = []
    for n in range(days):
        day = (start + timedelta(days=n)).isoformat()
        chart.append(known.get(day) or DayRow(day, 0, 0, 0, 0))
    from .usage import gate_problems

    today_use = usage.today_summary(lore.store)
    cap, tokens, budget = (today_use[k] for k in ("daily_unattended_cap", "unattended_tokens",
                                                  "daily_unattended_tokens"))
    return UsageChart(tuple(chart), cap if isinstance(cap, int) else 0, tokens if isinstance(tokens, int) else 0,
                      budget if isinstance(budget, int) else 0, tuple(gate_problems(today_use)))


def memories_by_id(lore: Loreline, ids: list[int]) -> list[Memory]:
    return memory_rows.load(lore.store, ids)
