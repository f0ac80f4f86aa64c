"""What a benchmark is: a function from a `Context` to result `Row`s.

A benchmark never asserts: it measures, takes the median of `ctx.runs` runs (or
`ctx.heavy_runs` for the heavy ones, and says so in `Row.runs`), and states its budget
(docs/benchmarks.md#budgets) next to the figure with `passed` (None when there is no budget).
Trees are generated on first use and shared between benchmarks through `Context.tree()`.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import gen


@dataclass(frozen=True, slots=True)
class Row:
    name: str
    figure: str  # the human-readable figure, e.g. "0.62× orjson.loads (290 vs 470 MB/s)"
    value: float  # the headline number, in `unit`
    unit: str
    budget: str  # the budget (docs/benchmarks.md#budgets), or "—"
    passed: bool | None
    runs: int
    detail: dict[str, Any] = field(default_factory=dict)
    note: str = ""

    def verdict(self) -> str:
        return "—" if self.passed is None else ("pass" if self.passed else "FAIL")


@dataclass(slots=True)
class Context:
    work: Path  # scratch space, removed afterwards unless kept
    size_mb: float = 200.0  # the main tree: throughput, redaction, peak RSS
    slope_mb: tuple[float, float] = (44.0, 71.0)  # the two trees of the dry-run import's cost per MB
    rss_size_mb: float | None = None  # defaults to size_mb (the same tree)
    sessions: int = 1000  # re-import of unchanged sessions
    memories: tuple[int, ...] = (10_000, 100_000)
    project_memories: int = 10_000
    queries: int = 200
    runs: int = 3
    heavy_runs: int = 1
    seed: int = 1
    quiet: bool = False
    trees: dict[str, gen.Tree] = field(default_factory=dict)

    def tree(self, name: str, size_mb: float, **options: Any) -> gen.Tree:
        """A generated tree under `work/<name>`, made once and then shared."""
        if name not in self.trees:
            with self.step(f"generating the {name} tree ({size_mb:g} MB)" if "count" not in options
                           else f"generating the {name} tree ({options['count']} sessions)"):
                self.trees[name] = gen.generate(self.work / name, size_mb, seed=self.seed, **options)
        return self.trees[name]

    def main_tree(self) -> gen.Tree:
        return self.tree("main", self.size_mb)

    def log(self, message: str) -> None:
        if not self.quiet:
            print(f"  {message}", file=sys.stderr, flush=True)

    @contextmanager
    def step(self, what: str) -> Iterator[None]:
        started = time.perf_counter()
        self.log(what + " …")
        yield
        self.log(f"{what}: {time.perf_counter() - started:.1f} s")


Benchmark = Callable[[Context], list[Row]]


def median(values: Sequence[float]) -> float:
    return float(statistics.median(values))


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0–100) by linear interpolation between closest ranks."""
    ordered = sorted(values)
    if not ordered:
        return 0.0
    at = (len(ordered) - 1) * q / 100.0
    low = int(at)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (at - low)


def timed(fn: Callable[[], Any]) -> float:
    """Seconds one call of `fn` takes."""
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


def mb(n_bytes: float) -> float:
    return n_bytes / (1024 * 1024)
