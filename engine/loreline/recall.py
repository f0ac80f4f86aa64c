"""Recall: the memories of a project that answer a query, each with its provenance.

Two rankings are fused by reciprocal rank (k = 60): FTS5 bm25 over the memory text and
sqlite-vec KNN over the embeddings, both within the project (plus user-scope memories).
Superseded and forgotten memories are left out unless asked for.
"""

from __future__ import annotations

from .embed import Embedder, default_embedder
from .models import RecallHit
from .store import Store
from .store import memories as rows
from .store import search

RRF_K = 60
USER_SCOPE = "(user)"


def recall(
    store: Store,
    query: str,
    project: str,
    *,
    limit: int = 10,
    include_inactive: bool = False,
    embedder: Embedder | None = None,
) -> list[RecallHit]:
    statuses = ("active", "superseded", "forgotten") if include_inactive else ("active",)
    depth = max(limit * 4, 20)
    lexical = search.fts(store, query, (project, USER_SCOPE), depth, statuses)
    vector = (embedder or default_embedder()).embed(query)
    allowed = set(statuses)
    has_features = any(vector)  # an all-zero vector (no words at all) has no neighbours
    nearest = [mid for mid, _ in search.knn(store, vector, project, depth)] if has_features else []
    status_of = _statuses(store, nearest)
    semantic = [mid for mid in nearest if status_of.get(mid) in allowed]
    return _fuse(store, lexical, semantic, limit)


def _statuses(store: Store, ids: list[int]) -> dict[int, str]:
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    return {int(i): str(s) for i, s in store.rows(f"SELECT id, status FROM memories WHERE id IN ({marks})", tuple(ids))}


def _fuse(store: Store, lexical: list[int], semantic: list[int], limit: int) -> list[RecallHit]:
    scores: dict[int, float] = {}
    for ranking in (lexical, semantic):
        for rank, mid in enumerate(ranking, start=1):
            scores[mid] = scores.get(mid, 0.0) + 1.0 / (RRF_K + rank)
    # A memory found only by the vector side shares no word with the query: keep it only
    # when the lexical side found nothing at all (the query may be a paraphrase).
    if lexical:
        scores = {mid: s for mid, s in scores.items() if mid in lexical or s >= 1.0 / (RRF_K + 3)}
    order = sorted(scores, key=lambda mid: (-scores[mid], mid))[:limit]
    lex_rank = {mid: i for i, mid in enumerate(lexical, start=1)}
    vec_rank = {mid: i for i, mid in enumerate(semantic, start=1)}
    return [
        RecallHit(memory, scores[memory.id], lex_rank.get(memory.id), vec_rank.get(memory.id))
        for memory in rows.load(store, order)
    ]
