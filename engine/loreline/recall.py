"""Recall: the memories of a project that answer a query, each with its provenance.

Two rankings are fused by reciprocal rank (k = 60): FTS5 bm25 over the memory text and
sqlite-vec KNN over the embeddings, both within the project (plus user-scope memories).
Superseded and forgotten memories are left out unless asked for.

The weights come from `scripts/eval` (retrieval): with the built-in hashing embedder, which
compares spelling rather than meaning, the vector ranking only breaks ties and catches
near-spellings bm25 misses (typos, compound identifiers); given more weight it lowered MRR
(0.78 → 0.72 at equal weight) without finding a single extra answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from . import vectors
from .embed import Embedder, default_embedder
from .models import RecallHit
from .store import Store
from .store import memories as rows
from .store import search

RRF_K = 60
VECTOR_WEIGHT = 0.15
MIN_SIMILARITY = 0.2
VECTOR_ONLY_SIMILARITY = 0.45
USER_SCOPE = "(user)"

T = TypeVar("T", int, str)


def recall(
    store: Store,
    query: str,
    project: str,
    *,
    limit: int = 10,
    include_inactive: bool = False,
    embedder: Embedder | None = None,
) -> list[RecallHit]:
    embedder = embedder or default_embedder()
    vectors.ensure(store, embedder, stamp=False)
    statuses = ("active", "superseded", "forgotten") if include_inactive else ("active",)
    depth = max(limit * 4, 20)
    lexical = search.fts(store, query, (project, USER_SCOPE), depth, statuses)
    vector = embedder.embed(query)
    allowed = set(statuses)
    has_features = any(vector)  # an all-zero vector (no words at all) has no neighbours
    nearest = search.knn(store, vector, project, depth) if has_features else []
    status_of = _statuses(store, [mid for mid, _ in nearest])
    semantic = [(mid, 1.0 - dist) for mid, dist in nearest
                if status_of.get(mid) in allowed and 1.0 - dist >= MIN_SIMILARITY]
    return _fuse(store, lexical, semantic, limit)


def _statuses(store: Store, ids: list[int]) -> dict[int, str]:
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    return {int(i): str(s) for i, s in store.rows(f"SELECT id, status FROM memories WHERE id IN ({marks})", tuple(ids))}


def fused_scores(lexical: Sequence[T], semantic: Sequence[tuple[T, float]]) -> dict[T, float]:
    """Weighted reciprocal-rank fusion of a lexical and a (filtered) vector ranking of any ids:
    the same arithmetic for the local store and the team store."""
    scores: dict[T, float] = {}
    for rank, mid in enumerate(lexical, start=1):
        scores[mid] = scores.get(mid, 0.0) + 1.0 / (RRF_K + rank)
    in_lexical = set(lexical)
    for rank, (mid, similarity) in enumerate(semantic, start=1):
        if mid in in_lexical or similarity >= VECTOR_ONLY_SIMILARITY:
            scores[mid] = scores.get(mid, 0.0) + VECTOR_WEIGHT / (RRF_K + rank)
    return scores


def _fuse(store: Store, lexical: list[int], semantic: list[tuple[int, float]], limit: int) -> list[RecallHit]:
    """Weighted reciprocal-rank fusion. The built-in embedder compares spelling, not meaning,
    so its ranking counts for less than bm25's, and a memory only the vectors found (no word
    in common with the query) must be close to be shown at all."""
    scores = fused_scores(lexical, semantic)
    order = sorted(scores, key=lambda mid: (-scores[mid], mid))[:limit]
    lex_rank = {mid: i for i, mid in enumerate(lexical, start=1)}
    vec_rank = {mid: i for i, (mid, _) in enumerate(semantic, start=1)}
    return [
        RecallHit(memory, scores[memory.id], lex_rank.get(memory.id), vec_rank.get(memory.id))
        for memory in rows.load(store, order)
    ]
