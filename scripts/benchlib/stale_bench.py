"""Staleness checks: the cost of checking one saved file, and of a full check of a project,
with `--project-memories` memories (10,000) tied to files of a 10,000-file git repository.

Each memory is tied to one to three random files and anchored the way an import anchors it
(`staleness.anchor_files`). Before the timed runs a few files are rewritten (1%) and a few
deleted (0.2%), so the checks do real work: a full check flags memories and asks git once
for renames. The on-save figure is a check of one file at a time (p50 and p95 over
`--queries` files); the full figure re-reads every tied file (a worker run, an import).
"""

from __future__ import annotations

import os
import random
import statistics
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from loreline import staleness
from loreline.store import Store
from loreline.store import memories as rows

from . import texts
from .registry import Context, Row

FILES = 10_000
SAVE_BUDGET_MS = 50.0
FULL_BUDGET_S = 5.0


def stale_checks(ctx: Context) -> list[Row]:
    repo = ctx.work / "stale-repo"
    with ctx.step(f"a git repository of {FILES:,} files"):
        names = _repo(repo, ctx.seed)
    with ctx.step(f"anchoring {ctx.project_memories:,} memories to its files"):
        store = _store(ctx.work / "stale" / "loreline.db", repo, names, ctx.project_memories, ctx.seed)
    _disturb(repo, names, ctx.seed)
    with store:
        save = _save_checks(store, str(repo), names, ctx.queries, ctx.seed)
        full = [_seconds(lambda: staleness.check(store, str(repo))) for _ in range(ctx.runs)]
        ties = int(store.scalar("SELECT count(*) FROM memory_files"))
        stale = int(store.scalar("SELECT count(*) FROM memories WHERE stale IS NOT NULL"))
    p50, p95 = statistics.median(save), _p95(save)
    full_s = statistics.median(full)
    detail = {"memories": ctx.project_memories, "files": FILES, "ties": ties, "stale_after": stale}
    return [
        Row("stale check on save", f"p50 {p50:.2f} ms, p95 {p95:.2f} ms (one file, {ctx.project_memories:,} "
            f"memories, {FILES:,}-file repo)", p95, "ms", f"p95 ≤ {SAVE_BUDGET_MS:g} ms", p95 <= SAVE_BUDGET_MS,
            ctx.runs, {**detail, "p50_ms": p50}),
        Row("stale full check", f"{full_s:.2f} s for {ties:,} file ties of {ctx.project_memories:,} memories "
            f"({stale} flagged)", full_s, "s", f"≤ {FULL_BUDGET_S:g} s", full_s <= FULL_BUDGET_S, ctx.runs, detail),
    ]


def _repo(repo: Path, seed: int) -> list[str]:
    rng = random.Random(seed)
    names = [f"pkg{i // 100:03d}/mod_{i:05d}.py" for i in range(FILES)]
    for name in names:
        path = repo / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(f"def f{j}():\n    return {texts.fill(rng, rng.choice(texts.DURABLE))!r}"
                                  for j in range(rng.randint(5, 40))) + "\n")
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "bench")
    return names


def _git(repo: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b", "GIT_COMMITTER_NAME": "b",
           "GIT_COMMITTER_EMAIL": "b@b"}
    subprocess.run(["git", "-C", str(repo), *args], check=True, env=env, capture_output=True)


def _store(path: Path, repo: Path, names: list[str], count: int, seed: int) -> Store:
    rng = random.Random(seed + 1)
    path.parent.mkdir(parents=True, exist_ok=True)
    store = Store(path)
    with store.write():
        for i in range(count):
            mid = rows.insert(store, rows.NewMemory(str(repo), "fact", f"memory {i} " + texts.fill(
                rng, rng.choice(texts.DURABLE)), None, "bench"))
            rows.add_files(store, mid, rng.sample(names, rng.randint(1, 3)))
            staleness.anchor_files(store, str(repo), mid)
    return store


def _disturb(repo: Path, names: list[str], seed: int) -> None:
    rng = random.Random(seed + 2)
    for name in rng.sample(names, FILES // 100):
        (repo / name).write_text("rewritten\n")
    for name in rng.sample(names, FILES // 500):
        (repo / name).unlink(missing_ok=True)


def _save_checks(store: Store, root: str, names: list[str], queries: int, seed: int) -> list[float]:
    rng = random.Random(seed + 3)
    return [1000.0 * _seconds(lambda name=name: staleness.check(store, root, [str(Path(root) / name)]))  # type: ignore[misc]
            for name in rng.sample(names, min(queries, len(names)))]


def _seconds(work: Callable[[], object]) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
