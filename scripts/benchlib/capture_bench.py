"""The hook entry's wall time next to `python -c pass` on the same interpreter.

Uses `loreline_hooks.bench.measure`: each figure is the median of many cold process starts
with a throwaway HOME (the floor is the interpreter's own start-up, measured in the same run).
"""

from __future__ import annotations

from loreline_hooks.bench import measure

from .registry import Context, Row, median

BUDGET_MS = 40.0


def hook_wall(ctx: Context) -> list[Row]:
    with ctx.step("timing the hook entry"):
        rounds = [measure(runs=15) for _ in range(max(3, ctx.runs))]
    results = rounds[len(rounds) // 2]

    def middle(name: str) -> float:
        return median([r[name]["median_ms"] for r in rounds])

    floor, stop, start = middle("python -c pass"), middle("Stop"), middle("SessionStart (memories)")
    figure = (f"Stop median {stop:.1f} ms, SessionStart with memories {start:.1f} ms "
              f"(floor `python -c pass` {floor:.1f} ms; {stop / floor:.1f}×)")
    return [Row("hook entry, wall", figure, max(stop, start), "ms", "median ≤ 40 ms",
                max(stop, start) <= BUDGET_MS, len(rounds), detail=results,
                note=f"median of {len(rounds)} rounds of 15 cold starts each")]
