"""What the default embedder costs: loading it, embedding a memory, embedding a query.

A fresh process loads the embedder (`default_embedder()` then one embedding: for the sentence
model that is reading its weights), then embeds `ctx.queries` memory texts from the recall
benchmark's templates and as many of its queries, one at a time as an import and recall do.
Memories per second is what an import's embedding step can reach.
"""

from __future__ import annotations

import random
import subprocess
import sys
import time
from collections.abc import Callable

from loreline.embed import default_embedder

from . import recall_bench
from .registry import Context, Row, median, percentile

LOAD = ("import time; t = time.perf_counter(); from loreline.embed import default_embedder; "
        "default_embedder().embed('warm up'); print(time.perf_counter() - t)")


def embedding_cost(ctx: Context) -> list[Row]:
    embedder = default_embedder()
    loads = [1000 * float(subprocess.run([sys.executable, "-c", LOAD], capture_output=True, text=True,
                                         check=True).stdout) for _ in range(ctx.runs)]
    items = recall_bench.specs(max(ctx.queries, 50), 0, ctx.seed)
    rng = random.Random(ctx.seed)
    queries = [rng.choice(recall_bench.QUERIES) for _ in range(ctx.queries)]
    memory_ms, query_ms = [], []
    for _ in range(ctx.runs):
        memory_ms.append(_times(embedder.embed, [s.text for s in items]))
        query_ms.append(_times(embedder.embed, queries))
    per_memory = median([median(run) for run in memory_ms])
    per_query = median([median(run) for run in query_ms])
    p95 = median([percentile(run, 95) for run in query_ms])
    name = embedder.fingerprint
    return [
        Row("embedder: load in a fresh process", f"{median(loads):.0f} ms ({name})", median(loads), "ms", "—", None,
            ctx.runs, {"runs_ms": loads}, "import, weights and one embedding; the language server does it on first use"),
        Row("embedder: a memory text", f"{per_memory:.2f} ms median, {1000 / per_memory:,.0f} memories/s",
            per_memory, "ms", "—", None, ctx.runs, {"texts": len(items)}, "what an import adds per new memory"),
        Row("embedder: a query", f"p50 {per_query:.2f} ms, p95 {p95:.2f} ms", per_query, "ms", "—", None, ctx.runs,
            {"queries": len(queries)}, "included in the recall figures"),
    ]


def _times(fn: Callable[[str], bytes], texts: list[str]) -> list[float]:
    out = []
    for text in texts:
        started = time.perf_counter()
        fn(text)
        out.append(1000 * (time.perf_counter() - started))
    return out
