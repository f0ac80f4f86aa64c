"""Recall latency at 10k and 100k memories (10k in the queried project), against a floor.

Stores are filled directly: memories, provenance and vectors go in with `executemany`
inside one `Store.write()` transaction (the FTS triggers fire as for any insert), with
texts from the durable-statement templates, a realistic status mix (most active, some
superseded, a few forgotten) and a few user-scope memories. Vectors come from the default
embedder, computed once and shared by both stores: the first `DISTINCT_VECTORS` texts are
embedded and their vectors cycled over the rest (the sentence model takes milliseconds per
text, and a KNN costs the same whatever its vectors say). Every query is embedded for real.
Each memory of the queried project also has `CUE_VECTORS` cue vectors (a model backend writes
up to four questions and a line of topic words per memory, each embedded on its own), so
recall compares each memory's best of five vectors.

The figure is `loreline.recall.recall` per query, p50 and p95 over `ctx.queries` queries,
median over runs, each query embedded by the default embedder. The first query of a run reads
the project's vectors into memory (`store.vectorcache`, as a language or MCP server does once
per store change); the others multiply by that matrix. The floor answers the same query with no index at all: a cosine scan of
all the project's vectors (sqlite-vec's `vec_distance_cosine` over a plain BLOB column, in
C) and a scan of all the project's memory text counting query words (`instr`, in C), fused
by reciprocal rank and loaded the same way.
"""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from loreline.embed import Embedder, default_embedder
from loreline.recall import RRF_K, USER_SCOPE, recall
from loreline.store import Store
from loreline.store import memories as rows
from loreline.store import search

from . import texts
from .registry import Context, Row, median, percentile

PROJECT = "/home/dev/acme-shop"
OTHERS = tuple(f"/home/dev/project-{i:02d}" for i in range(9))
USER_MEMORIES = 300
CUE_VECTORS = 4  #: per memory of the queried project
BUDGET_P50_MS = 15.0
BUDGET_P95_MS = 50.0
LIMIT = 10
QUERIES = (
    "which package manager do we use", "can I run npm install here?", "how do we release",
    "how do I deploy the worker", "what does the build need on macOS", "why did we move the API layer",
    "which test runner", "should I commit generated files", "what is the fix for the flaky CI",
    "how do we format SQL queries", "pytest or jest", "what env var does Alpine need", "lockfile",
    "retry backoff for the queue", "default exports in components", "OPENSSL_DIR", "pin version",
    "ruff before committing", "billing module decision", "shell scripts conventions",
)
_WORD = re.compile(r"[a-z0-9_]{3,}")
_STOP = frozenset("the and for with what which how why does can should we our use here".split())


@dataclass(frozen=True, slots=True)
class Spec:
    project: str
    kind: str
    text: str
    status: str


def specs(total: int, in_project: int, seed: int) -> list[Spec]:
    """`in_project` memories of PROJECT first, then the rest spread over other projects."""
    rng = random.Random(seed)
    out = [_spec(rng, PROJECT) for _ in range(min(in_project, total))]
    out.extend(_spec(rng, rng.choice(OTHERS)) for _ in range(total - len(out)))
    return out


def _spec(rng: random.Random, project: str) -> Spec:
    text = f"{texts.fill(rng, rng.choice(texts.DURABLE))} {texts.sentence(rng)}"
    kind = rng.choice(("preference", "preference", "decision", "fact", "procedure", "episode"))
    status = rng.choices(("active", "superseded", "forgotten"), (90, 8, 2))[0]
    return Spec(project, kind, text, status)


