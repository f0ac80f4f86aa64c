"""`loreline import sessions --dry-run` with the offline `rules` backend against bare decoding.

The measured path is the whole dry-run import as the CLI runs it — `pipeline.import_sessions`
with the rules distiller and `dry_run=True` into a store in a temporary LORELINE_HOME: parse,
sanitize + redact, chunk, the rules classifier, evidence validation, the preview. The floor is
`orjson.loads` on every line of the same files. Both are timed in the same run, alternating,
so other load on the machine falls on both; the ratio is taken within that run.
"""

from __future__ import annotations

from pathlib import Path

from loreline import home as loreline_home
from loreline import pipeline
from loreline.distill.rules import RulesDistiller
from loreline.store import Store

from .registry import Context, Row, mb, median, timed
from .throughput import orjson_floor

BUDGET_RATIO = 2.5  # the dry-run import may take at most 2.5× the time of bare orjson.loads


def dry_run_import(paths: list[Path], home: Path) -> int:
    """Import `paths` as `loreline import sessions --dry-run --backend rules` would; memories previewed."""
    options = pipeline.Options(distiller=RulesDistiller(), dry_run=True)
    with loreline_home.using(home), Store() as store:
        pipeline.import_sessions(store, [(p, "claude-code") for p in paths], options)
    return sum(len(accepted) for _, accepted in options.preview)


def dry_run_vs_orjson(ctx: Context) -> list[Row]:
    tree = ctx.main_tree()
    paths = list(tree.sessions)
    orjson_floor(paths)  # warm the page cache
    ratios: list[float] = []
    previewed = 0
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
    return [Row(
        "import --dry-run (rules) vs orjson.loads", f"{ratio:.2f}× the time of orjson.loads", ratio,
        "× orjson time", f"≤ {BUDGET_RATIO}×", ratio <= BUDGET_RATIO, ctx.runs,
        {"ratio_runs": ratios, "raw_mb": mb(tree.main_bytes), "sessions": len(paths), "memories_previewed": previewed},
        f"over {mb(tree.main_bytes):.0f} MB of main-session bytes ({len(paths)} sessions); "
        f"{previewed} memories previewed",
    )]
