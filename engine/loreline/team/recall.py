"""Recall straight from the team store: every teammate's shared memories of one project.

Postgres' own full text (tsvector, ts_rank) and pgvector's HNSW search, fused by reciprocal
rank with the same weights and thresholds as local recall (`recall.fused_scores`).
"""

from __future__ import annotations


from .. import questions
from ..embed import Embedder, default_embedder
from ..recall import fused_scores, fusion_for
from ..records import record
from ..store.team import TeamStore
from ..store.team import search


@record
class TeamHit:
    uid: str
    author: str
    kind: str
    text: str
    observed_at: str | None
    score: float


def recall(team: TeamStore, query: str, project: str, *, limit: int = 10,
           embedder: Embedder | None = None) -> list[TeamHit]:
    embedder = embedder or default_embedder()
    fusion = fusion_for(embedder)
    depth = max(limit * 4, 20)
    asked = questions.understand(query)  # as local recall: the categories it asks about too
    lexical = search.fts(team, asked.text, project, depth)
    nearest = search.knn(team, embedder.embed(asked.text), project, depth, embedder.fingerprint)
    semantic = [(uid, 1.0 - dist) for uid, dist in nearest if 1.0 - dist >= fusion.min_similarity]
    scores = fused_scores(lexical, semantic, fusion)
    order = sorted(scores, key=lambda uid: (-scores[uid], uid))[:limit]
    rows = search.load(team, order)
    return [TeamHit(uid, *rows[uid][:3], rows[uid][3], scores[uid]) for uid in order if uid in rows]
