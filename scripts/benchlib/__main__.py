"""`scripts/bench`: run the benchmarks, print one table, write JSON and docs/benchmarks.md."""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import orjson

from . import docs, startup_bench, suite
from .registry import Context, Row

RESULTS = docs.ROOT / ".bench" / "results.json"


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="scripts/bench", description="Loreline's benchmarks against the budgets of docs/benchmarks.md#budgets.")
    p.add_argument("--size-mb", type=float, default=200.0,
                   help="size of the generated tree for throughput, redaction and peak RSS (200)")
    p.add_argument("--rss-size-mb", type=float, help="a different tree size for the peak-RSS import only")
    p.add_argument("--slope-mb", default="44,71",
                   help="the two tree sizes whose difference gives the dry-run import's cost per MB (44,71)")
    p.add_argument("--sessions", type=int, default=1000, help="sessions in the re-import benchmark (1000)")
    p.add_argument("--memories", default="10000,100000",
                   help="store sizes for recall, comma-separated (10000,100000)")
    p.add_argument("--project-memories", type=int, default=10_000, help="memories in the queried project (10000)")
    p.add_argument("--queries", type=int, default=200, help="recall queries per run (200)")
    p.add_argument("--runs", type=int, default=3, help="runs per figure; the median is reported (3)")
    p.add_argument("--heavy-runs", type=int, default=1, help="runs of the whole-tree import for peak RSS (1)")
    p.add_argument("--seed", type=int, default=1, help="seed of the generated trees (1)")
    p.add_argument("--only", help="comma-separated benchmark names: " + ", ".join(suite.BENCHMARKS))
    p.add_argument("--work", type=Path, help="scratch directory (default: a temporary one, removed after)")
    p.add_argument("--json", type=Path, default=RESULTS,
                   help=f"where to write results ({RESULTS.relative_to(docs.ROOT)})")
    p.add_argument("--docs", type=Path, default=docs.DOC, help="the Markdown file whose bench section is rewritten")
    p.add_argument("--no-docs", action="store_true", help="do not rewrite the bench section of docs/benchmarks.md")
    p.add_argument("--strict", action="store_true", help="exit 1 when a figure misses its budget")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        names = _selected(args.only)
        memories = _sizes(args.memories)
        slope = _slope(args.slope_mb)
        _check(args, memories)
    except ValueError as err:
        print(f"bench: {err}", file=sys.stderr)
        return 2
    work = args.work or Path(tempfile.mkdtemp(prefix="loreline-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    ctx = Context(work, size_mb=args.size_mb, rss_size_mb=args.rss_size_mb, slope_mb=slope, sessions=args.sessions,
                  memories=memories, project_memories=args.project_memories, queries=args.queries,
                  runs=max(1, args.runs), heavy_runs=max(1, args.heavy_runs), seed=args.seed)
    started = time.perf_counter()
    try:
        rows = run(ctx, names)
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    elapsed = time.perf_counter() - started
    info = docs.machine()
    print(render(rows, info, elapsed))
    write_json(args.json, rows, info, elapsed, ctx)
    # a partial run must not replace the committed full table (another file is the caller's choice);
    # the start-up figures have a section of their own, written whenever they were measured
    if not args.no_docs and (not args.only or args.docs != docs.DOC):
        docs.write_section("bench", markdown(rows, info, elapsed, ctx), args.docs)
    started_up = [r for r in rows if r.name.startswith("start-up: ")]
    if not args.no_docs and started_up:
        docs.write_section("startup", startup_bench.markdown(started_up, docs.machine_line(info)), args.docs)
    return 1 if args.strict and any(r.passed is False for r in rows) else 0


def _sizes(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(x.replace("_", "")) for x in text.split(",") if x.strip())
    except ValueError:
        raise ValueError(f"--memories takes comma-separated store sizes, e.g. 10000,100000 (got {text!r})") from None


def _slope(text: str) -> tuple[float, float]:
    try:
        sizes = [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        sizes = []
    if len(sizes) != 2 or not 0 < sizes[0] < sizes[1]:
        raise ValueError(f"--slope-mb takes two growing tree sizes in MB, e.g. 44,71 (got {text!r})")
    return sizes[0], sizes[1]


def _check(args: argparse.Namespace, memories: tuple[int, ...]) -> None:
    """Sizes that would make a benchmark meaningless are refused up front."""
    for flag, value in (("--size-mb", args.size_mb), ("--sessions", args.sessions),
                        ("--project-memories", args.project_memories), ("--queries", args.queries)):
        if value <= 0:
            raise ValueError(f"{flag} must be greater than 0 (got {value:g})")
    if args.rss_size_mb is not None and args.rss_size_mb <= 0:
        raise ValueError(f"--rss-size-mb must be greater than 0 (got {args.rss_size_mb:g})")
    if not memories or min(memories) <= 0:
        raise ValueError("--memories takes positive store sizes, e.g. 10000,100000")


def _selected(only: str | None) -> list[str]:
    if not only:
        return list(suite.BENCHMARKS)
    names = [n.strip() for n in only.split(",") if n.strip()]
    unknown = [n for n in names if n not in suite.BENCHMARKS]
    if unknown:
        raise ValueError(f"unknown benchmark {unknown[0]!r}; choose from {', '.join(suite.BENCHMARKS)}")
    return names


def run(ctx: Context, names: list[str]) -> list[Row]:
    rows: list[Row] = []
    for name in names:
        with ctx.step(f"[{name}]"):
            rows.extend(suite.BENCHMARKS[name](ctx))
    return rows


def render(rows: list[Row], info: dict[str, Any], elapsed: float) -> str:
    headers = ["benchmark", "figure", "budget (docs/benchmarks.md#budgets)", "result", "runs"]
    table = [[r.name, r.figure, r.budget, r.verdict(), str(r.runs)] for r in rows]
    table.extend([what, "not measured yet", budget, "—", "0"] for what, budget in suite.PENDING)
    widths = [max(len(h), *(len(row[i]) for row in table)) for i, h in enumerate(headers)]
    line = "  ".join(h.ljust(w) for h, w in zip(headers, widths))
    out = ["", docs.machine_line(info), "", line, "-" * len(line)]
    out.extend("  ".join(cell.ljust(w) for cell, w in zip(row, widths)) for row in table)
    out.extend(["", f"total {elapsed:.0f} s"])
    return "\n".join(out)


def markdown(rows: list[Row], info: dict[str, Any], elapsed: float, ctx: Context) -> str:
    table = [[r.name, r.figure, r.budget, r.verdict(), str(r.runs), r.note] for r in rows]
    table.extend([what, "not measured yet", budget, "—", "0", ""] for what, budget in suite.PENDING)
    return "\n".join([
        "## Benchmarks (`scripts/bench`)", "",
        f"Measured {docs.machine_line(info)}.", "",
        f"Settings: tree {ctx.size_mb:g} MB (seed {ctx.seed}), {ctx.sessions:,} sessions for re-import, "
        f"stores of {', '.join(f'{m:,}' for m in ctx.memories)} memories ({ctx.project_memories:,} in the project), "
        f"{ctx.queries} queries per run, {ctx.runs} runs per figure ({ctx.heavy_runs} for the whole-tree import). "
        f"Whole run: {elapsed:.0f} s.", "",
        docs.markdown_table(["benchmark", "figure", "budget", "result", "runs", "note"], table), "",
        METHOD,
    ])


METHOD = """How each figure is taken (`scripts/benchlib/`; `scripts/bench --help` for the sizes):

- The tree is generated with a fixed seed in Claude Code's real shape (`gen.py`): multi-KB file reads
  and logs (about 1 in 100 tool outputs over 100 KB), base64 images, thinking, progress / attachment /
  system / snapshot lines, subagent sidecars, fake secrets, durable statements in about one prompt in
  ten. Kept text is about 2% of the raw bytes; the real fixtures in `tests/fixtures/real/` keep about 1%.
- Throughput: `registry.parse` + `pipeline.clean_turns` + `chunk.chunk` over every main session,
  against the floor of reading every line and calling `orjson.loads` on it, both in the same run; the
  ratio is per run, the median of the runs is shown. Redaction and sanitizing alone run over the kept
  text (what the parser returns), next to the same floor.
- Re-import: `pipeline.import_sessions` over the same 1,000 sessions a second time, with the ledger, in
  a temporary `LORELINE_HOME`; every session must come back unchanged.
- Recall: `recall.recall` (limit 10) per query; stores filled in bulk in one transaction. The floor is
  the same question with no index: a cosine scan of all the project's vectors (`vec_distance_cosine`
  over a plain BLOB column) plus a scan of all its text counting query words, fused the same way.
- Store size: the same bulk fill, once with 1,000 projects of one memory and once with one project
  of the largest store size; the database file after a WAL checkpoint, less an empty store's, per
  project and per 1,000 memories, with the vector index's pages (SQLite's `dbstat`) apart.
- The load figure next to the cores is the 1-minute load average when the run ended: the benchmark
  itself keeps about one core busy, so a higher figure means other work shared the machine and the
  timings are pessimistic.
- Dry-run import: `pipeline.import_sessions` with the offline rules distiller and `dry_run=True` (what
  `loreline import sessions --dry-run` does without a key: parse, sanitize + redact, chunk, the rules
  classifier, evidence validation), timed against `orjson.loads` on the same lines in the same run.
  The budgeted figure is per MB: two trees (`--slope-mb`, 44 and 71 MB) are each imported and decoded,
  best of three alternating runs, and the difference in time over the difference in MB is taken for
  both; the figure is the ratio of the two slopes (budget ≤ 2.5×), so fixed costs (the store, the
  first text's pattern compilation) cannot hide in it. The ratio over the whole main tree is beside it.
- Peak RSS: discovery + `import_sessions` (offline rules distiller) over the whole tree in a child
  process; the figure is the child's own `VmHWM` (on Linux `ru_maxrss` inherits the parent's peak
  across exec, so it is not used)."""


def write_json(path: Path, rows: list[Row], info: dict[str, Any], elapsed: float, ctx: Context) -> None:
    settings = {"size_mb": ctx.size_mb, "slope_mb": list(ctx.slope_mb), "rss_size_mb": ctx.rss_size_mb or ctx.size_mb, "sessions": ctx.sessions,
                "memories": list(ctx.memories), "project_memories": ctx.project_memories, "queries": ctx.queries,
                "runs": ctx.runs, "heavy_runs": ctx.heavy_runs, "seed": ctx.seed}
    data = {"machine": info, "settings": settings, "elapsed_s": elapsed, "results": [asdict(r) for r in rows],
            "pending": [{"what": w, "budget": b} for w, b in suite.PENDING]}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(orjson.dumps(data, option=orjson.OPT_INDENT_2) + b"\n")


if __name__ == "__main__":
    sys.exit(main())
