"""The hook entry's wall time next to `python -c pass` on the same interpreter.

Uses `loreline_hooks.bench.measure`: each figure is the median of many cold process starts
with a throwaway HOME (the floor is the interpreter's own start-up, measured in the same run).
Per-prompt recall (`UserPromptSubmit`) is timed on the sample store, by words and by meaning
(the warm recall process answering), and by words on a project of `PROMPT_MEMORIES` generated
memories, its lookup included.
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Callable
from pathlib import Path

from loreline_hooks.bench import PROMPT_BUDGET_MS, UNRELATED_PROMPT, hook_command, measure, time_runs

from . import texts
from .registry import Context, Row, median

BUDGET_MS = 40.0
PROMPT_RATIO = 4.0  # a one-sentence prompt: wall time at most 4× `python -c pass`'s, measured in the same run
PROMPT_MEMORIES = 3000
PROJECT = "/bench/prompt-project"


def hook_wall(ctx: Context) -> list[Row]:
    with ctx.step("timing the hook entry"):
        rounds = [measure(runs=15) for _ in range(max(3, ctx.runs))]
    results = rounds[len(rounds) // 2]

    def middle(name: str, figure: str = "median_ms") -> float:
        return median([r[name][figure] for r in rounds])

    floor, stop, start = middle("python -c pass"), middle("Stop"), middle("SessionStart (memories)")
    figure = (f"Stop median {stop:.1f} ms, SessionStart with memories {start:.1f} ms "
              f"(floor `python -c pass` {floor:.1f} ms; {stop / floor:.1f}×)")
    hit, miss = middle("UserPromptSubmit (relevant)"), middle("UserPromptSubmit (unrelated)")
    warm_hit, warm_miss = middle("UserPromptSubmit (relevant, warm)"), middle("UserPromptSubmit (unrelated, warm)")
    long, warm_long = middle("UserPromptSubmit (long)"), middle("UserPromptSubmit (long, warm)")
    big_hit, big_miss = _large_project(ctx)
    worst = max(hit, miss, long, warm_hit, warm_miss, warm_long, big_hit, big_miss)
    prompt = (f"by meaning (warm process) relevant {warm_hit:.1f} ms, unrelated {warm_miss:.1f} ms, four sentences "
              f"{warm_long:.1f} ms; by words relevant {hit:.1f} ms, unrelated {miss:.1f} ms, four sentences "
              f"{long:.1f} ms on the sample store, {big_hit:.1f} / {big_miss:.1f} ms over {PROMPT_MEMORIES} "
              f"memories (floor `python -c pass` {floor:.1f} ms)")
    return [Row("hook entry, wall", figure, max(stop, start), "ms", "median ≤ 40 ms",
                max(stop, start) <= BUDGET_MS, len(rounds), detail=results,
                note=f"median of {len(rounds)} rounds of 15 cold starts each"),
            Row("per-prompt recall hook, wall", prompt, worst, "ms", f"median ≤ {PROMPT_BUDGET_MS:.0f} ms",
                worst <= PROMPT_BUDGET_MS, len(rounds), note="UserPromptSubmit, lookup included, cold starts"),
            _prompt_ratios(rounds, middle)]


def _prompt_ratios(rounds: list[dict[str, dict[str, float]]], middle: Callable[[str, str], float]) -> Row:
    """The prompt hook's wall time (what the person waits) and CPU time (what the hook itself
    spends) against `python -c pass`'s, one-sentence prompts, by meaning when the warm process
    answered in this run, else by words."""
    how = "warm" if all("UserPromptSubmit (relevant, warm)" in r for r in rounds) else None
    names = [f"UserPromptSubmit ({label}{', warm' if how else ''})" for label in ("relevant", "unrelated")]
    floor_wall, floor_cpu = middle("python -c pass", "median_ms"), middle("python -c pass", "cpu_median_ms")
    wall = max(middle(name, "median_ms") for name in names)
    cpu = max(middle(name, "cpu_median_ms") for name in names)
    ratio, cpu_ratio = wall / floor_wall, cpu / max(floor_cpu, 1e-9)
    words = max(middle(f"UserPromptSubmit ({label})", "median_ms") for label in ("relevant", "unrelated"))
    figure = (f"{'by meaning' if how else 'by words'}: wall {wall:.1f} ms = {ratio:.1f}× the floor's "
              f"{floor_wall:.1f} ms, CPU {cpu:.1f} ms = {cpu_ratio:.1f}× the floor's {floor_cpu:.1f} ms"
              + (f"; by words: wall {words / floor_wall:.1f}×" if how else ""))
    return Row("per-prompt recall hook vs python -c pass", figure, ratio, "× floor wall",
               f"wall ≤ {PROMPT_RATIO:.0f}× python -c pass", ratio <= PROMPT_RATIO, len(rounds),
               {"wall_ms": wall, "cpu_ms": cpu, "floor_wall_ms": floor_wall, "floor_cpu_ms": floor_cpu,
                "cpu_ratio": cpu_ratio, "by": "meaning" if how else "words"},
               "UserPromptSubmit, one-sentence prompts (the slower of relevant and unrelated), cold starts; "
               "the wall time includes the wait for the warm process's answer")


def _large_project(ctx: Context) -> tuple[float, float]:
    """Medians of the prompt hook (a prompt two words of one memory match; an unrelated one)
    over a project of `PROMPT_MEMORIES` generated memories."""
    home = ctx.work / "prompt-home"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["LORELINE_HOME"] = str(home)
    env["LORELINE_PROMPT_RECALL"] = "words"
    rng = random.Random(ctx.seed)
    with ctx.step(f"filling a project with {PROMPT_MEMORIES} memories"):
        target = _fill(home, rng)
    hook = [*hook_command(), "UserPromptSubmit"]
    hits, misses = [], []
    for n in range(max(3, ctx.runs)):
        payloads = [{"session_id": f"b-{n}-{i}", "cwd": PROJECT, "hook_event_name": "UserPromptSubmit",
                     "prompt": f"Why does {target} break the build?"} for i in range(15)]
        hits.append(time_runs(hook, [json.dumps(p).encode() for p in payloads], env, 15)["median_ms"])
        miss = [json.dumps({**p, "prompt": UNRELATED_PROMPT}).encode() for p in payloads]
        misses.append(time_runs(hook, miss, env, 15)["median_ms"])
    return median(hits), median(misses)


def _fill(home: os.PathLike[str], rng: random.Random) -> str:
    """The store at `home` with the project's memories; returns two words one memory holds."""
    from loreline.store import Store
    from loreline.store import memories as store_memories

    with Store(Path(home) / "loreline.db") as store, store.write():
        for n in range(PROMPT_MEMORIES):
            kind = rng.choice(("preference", "decision", "fact", "procedure"))
            text = f"{texts.sentence(rng)} Marker{n} zeta{n}."
            store_memories.insert(store, store_memories.NewMemory(PROJECT, kind, text, None, "bench"))
    pick = rng.randrange(PROMPT_MEMORIES)
    return f"marker{pick} and zeta{pick}"