def build(path: Path, items: list[Spec], vectors: list[bytes], users: list[tuple[Spec, bytes]]) -> Store:
    """A fresh store at `path` holding `items` (plus user-scope memories), in one transaction."""
    store = Store(path)
    stamp = rows.now()
    everything = [*zip(items, vectors), *users]
    with store.write() as conn:
        conn.executemany(
            "INSERT INTO memories(id, project, scope, kind, text, content_hash, status, version, root_id, "
            "created_at, updated_at, observed_at, extractor) VALUES(?,?,?,?,?,?,?,1,?,?,?,?,'bench@1')",
            [(i, s.project, "user" if s.project == USER_SCOPE else "project",
              s.kind, s.text, rows.content_hash(s.text), s.status, i, stamp, stamp, stamp)
             for i, (s, _) in enumerate(everything, start=1)])
        conn.executemany(
            "INSERT INTO provenance(memory_id, tool, session_id, session_path, line_start, line_end, excerpt, "
            "observed_at, replay_key, created_at) VALUES(?, 'claude-code', ?, ?, ?, ?, ?, ?, NULL, ?)",
            [(i, f"s-{i % 997}", f"/home/dev/.claude/projects/x/s-{i % 997}.jsonl", i % 500 + 1, i % 500 + 3,
              s.text, stamp, stamp) for i, (s, _) in enumerate(everything, start=1)])
        conn.executemany("INSERT INTO memory_vec(memory_id, embedding) VALUES(?,?)",
                         [(i, v) for i, (_, v) in enumerate(everything, start=1)])
        cycled = [v for _, v in everything]
        conn.executemany("INSERT INTO memory_cue_vec(memory_id, line, embedding) VALUES(?,?,?)",
                         [(i, line, cycled[(i * 7 + line * 131) % len(cycled)])
                          for i, (s, _) in enumerate(everything, start=1) if s.project == PROJECT
                          for line in range(CUE_VECTORS)])
        conn.execute("CREATE TABLE floor_vec(memory_id INTEGER PRIMARY KEY, project TEXT NOT NULL, embedding BLOB)")
        conn.execute("CREATE INDEX floor_vec_by_project ON floor_vec(project)")
        conn.executemany("INSERT INTO floor_vec(memory_id, project, embedding) VALUES(?,?,?)",
                         [(i, s.project, v) for i, (s, v) in enumerate(everything, start=1) if s.status == "active"])
    return store


def floor(store: Store, query: str, project: str, limit: int = LIMIT) -> list[int]:
    """The same question answered by scanning: no FTS index, no vector index."""
    vector = default_embedder().embed(query)
    depth = max(limit * 4, 20)
    words = [w for w in dict.fromkeys(_WORD.findall(query.lower())) if w not in _STOP][:8] or ["the"]
    score = " + ".join("(instr(lower(text), ?) > 0)" for _ in words)
    lexical = [int(r[0]) for r in store.rows(
        f"SELECT id, {score} AS hits FROM memories WHERE project IN (?, ?) AND status = 'active' "
        "AND hits > 0 ORDER BY hits DESC, id LIMIT ?", (*words, project, USER_SCOPE, depth))]
    nearest = [int(r[0]) for r in store.rows(
        "SELECT memory_id FROM floor_vec WHERE project = ? ORDER BY vec_distance_cosine(embedding, ?) LIMIT ?",
        (project, vector, depth))]
    scores: dict[int, float] = {}
    for ranking in (lexical, nearest):
        for rank, mid in enumerate(ranking, start=1):
            scores[mid] = scores.get(mid, 0.0) + 1.0 / (RRF_K + rank)
    order = sorted(scores, key=lambda mid: (-scores[mid], mid))[:limit]
    return [m.id for m in rows.load(store, order)]


def latencies(fn: Callable[[Store, str, str], object], store: Store, queries: list[str]) -> list[float]:
    out = []
    for query in queries:
        started = time.perf_counter()
        fn(store, query, PROJECT)
        out.append(1000 * (time.perf_counter() - started))
    return out


DISTINCT_VECTORS = 1_000


def embed_all(embedder: Embedder, texts_: list[str]) -> list[bytes]:
    """Vectors for `texts_`: the first `DISTINCT_VECTORS` embedded, cycled over the rest."""
    made = [embedder.embed(text) for text in texts_[:DISTINCT_VECTORS]]
    return [made[i % len(made)] for i in range(len(texts_))] if made else []


