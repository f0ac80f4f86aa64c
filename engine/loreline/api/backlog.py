"""The history an assistant already holds when Loreline is connected to it: how many of its
sessions Loreline has not imported, and what `loreline import sessions` would take to import
them (sessions, model calls, estimated tokens), measured by a dry run that writes nothing and
calls no model.

Background capture never drains that history: the worker imports only the sessions whose
hooks fire from now on (`capture.worker`). `loreline connect` says how large the history is
and what an import would take; the person decides (`loreline import sessions`).
"""

from __future__ import annotations

from collections.abc import Mapping

from .. import home
from ..records import record
from .results import ImportRequest

#: the whole history: every session file, whatever its age
EVERYTHING_DAYS = 365.0 * 100
EVERYTHING_SESSIONS = 10_000_000


@record
class Backlog:
    tool: str
    #: the history's sessions the store has not imported
    sessions: int
    #: of those, the ones `loreline import sessions` would take with its defaults (the newest
    #: `most` of the last `days`), and what that import would send
    window: int
    days: float
    most: int
    calls: int
    tokens: int
    #: the backend that import would use, its model when it is a model, and why it was chosen
    backend: str
    model: str | None
    reason: str


def measure(tool: str, homes: Mapping[str, str] | None = None) -> Backlog:
    """The history of `tool` not yet imported, and a dry run of the import a person would run."""
    from . import imports

    pending = _not_imported(tool, homes or {})
    request = ImportRequest(tools=(tool,), homes=dict(homes or {}), dry_run=True)
    if not pending:
        return Backlog(tool, 0, 0, request.days, request.sessions, 0, 0, "", None, "")
    outcome = imports.run(imports.plan(request))
    report = outcome.report
    calls = report.chunks - report.chunks_replayed if outcome.paid else 0
    return Backlog(tool, len(pending), report.imported, request.days, request.sessions, calls,
                   report.estimated_input_tokens, report.backend, report.model, report.backend_reason or "")


def _not_imported(tool: str, homes: Mapping[str, str]) -> list[str]:
    from pathlib import Path

    from ..assistants import registry
    from ..store import Store
    from ..store import browse as rows
    from ..transcripts import discover

    roots = {name: Path(folder).expanduser() for name, folder in homes.items() if folder}
    found = registry.discover_all((tool,), roots=roots, window=discover.Window(EVERYTHING_DAYS, EVERYTHING_SESSIONS))
    paths = [str(path.resolve()) for path, _ in found.in_import_order()]  # as the ledger names them
    if not paths or not home.db_path().exists():
        return paths
    with Store() as store:
        known = rows.imported(store, paths)
    return [path for path in paths if path not in known]


def lines(found: Backlog, label: str) -> list[str]:
    """What `loreline connect` says about the history it found."""
    if not found.sessions:
        return []
    spend = (f"{found.calls} model calls, ≈ {found.tokens:,} input tokens (chars/4) with {found.backend}"
             f" ({found.model})" if found.model else f"the offline {found.backend}, no model call")
    return [f"Your {label} history holds {found.sessions} sessions Loreline has not imported. Background capture "
            "leaves them alone: it reads only the sessions whose hooks fire from now on.",
            f"`loreline import sessions --tool {found.tool}` would import the newest {found.window} of the last "
            f"{found.days:g} days: {spend}. `--dry-run` lists them first; `--days` and `--sessions` widen it."]
