"""Extraction eval: import the labelled sessions with one backend, then score the store.

The sessions are found the way a user's would be (`registry.discover_claude` over the set,
no window, no settling delay), so subagent sidecars are left out by discovery itself, and
imported in the labels' order (the cases are written oldest first) into a fresh store in a
temporary LORELINE_HOME. Discovery and labels must agree; a disagreement is reported.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from loreline.assistants import registry
from loreline import home as loreline_home
from loreline import pipeline
from loreline.distill import Distiller
from loreline.models import ImportReport
from loreline.store import Store
from loreline.store import memories as rows
from loreline.transcripts import discover

from . import dataset, metrics


@dataclass(slots=True)
class Run:
    backend: str
    score: metrics.Score
    report: ImportReport
    undiscovered: list[str] = field(default_factory=list)  # labelled, not found by discovery
    unlabelled: list[str] = field(default_factory=list)  # found by discovery, not labelled


def run(name: str, distiller: Distiller, cases: list[dataset.CaseLabel], sessions_dir: Path, home: Path) -> Run:
    found = registry.discover_claude(sessions_dir, days=1_000_000, max_sessions=1_000_000, settle_seconds=0)
    discovered = {_relative(f.path, sessions_dir) for f in found.sessions}
    labelled = [s.path for c in cases for s in c.sessions]
    order = [(sessions_dir / p, "claude-code") for p in labelled if p in discovered]
    with loreline_home.using(home), Store() as store:
        report = pipeline.import_sessions(store, order, pipeline.Options(distiller=distiller))
        produced = stored(store, sessions_dir)
    return Run(name, metrics.score(cases, produced), report,
               [p for p in labelled if p not in discovered], sorted(discovered - set(labelled)))


def stored(store: Store, sessions_dir: Path) -> list[metrics.Produced]:
    """Every memory in the store, any status, with its sources relative to the set."""
    memories, _ = rows.query(store, rows.Filter(status=None, limit=1_000_000))
    return [metrics.Produced(m.id, m.project, m.kind, m.text, m.status,
                             tuple((_relative(Path(p.session_path), sessions_dir), p.line_start, p.line_end)
                                   for p in m.provenance))
            for m in memories]


def _relative(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.as_posix()