def store_share(items: list[Spec], vectors: list[bytes], total: int,
                project_memories: int) -> tuple[list[Spec], list[bytes]]:
    """The first `total` of `specs()`'s memories for one store size: the queried project's
    (`project_memories` at most) and as many of the other projects' as make up the rest."""
    in_project = min(total, project_memories)
    others = slice(project_memories, project_memories + total - in_project)
    return items[:in_project] + items[others], vectors[:in_project] + vectors[others]


def recall_latency(ctx: Context) -> list[Row]:
    embedder = default_embedder()
    largest = max(ctx.memories)
    with ctx.step(f"embedding {largest:,} memory texts"):
        items = specs(largest, ctx.project_memories, ctx.seed)
        vectors = embed_all(embedder, [s.text for s in items])
        rng = random.Random(ctx.seed + 1)
        user_specs = [Spec(USER_SCOPE, "preference", f"{texts.fill(rng, rng.choice(texts.DURABLE))}", "active")
                      for _ in range(USER_MEMORIES)]
        users = [(s, embedder.embed(s.text)) for s in user_specs]
    rng = random.Random(ctx.seed)
    queries = [rng.choice(QUERIES) for _ in range(ctx.queries)]
    out = []
    for total in sorted(ctx.memories):
        in_project = min(total, ctx.project_memories)
        subset, subset_vectors = store_share(items, vectors, total, ctx.project_memories)
        with ctx.step(f"building a store of {total:,} memories"):
            store = build(ctx.work / f"recall-{total}" / "loreline.db", subset, subset_vectors, users)
        with store:
            out.append(_measure(ctx, store, queries, total, in_project))
    return out


def _recall(store: Store, query: str, project: str) -> None:
    recall(store, query, project, limit=LIMIT)


def _fts_part(store: Store, query: str, project: str) -> None:
    search.fts(store, query, (project, USER_SCOPE), LIMIT * 4, ("active",))


def _knn_part(store: Store, query: str, project: str) -> None:
    search.knn(store, default_embedder().embed(query), project, LIMIT * 4)


def _measure(ctx: Context, store: Store, queries: list[str], total: int, in_project: int) -> Row:
    latencies(_recall, store, queries[:20])  # warm the page cache and the statement cache
    latencies(floor, store, queries[:20])
    runs = [(latencies(_recall, store, queries), latencies(floor, store, queries)) for _ in range(ctx.runs)]
    p50 = median([percentile(r, 50) for r, _ in runs])
    p95 = median([percentile(r, 95) for r, _ in runs])
    f50 = median([percentile(f, 50) for _, f in runs])
    f95 = median([percentile(f, 95) for _, f in runs])
    fts50 = percentile(latencies(_fts_part, store, queries), 50)  # one run: where the time goes
    knn50 = percentile(latencies(_knn_part, store, queries), 50)
    name = f"recall, {total:,} memories" + (f" ({in_project:,} in the project)" if total != in_project else "")
    return Row(
        name, f"p50 {p50:.1f} ms, p95 {p95:.1f} ms (floor: p50 {f50:.1f}, p95 {f95:.1f} ms)", p50, "ms",
        f"p50 ≤ {BUDGET_P50_MS:g} ms, p95 ≤ {BUDGET_P95_MS:g} ms", p50 <= BUDGET_P50_MS and p95 <= BUDGET_P95_MS,
        ctx.runs, {"p50_ms": p50, "p95_ms": p95, "floor_p50_ms": f50, "floor_p95_ms": f95, "memories": total,
                   "in_project": in_project, "queries_per_run": len(queries), "fts_part_p50_ms": fts50,
                   "knn_part_p50_ms": knn50},
        f"parts (p50): FTS {fts50:.1f} ms, KNN {knn50:.1f} ms; floor = full cosine scan of the project's "
        "vectors + full word scan of its text, RRF-fused",
    )
