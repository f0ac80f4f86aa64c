"""The application layer: the one thing every front end (the CLI, the language server) calls.

    front end ── parse input ──▶ api.Loreline / api.imports ──▶ beliefs, recall, pipeline, store
              ◀── render ────── results (frozen dataclasses) ──▶ api.serialize (one JSON shape)

A front end parses its input, calls this package and renders what comes back: text for a
terminal, or `serialize`'s JSON (snake_case for the CLI, `camel=True` for the LSP). It
never opens the store, runs SQL, or calls a stage of the pipeline itself.
"""

from __future__ import annotations

from pathlib import Path

from ..inbox import Inbox
from ..pipeline import clean_turns
from . import browse, imports, serialize
from .results import (Conflict, Forgotten, ImportOutcome, ImportPlan, ImportRequest, Page, ProjectCounts, Status,
                      StatusFacts)
from .session import KEEP, Loreline, project_of


def recovery_steps(problem: str, db: Path | None = None) -> tuple[str, list[str]]:
    """A damaged store (`problem`: the StoreCorruptError's line): one headline, and the steps
    that recover from it."""
    from .. import home
    from ..store import recovery

    return recovery.headline(problem), recovery.steps(db or home.db_path())


__all__ = ["KEEP", "Inbox", "clean_turns", "Conflict", "Forgotten", "ImportOutcome", "ImportPlan", "ImportRequest",
           "Loreline", "Page", "ProjectCounts", "Status", "StatusFacts", "browse", "imports", "project_of",
           "recovery_steps", "serialize"]
