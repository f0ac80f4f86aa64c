"""The application layer: the one thing every front end (the CLI, the language server) calls.

    front end ── parse input ──▶ api.Loreline / api.imports ──▶ beliefs, recall, pipeline, store
              ◀── render ────── results (frozen records)    ──▶ api.serialize (one JSON shape)

A front end parses its input, calls this package and renders what comes back: text for a
terminal, or `serialize`'s JSON (snake_case for the CLI, `camel=True` for the LSP). It
never opens the store, runs SQL, or calls a stage of the pipeline itself.

The names below are loaded on first use (PEP 562), not when the package is imported: a
command that only lists memories must not pay for the import pipeline it never runs.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # typing is left to the type checker: the everyday commands import none of it
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from ..brief.model import Brief
    from ..inbox import Inbox
    from ..pipeline import clean_turns
    from . import browse, imports, serialize
    from .results import (BriefView, Conflict, Forgotten, ImportOutcome, ImportPlan, ImportRequest, Page, ProjectCounts, Status,
                          StatusFacts)
    from .session import KEEP, Loreline, project_of

#: each public name and the module it lives in (relative to this package)
_WHERE = {
    "clean_turns": "..pipeline", "imports": ".imports", "serialize": ".serialize",
    "Brief": "..brief.model", "BriefView": ".results", "Conflict": ".results", "Forgotten": ".results", "ImportOutcome": ".results", "ImportPlan": ".results",
    "ImportRequest": ".results", "Page": ".results", "ProjectCounts": ".results", "Status": ".results",
    "KEEP": ".session", "Loreline": ".session", "project_of": ".session",
    "Inbox": "..inbox", "StatusFacts": ".results", "browse": ".browse",
}

__all__ = ["Brief", "BriefView", "KEEP", "Inbox", "clean_turns", "Conflict", "Forgotten", "ImportOutcome", "ImportPlan", "ImportRequest",
           "Loreline", "Page", "ProjectCounts", "Status", "StatusFacts", "browse", "imports", "project_of",
           "recovery_steps", "serialize"]


def recovery_steps(problem: str, db: Path | None = None) -> tuple[str, list[str]]:
    """A damaged store (`problem`: the StoreCorruptError's line): one headline, and the steps
    that recover from it."""
    from .. import home
    from ..store import recovery

    return recovery.headline(problem), recovery.steps(db or home.db_path())


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = importlib.import_module(where, __name__)
    value = module if where.lstrip(".") == name else getattr(module, name)
    globals()[name] = value
    return value
