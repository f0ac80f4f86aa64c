"""Importing sessions for a front end: choose the sessions (given files, or discovery within a
window), choose the backend, run the pipeline with progress and cancellation.

Planning and running are two steps so a front end can show the backend's notice (no API key:
the offline distiller) before the work starts. The run opens its own store connection: an
editor runs it off its event loop while its own connection keeps answering reads.
"""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Callable
from pathlib import Path

from .. import backends, home, pipeline
from ..assistants import registry
from ..distill import Metered
from ..errors import StoreError, TranscriptMissingError
from ..models import ImportReport
from ..store import Store
from ..transcripts import discover, files
from .results import ImportOutcome, ImportPlan, ImportRequest

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only: native sync loads the belief layer and the redactor
    from ..brief.model import Rewrite
    from ..native.sync import SyncReport

Progress = Callable[[int, int, str], None]


def plan(request: ImportRequest) -> ImportPlan:
    """The sessions to import, what is left out and why, and the distiller to use."""
    if request.paths:
        sessions, left_out = _given(request.paths)
    else:
        roots = {name: Path(folder).expanduser() for name, folder in request.homes.items() if folder}
        found = registry.discover_all(request.tools, roots=roots, window=discover.Window(request.days, request.sessions))
        sessions, left_out = found.in_import_order(), found.left_out
    choice = backends.choose(request.backend, request.api_key)
    return ImportPlan(request, tuple(sessions), tuple(left_out), choice)


def _given(paths: tuple[str, ...]) -> tuple[list[tuple[Path, str | None]], list[tuple[str, str]]]:
    """Given files: each is imported or fails alone with its reason (a dangling link, a FIFO …),
    unless none can be read (then that is the error, in one line)."""
    chosen = [Path(p).expanduser() for p in paths]
    reasons = [files.unreadable(p) for p in chosen]
    if all(reasons):
        first, reason = chosen[0], reasons[0]
        raise TranscriptMissingError(f"no such transcript: {first}" if reason == "no such file"
                                     else f"cannot import {first}: {reason}")
    return [(p, None) for p in chosen], []


def run(chosen: ImportPlan, progress: Progress | None = None, should_stop: Callable[[], bool] | None = None,
        store_path: Path | None = None) -> ImportOutcome:
    """Import the planned sessions in a store connection of its own."""
    options = pipeline.Options(distiller=chosen.choice.distiller, judge=chosen.choice.judge,
                               dry_run=chosen.request.dry_run, progress=progress, should_stop=should_stop,
                               attended=chosen.request.attended,
                               include_paused=chosen.request.include_paused and bool(chosen.request.paths))
    path = store_path or home.db_path()
    with contextlib.ExitStack() as stack:
        if chosen.request.dry_run and not path.exists():
            # a dry run writes nothing, not even an empty store: it reads against a throwaway one
            path = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="loreline-dry-run-"))) / home.DB_NAME
        store = stack.enter_context(Store(path))
        if store.read_only and not chosen.request.dry_run:  # one line, not one failure per session
            raise StoreError(store.read_only_message())
        report = pipeline.import_sessions(store, list(chosen.sessions), options)
        native = _follow_native(store, chosen)
        briefs = _rebrief(store, options, chosen)
        _count_brief_calls(report, chosen)
    report.backend_reason = chosen.choice.reason
    report.left_out.extend(chosen.left_out)
    preview = tuple((piece, tuple(accepted)) for piece, accepted in options.preview)
    return ImportOutcome(report, preview, isinstance(chosen.choice.distiller, Metered), native, briefs)


def _rebrief(store: Store, options: pipeline.Options, chosen: ImportPlan) -> tuple[Rewrite, ...]:
    """The brief of each project the import read, written again when its memories changed: by
    the import's model (one call per project), else by the rules (`brief.rewrite.after_import`)."""
    if chosen.request.dry_run or not options.projects:
        return ()
    from ..brief import rewrite

    return tuple(rewrite.after_import(store, options.projects, chosen.choice.distiller).values())


def _count_brief_calls(report: ImportReport, chosen: ImportPlan) -> None:
    """The import's model use includes the calls that rewrote its briefs (same meter)."""
    from ..brief import rewrite

    model = rewrite.caller_of(chosen.choice.distiller)
    meter = getattr(model[0], "meter", None) if model is not None else None
    if meter is not None and report.model:
        report.usage = meter.total


def _follow_native(store: Store, chosen: ImportPlan) -> SyncReport | None:
    """A discovery import of the sessions of an assistant that loads memory files from the
    project's folder (Claude Code, Gemini CLI) also reads the assistants' own memory files, so
    what a session already loads stays out of its SessionStart block."""
    request = chosen.request
    loading = {a.name for a in registry.ALL if a.project_memory is not None} | {"all"}
    if request.paths or request.dry_run or not loading & set(request.tools):
        return None
    from ..native import run as native_run

    return native_run.follow(store, registry.ALL, judge=chosen.choice.judge, homes=request.homes)


#: the choices a front end offers (re-exported so front ends need not reach into the stages)
BACKENDS = backends.BACKENDS
TOOLS = registry.names()
#: every assistant, for front ends that offer one option per assistant (`--codex-home`, ...)
ASSISTANTS = registry.ALL
DEFAULT_DAYS = discover.DEFAULT_DAYS
DEFAULT_SESSIONS = discover.DEFAULT_SESSIONS
