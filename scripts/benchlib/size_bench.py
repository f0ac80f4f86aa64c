"""Store size: what a project costs and what 1,000 memories cost, on disk.

Two stores are filled the way the recall benchmark fills its stores (`recall_bench.build`:
memories, provenance, full-text and vector rows in one transaction): one with 1,000 projects
of one memory each, and one with a single project holding the largest `--memories` size.
The figure is the database file after a WAL checkpoint (what a user's disk holds), with the
vector index's share from SQLite's `dbstat` table. An empty store is measured too, so the
per-project and per-memory figures are what each one adds.
"""

from __future__ import annotations

import random
from pathlib import Path

from loreline.embed import default_embedder
from loreline.store import Store

from . import recall_bench, texts
from .registry import Context, Row, mb

PROJECTS = 1_000
VECTOR_TABLES = "name = 'memory_vec' OR name LIKE 'memory_vec_%'"


def store_size(ctx: Context) -> list[Row]:
    empty = _measure(_build(ctx.work / "size-empty" / "loreline.db", []))
    with ctx.step(f"building a store of {PROJECTS:,} projects × 1 memory"):
        many = _measure(_build(ctx.work / "size-projects" / "loreline.db", _one_each(ctx.seed)))
    largest = max(ctx.memories)
    with ctx.step(f"building a store of 1 project × {largest:,} memories"):
        items = recall_bench.specs(largest, largest, ctx.seed)
        one = _measure(_build(ctx.work / "size-memories" / "loreline.db", items))
    return [_per_project(empty, many), _per_memories(empty, one, largest)]


def _one_each(seed: int) -> list[recall_bench.Spec]:
    rng = random.Random(seed)
    return [recall_bench.Spec(f"/home/dev/src/project-{i:04d}", "preference",
                              texts.fill(rng, rng.choice(texts.DURABLE)), "active") for i in range(PROJECTS)]


def _build(path: Path, items: list[recall_bench.Spec]) -> Path:
    embedder = default_embedder()
    store = recall_bench.build(path, items, recall_bench.embed_all(embedder, [s.text for s in items]), [])
    with store:
        store.conn.execute("DROP TABLE floor_vec")  # the recall floor's own table: not Loreline's
        store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return path


def _measure(path: Path) -> tuple[int, int]:
    """(file bytes, vector index bytes) of a store."""
    with Store(path) as store:
        vector = int(store.scalar(f"SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE {VECTOR_TABLES}"))
        store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return path.stat().st_size, vector


def _per_project(empty: tuple[int, int], many: tuple[int, int]) -> Row:
    per = (many[0] - empty[0]) / PROJECTS
    return Row(
        f"store size, {PROJECTS:,} projects × 1 memory",
        f"{mb(many[0]):.1f} MB ({per / 1024:.1f} KB per project; vector index {mb(many[1]):.1f} MB)",
        per / 1024, "KB per project", "—", None, 1,
        {"file_bytes": many[0], "vector_bytes": many[1], "empty_bytes": empty[0], "bytes_per_project": per},
        f"empty store {empty[0] / 1024:.0f} KB; file size after a WAL checkpoint",
    )


def _per_memories(empty: tuple[int, int], one: tuple[int, int], count: int) -> Row:
    per = (one[0] - empty[0]) / count * 1000
    return Row(
        f"store size, 1 project × {count:,} memories",
        f"{mb(one[0]):.1f} MB ({mb(per):.2f} MB per 1,000 memories; vector index {mb(one[1]):.1f} MB)",
        mb(per), "MB per 1,000 memories", "—", None, 1,
        {"file_bytes": one[0], "vector_bytes": one[1], "memories": count, "bytes_per_1000": per},
        "memories, provenance, full-text and vector rows; file size after a WAL checkpoint",
    )
