"""Re-import of unchanged sessions: what a re-run costs when nothing changed.

A tree of `ctx.sessions` small sessions is imported once through
`pipeline.import_sessions` (ledger included) into a store in a temporary LORELINE_HOME;
then the same list is imported again, timed. Every session must come back `unchanged`
(one stat and one ledger lookup each, no parsing); the figure is milliseconds per session.
"""

from __future__ import annotations

from loreline import home, pipeline
from loreline.distill.rules import RulesDistiller
from loreline.store import Store

from .registry import Context, Row, median, timed

BUDGET_MS = 1.0
SESSION_KB = 12.0


def unchanged_sessions(ctx: Context) -> list[Row]:
    tree = ctx.tree("reimport", 0, count=ctx.sessions, fixed_kb=SESSION_KB)
    sessions = tree.session_list()
    with home.using(ctx.work / "reimport-home"), Store() as store:
        with ctx.step(f"first import of {len(sessions)} sessions"):
            first = pipeline.import_sessions(store, sessions, pipeline.Options(distiller=RulesDistiller()))
        unchanged: list[int] = []

        def again() -> None:
            report = pipeline.import_sessions(store, sessions, pipeline.Options(distiller=RulesDistiller()))
            unchanged.append(report.unchanged)

        per_session = [1000 * timed(again) / len(sessions) for _ in range(ctx.runs)]
    ms = median(per_session)
    all_skipped = all(n == len(sessions) for n in unchanged)
    return [Row(
        "re-import of unchanged sessions", f"{ms:.3f} ms per session ({len(sessions):,} sessions)", ms,
        "ms/session", f"≤ {BUDGET_MS:g} ms per session", ms <= BUDGET_MS and all_skipped, ctx.runs,
        {"ms_runs": per_session, "sessions": len(sessions), "first_import_memories": first.added,
         "unchanged_per_run": unchanged},
        "every session skipped by the ledger" if all_skipped else f"NOT all skipped: {unchanged}",
    )]
