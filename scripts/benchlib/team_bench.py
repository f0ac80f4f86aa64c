"""The team store: sync throughput, and recall latency against PostgreSQL + pgvector next to
the local store's, on a throwaway server started here (the tests' launcher, tests/pg_server).

Sync: machine A holds `SYNC_MEMORIES` memories of one project (half the queried project's
size when that is smaller: the tests' tiny runs) (policy `all`, so every active
one is published) and pushes them; machine B, empty, pulls them all through the belief
pipeline (each one planned against B's store: tombstone, exact and near duplicates); then B
syncs again with nothing new (the incremental no-op). Figures are memories per second and
milliseconds, the median over `ctx.runs` runs for the no-op. A's vectors are the embedder's
own for each text (not cycled as in recall): B, with the same embedder, keeps the vectors it
receives, and its near-duplicate checks must see the neighbours real texts have.

Recall: for each store size the same memories (recall_bench's generator: the queried project
holds `ctx.project_memories`, the rest spread over other projects) go into a local store and
into a team database (COPY, then the HNSW index built once, timed), and the same queries run
against both: `loreline.recall.recall` locally, `loreline.team.recall.recall` on the server
(tsvector + ts_rank, HNSW, the same reciprocal-rank fusion). p50/p95 over `ctx.queries`.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path
from typing import Any

from loreline.embed import default_embedder
from loreline.recall import recall
from loreline.store import Store
from loreline.store.memories import content_hash, now
from loreline.store.team import TeamStore, vector_text, vector_width
from loreline.store.team import search as team_search
from loreline.team import recall as team_recall
from loreline.team.settings import TeamSettings
from loreline.team.sync import sync

from . import recall_bench
from .registry import Context, Row, median, percentile

ROOT = Path(__file__).resolve().parents[2]
SYNC_MEMORIES = 5_000
REMOTE = "github.com/acme/shop"
LIMIT = 10


def team_store(ctx: Context) -> list[Row]:
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from tests.pg_server import PgServer

    with ctx.step("starting PostgreSQL 16 + pgvector"):
        server = PgServer().start()
    try:
        return [*_sync_rows(ctx, server.dsn), *_recall_rows(ctx, server)]
    finally:
        server.stop()


# -- sync ---------------------------------------------------------------------------------


def _machine(ctx: Context, name: str) -> str:
    folder = ctx.work / name / "shop"
    (folder / ".git").mkdir(parents=True, exist_ok=True)
    (folder / ".git" / "config").write_text(f'[remote "origin"]\n\turl = git@github.com:acme/shop.git\n')
    return str(folder)


def _settings(dsn: str, author: str) -> TeamSettings:
    return TeamSettings(dsn=dsn, author=author, remote="", share="all", sync_seconds=0.0)


def _sync_rows(ctx: Context, dsn: str) -> list[Row]:
    project_a, project_b = _machine(ctx, "ana"), _machine(ctx, "raj")
    count = min(SYNC_MEMORIES, max(ctx.project_memories // 2, 10))
    items = [recall_bench.Spec(project_a, s.kind, s.text, s.status)
             for s in recall_bench.specs(count, count, ctx.seed)]
    embedder = default_embedder()
    with ctx.step(f"building machine A with {count:,} memories"):
        vectors = [embedder.embed(s.text) for s in items]
        store_a = recall_bench.build(ctx.work / "ana" / "loreline.db", items, vectors, [])
        with store_a.write() as conn:
            conn.execute("INSERT INTO audit(at, actor, action, memory_id) SELECT ?, 'import', 'add', id FROM memories",
                         (now(),))
    with store_a, Store(ctx.work / "raj" / "loreline.db") as store_b:
        started = time.perf_counter()
        pushed = sync(store_a, _settings(dsn, "ana"), embedder=embedder).pushed
        push_s = time.perf_counter() - started
        started = time.perf_counter()
        received = sync(store_b, _settings(dsn, "raj"), embedder=embedder, projects=(project_b,))
        pull_s, pulled = time.perf_counter() - started, received.pulled
        idle = [1000 * _timed_sync(store_b, dsn, project_b) for _ in range(max(ctx.runs, 3))]
    return [
        Row(f"team sync: publish {pushed:,} memories", f"{pushed / push_s:,.0f} memories/s ({push_s:.1f} s)",
            pushed / push_s, "memories/s", "—", None, 1, {"memories": pushed, "seconds": push_s},
            "one push: audit cursor → chains → redaction check → upsert in 200-row transactions"),
        Row(f"team sync: receive {pulled:,} memories", f"{pulled / pull_s:,.0f} memories/s ({pull_s:.1f} s)",
            pulled / pull_s, "memories/s", "—", None, 1,
            {"memories": pulled, "seconds": pull_s, "outcomes": dict(sorted(received.outcomes.items()))},
            "each through the belief pipeline (tombstone, exact and near duplicates) on an empty store; "
            "vectors made by the same embedder are kept, not recomputed"),
        Row("team sync: nothing new", f"{median(idle):.1f} ms", median(idle), "ms", "—", None, len(idle),
            {"ms": idle}, "connect, push cursor, one cursor query per project"),
    ]


def _timed_sync(store: Store, dsn: str, project: str) -> float:
    started = time.perf_counter()
    sync(store, _settings(dsn, "raj"), projects=(project,))
    return time.perf_counter() - started


# -- recall -------------------------------------------------------------------------------


def _recall_rows(ctx: Context, server: Any) -> list[Row]:
    embedder = default_embedder()
    largest = max(ctx.memories)
    with ctx.step(f"embedding {largest:,} memory texts"):
        items = recall_bench.specs(largest, ctx.project_memories, ctx.seed)
        vectors = recall_bench.embed_all(embedder, [s.text for s in items])
    rng = random.Random(ctx.seed)
    queries = [rng.choice(recall_bench.QUERIES) for _ in range(ctx.queries)]
    out = []
    for total in sorted(ctx.memories):
        in_project = min(total, ctx.project_memories)
        subset, subset_vectors = recall_bench.store_share(items, vectors, total, ctx.project_memories)
        with ctx.step(f"building a local store of {total:,} memories"):
            local = recall_bench.build(ctx.work / f"team-recall-{total}" / "loreline.db", subset, subset_vectors, [])
        dsn = _database(server, f"bench_{total}")
        with ctx.step(f"loading {total:,} memories into the team store"):
            load_s, index_s = _fill(dsn, subset, subset_vectors, embedder.fingerprint)
        with local, TeamStore(dsn) as team:
            out.append(_measure(ctx, local, team, queries, total, in_project, load_s, index_s))
    return out


def _database(server: Any, name: str) -> str:
    import psycopg

    with psycopg.connect(server.dsn, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name}")
        conn.execute(f"CREATE DATABASE {name}")
    return str(server.dsn).rsplit("/", 1)[0] + "/" + name


def _remote(project: str) -> str:
    return REMOTE if project == recall_bench.PROJECT else "bench/" + project.rsplit("/", 1)[-1]


def _fill(dsn: str, items: list[recall_bench.Spec], vectors: list[bytes], fingerprint: str) -> tuple[float, float]:
    """COPY the rows in without the HNSW indexes, then build them once: (load seconds, index seconds)."""
    with TeamStore(dsn) as team:
        hnsw = team.rows("SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'memories' "
                         "AND indexdef LIKE %s", ("%USING hnsw%",))
        for name, _ in hnsw:
            team.conn.execute(f'DROP INDEX "{name}"')
        started = time.perf_counter()
        with team.conn.cursor() as cur, cur.copy(
            "COPY memories(uid, project, origin, author, kind, text, content_hash, status, version, observed_at, "
            "extractor, embedder, embedding, seq) FROM STDIN") as copy:
            for i, (spec, vector) in enumerate(zip(items, vectors), start=1):
                active = spec.status == "active"
                copy.write_row((f"bench:{i}", _remote(spec.project), "bench", f"dev{i % 7}", spec.kind, spec.text,
                                content_hash(spec.text), spec.status, 1, now(), "bench@1",
                                fingerprint if active else None, vector_text(vector) if active else None, i))
        load_s = time.perf_counter() - started
        started = time.perf_counter()
        team.conn.execute("SET maintenance_work_mem = '512MB'")
        for _, definition in hnsw:
            team.conn.execute(definition)
        team.conn.execute("ANALYZE memories")
        return load_s, time.perf_counter() - started


def _first_pass(team: TeamStore, query: str, fingerprint: str) -> int:
    """How many rows the first, narrow HNSW pass finds for the project (before any widening)."""
    vector = default_embedder().embed(query)
    vec = vector_text(vector)
    with team.write() as conn:
        conn.execute(f"SET LOCAL hnsw.ef_search = {max(team_search.EF_SEARCH, LIMIT * 4)}")
        return len(conn.execute(team_search.knn_sql(vector_width(vector)),
                                (vec, REMOTE, fingerprint, vec, LIMIT * 4)).fetchall())


def _latencies(fn: Any, queries: list[str]) -> tuple[list[float], list[int]]:
    times, found = [], []
    for query in queries:
        started = time.perf_counter()
        hits = fn(query)
        times.append(1000 * (time.perf_counter() - started))
        found.append(len(hits))
    return times, found


def _measure(ctx: Context, local: Store, team: TeamStore, queries: list[str], total: int, in_project: int,
             load_s: float, index_s: float) -> Row:
    def local_fn(q: str) -> list[Any]:
        return recall(local, q, recall_bench.PROJECT, limit=LIMIT)

    def team_fn(q: str) -> list[Any]:
        return team_recall.recall(team, q, REMOTE, limit=LIMIT)

    _latencies(local_fn, queries[:20])
    _latencies(team_fn, queries[:20])
    runs = [(_latencies(team_fn, queries), _latencies(local_fn, queries)) for _ in range(ctx.runs)]
    t50 = median([percentile(t[0], 50) for t, _ in runs])
    t95 = median([percentile(t[0], 95) for t, _ in runs])
    l50 = median([percentile(loc[0], 50) for _, loc in runs])
    l95 = median([percentile(loc[0], 95) for _, loc in runs])
    fts50 = percentile(_latencies(lambda q: team_search.fts(team, q, REMOTE, LIMIT * 4), queries)[0], 50)
    fingerprint = default_embedder().fingerprint
    knn_first = [_first_pass(team, q, fingerprint) for q in queries]
    knn50 = percentile(_latencies(lambda q: team_search.knn(team, default_embedder().embed(q), REMOTE, LIMIT * 4,
                                                            fingerprint), queries)[0], 50)
    short = sum(1 for n in knn_first if n < LIMIT * 4) / len(queries)
    hits_team = sum(runs[0][0][1]) / len(queries)
    hits_local = sum(runs[0][1][1]) / len(queries)
    name = f"team recall, {total:,} memories" + (f" ({in_project:,} in the project)" if total != in_project else "")
    return Row(
        name, f"team p50 {t50:.1f} ms, p95 {t95:.1f} ms (local: p50 {l50:.1f}, p95 {l95:.1f} ms)", t50, "ms", "—",
        None, ctx.runs,
        {"team_p50_ms": t50, "team_p95_ms": t95, "local_p50_ms": l50, "local_p95_ms": l95, "memories": total,
         "in_project": in_project, "copy_seconds": load_s, "hnsw_build_seconds": index_s,
         "hits_per_query_team": hits_team, "hits_per_query_local": hits_local, "fts_part_p50_ms": fts50,
         "knn_part_p50_ms": knn50, "knn_first_pass_short": short},
        f"loopback server; COPY {load_s:.0f} s, HNSW build {index_s:.0f} s; parts (p50): full text {fts50:.1f} ms, "
        f"vectors {knn50:.1f} ms ({short:.0%} of queries needed more than the first HNSW pass); "
        f"hits/query team {hits_team:.1f}, local {hits_local:.1f}",
    )
