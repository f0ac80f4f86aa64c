"""`loreline import sessions --dry-run` with the offline `rules` backend against bare decoding.

The measured path is the whole dry-run import as the CLI runs it — `pipeline.import_sessions`
with the rules distiller and `dry_run=True` into a store in a temporary LORELINE_HOME: parse,
sanitize + redact, chunk, the rules classifier, evidence validation, the preview. The floor is
`orjson.loads` on every line of the same files.

The budgeted figure is a cost per MB: two trees of different sizes (`Context.slope_mb`, 44 and
71 MB by default) are each imported and decoded, and the difference in time is divided by the
difference in MB, for the import and for the floor alike; the ratio of the two slopes is the
figure. Fixed costs (opening the store, compiling patterns on the first text, the first file's
cold start) fall out of a difference, so they can neither hide a per-MB cost nor be mistaken for
one. Each side is the best of several runs, the import and the floor alternating on each tree, so
other load on the machine falls on both. The ratio over the whole main tree is reported beside it.
"""

from __future__ import annotations

from pathlib import Path

from loreline import home as loreline_home
from loreline import pipeline
from loreline.distill.rules import RulesDistiller
from loreline.store import Store

from .registry import Context, Row, mb, median, timed
from .throughput import orjson_floor

BUDGET_RATIO = 2.5  # a MB more costs the dry-run import at most 2.5× what it costs bare orjson.loads
SLOPE_RUNS = 3  # at least this many runs per tree: each side of the slope is the best of them


def dry_run_import(paths: list[Path], home: Path) -> int:
    """Import `paths` as `loreline import sessions --dry-run --backend rules` would; memories previewed."""
    options = pipeline.Options(distiller=RulesDistiller(), dry_run=True)
    with loreline_home.using(home), Store() as store:
        pipeline.import_sessions(store, [(p, "claude-code") for p in paths], options)
    return sum(len(accepted) for _, accepted in options.preview)


def best_times(ctx: Context, paths: list[Path], name: str, runs: int) -> tuple[float, float]:
    """(floor, import) seconds over `paths`, each the best of `runs` alternating runs."""
    orjson_floor(paths)  # warm the page cache
    floors, imports = [], []
    for run in range(runs):
        home = ctx.work / f"dryrun-{name}-{run}"
        if run % 2 == 0:
            floors.append(timed(lambda: orjson_floor(paths)))
            imports.append(timed(lambda: dry_run_import(paths, home)))
        else:
            imports.append(timed(lambda: dry_run_import(paths, home)))
            floors.append(timed(lambda: orjson_floor(paths)))
    return min(floors), min(imports)


def per_mb_slope(ctx: Context) -> Row:
    small_mb, large_mb = ctx.slope_mb
    small, large = ctx.tree("slope-small", small_mb), ctx.tree("slope-large", large_mb)
    runs = max(SLOPE_RUNS, ctx.runs)
    small_floor, small_import = best_times(ctx, list(small.sessions), "small", runs)
    large_floor, large_import = best_times(ctx, list(large.sessions), "large", runs)
    extra_mb = mb(large.main_bytes) - mb(small.main_bytes)
    floor_ms = 1000 * (large_floor - small_floor) / extra_mb
    import_ms = 1000 * (large_import - small_import) / extra_mb
    ratio = import_ms / floor_ms if floor_ms > 0 else float("inf")
    return Row(
        "import --dry-run (rules) per MB vs orjson.loads",
        f"{ratio:.2f}× the floor's slope ({import_ms:.2f} vs {floor_ms:.2f} ms per MB)", ratio,
        "× orjson slope", f"≤ {BUDGET_RATIO}×", ratio <= BUDGET_RATIO, runs,
        {"import_ms_per_mb": import_ms, "floor_ms_per_mb": floor_ms,
         "trees_mb": [mb(small.main_bytes), mb(large.main_bytes)],
         "floor_s": [small_floor, large_floor], "import_s": [small_import, large_import]},
        f"slope between trees of {mb(small.main_bytes):.0f} and {mb(large.main_bytes):.0f} MB of main-session "
        f"bytes ({len(small.sessions)} and {len(large.sessions)} sessions), best of {runs} runs each; "
        f"whole imports {small_import:.2f} s and {large_import:.2f} s",
    )


def whole_tree(ctx: Context) -> Row:
    tree = ctx.main_tree()
    paths = list(tree.sessions)
    orjson_floor(paths)  # warm the page cache
    ratios: list[float] = []
    for run in range(ctx.runs):
        home = ctx.work / f"dryrun-home-{run}"
        if run % 2 == 0:
            floor_s = timed(lambda: orjson_floor(paths))
            path_s = timed(lambda: dry_run_import(paths, home))
        else:
            path_s = timed(lambda: dry_run_import(paths, home))
            floor_s = timed(lambda: orjson_floor(paths))
        ratios.append(path_s / floor_s)
    previewed = dry_run_import(paths, ctx.work / "dryrun-home-count")
    ratio = median(ratios)
    return Row(
        "import --dry-run (rules) vs orjson.loads, whole tree", f"{ratio:.2f}× the time of orjson.loads", ratio,
        "× orjson time", "—", None, ctx.runs,
        {"ratio_runs": ratios, "raw_mb": mb(tree.main_bytes), "sessions": len(paths), "memories_previewed": previewed},
        f"over {mb(tree.main_bytes):.0f} MB of main-session bytes ({len(paths)} sessions), fixed costs included; "
        f"{previewed} memories previewed",
    )


def dry_run_vs_orjson(ctx: Context) -> list[Row]:
    return [per_mb_slope(ctx), whole_tree(ctx)]
