"""The registry: every benchmark `scripts/bench` runs, in order.

Adding a benchmark is adding one function `(Context) -> list[Row]` here (and, when it
covers a budget (docs/benchmarks.md#budgets) listed in PENDING, removing that entry). Names are what
`scripts/bench --only NAME` selects.
"""

from __future__ import annotations

from . import (capture_bench, dryrun_bench, embed_bench, lsp_bench, mcp_bench, recall_bench, reimport, rss, size_bench,
               stale_bench, startup_bench, team_bench, throughput, viewer_bench)
from .registry import Benchmark

BENCHMARKS: dict[str, Benchmark] = {
    "hook": capture_bench.hook_wall,  # first: process start-up timings want a quiet machine
    "startup": startup_bench.startup,
    "throughput": throughput.pipeline_vs_orjson,
    "redaction": throughput.redaction,
    "dry-run": dryrun_bench.dry_run_vs_orjson,
    "reimport": reimport.unchanged_sessions,
    "embed": embed_bench.embedding_cost,
    "recall": recall_bench.recall_latency,
    "store-size": size_bench.store_size,
    "peak-rss": rss.peak_rss,
    "lsp": lsp_bench.lsp_timings,
    "mcp": mcp_bench.mcp_timings,
    "stale": stale_bench.stale_checks,
    "team": team_bench.team_store,
    "viewer": viewer_bench.viewer_timings,
}

#: budgets (docs/benchmarks.md#budgets) that no benchmark measures yet: (what, budget)
PENDING: tuple[tuple[str, str], ...] = ()
