"""The hook entry's wall time next to `python -c pass` on the same interpreter.

Uses `loreline_hooks.bench.measure`: each figure is the median of many cold process starts
with a throwaway HOME (the floor is the interpreter's own start-up, measured in the same run).
"""

from __future__ import annotations

from loreline_hooks.bench import measure

from .registry import Context, Row

BUDGET_MS = 40.0


def hook_wall(ctx: Context) -> list[Row]:
    with ctx.step("timing the hook entry"):
        results = measure(runs=max(15, 10 * ctx.runs))
    floor = results["python -c pass"]["median_ms"]
    stop = results["Stop"]["median_ms"]
    start = results["SessionStart (memories)"]["median_ms"]
    figure = (f"Stop median {stop:.1f} ms, SessionStart with memories {start:.1f} ms "
              f"(floor `python -c pass` {floor:.1f} ms; {stop / floor:.1f}×)")
    return [Row("hook entry, wall", figure, max(stop, start), "ms", "median ≤ 40 ms",
                max(stop, start) <= BUDGET_MS, int(results["Stop"]["runs"]), detail=results)]
