"""Recall: the memories of a project that answer a query, each with its provenance.

Two rankings are fused by reciprocal rank (k = 60): FTS5 bm25 over the memory text and
the nearest embeddings (`store.vectorcache`: the project's vectors held in memory between
store changes, else sqlite-vec in SQL), both within the project (plus user-scope memories).
With an embedder that compares meaning, a bm25 hit must also be close enough in meaning
(`Fusion.lexical_floor`), so a shared word alone never shows a memory.
Superseded and forgotten memories are left out unless asked for.

Then trust: a memory that may be stale (its files changed since, `staleness`) counts for
`STALE_WEIGHT` of its score, and a recently said or confirmed one gets up to `RECENCY_WEIGHT`
more (halving every `RECENCY_HALF_LIFE_DAYS`), so of two equally relevant memories the one
confirmed last week comes before the one nobody has looked at for a year.

The weights come from `scripts/eval` (retrieval), per embedder, chosen on the tuning half of
its question set: with the sentence model the vectors weigh twice bm25 and carry the
paraphrases; with the hashing embedder, which compares spelling, they only break ties.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TypeVar

from . import vectors
from .embed import Embedder, default_embedder, family
from .models import RecallHit
from .store import Store
from .store import memories as rows
from .store import search, vectorcache

RRF_K = 60
USER_SCOPE = "(user)"
STALE_WEIGHT = 0.5
RECENCY_WEIGHT = 0.1
RECENCY_HALF_LIFE_DAYS = 30.0

T = TypeVar("T", int, str)


@dataclass(frozen=True, slots=True)
class Fusion:
    """How the two rankings combine: the vector ranking's weight against bm25's (1.0), the
    similarity below which a neighbour is ignored, the higher similarity a memory the
    vectors alone found (no word in common with the query) must reach to be shown at all,
    and, for an embedder that compares meaning, the similarity a memory bm25 found must still
    reach (a shared word is not enough: "deploy the mobile app" is not about a note that
    mentions an app); None keeps every bm25 hit."""

    vector_weight: float
    min_similarity: float
    vector_only_similarity: float
    lexical_floor: float | None = None


#: per embedder family (the fingerprint's first word); tuned on the tuning half of
#: tests/eval/retrieval.json (`scripts/eval retrieval`)
FUSIONS = {
    "hashing": Fusion(vector_weight=0.15, min_similarity=0.2, vector_only_similarity=0.45),
    "static": Fusion(vector_weight=2.0, min_similarity=0.2, vector_only_similarity=0.35),
    "minilm": Fusion(vector_weight=2.0, min_similarity=0.2, vector_only_similarity=0.3, lexical_floor=0.4),
}


#: embedder families that compare meaning (for_prompt answers only with these)
MEANING = frozenset({"minilm", "static"})
#: the similarity a memory needs to be added to a prompt (`for_prompt`); chosen on the tuning
#: halves of both retrieval sets (`python -m evallib.prompt_recall --warm-grid`; the test halves
#: are reported by `python -m evallib.prompt_recall`). Letting a memory that shares a word with the
#: prompt in at a lower similarity added more unrelated notes than answers there, except for the
#: memories the hook's own word match chose (`PROMPT_WORD_FLOOR`).
PROMPT_FLOOR = 0.45
PROMPT_WORD_FLOOR = 0.35
MAX_WORD_IDS = 20
MAX_PROMPT_CHARS = 4000
PROMPT_PARTS = 4
MIN_PART = 12
_PART_BREAK = re.compile(r"(?<=[.?!;])\s+|\n+|,\s+(?=(?:and|but|also|then|so)\b)", re.IGNORECASE)


def fusion_for(embedder: Embedder) -> Fusion:
    return FUSIONS.get(family(embedder.fingerprint) or "", FUSIONS["hashing"])


def recall(
    store: Store,
    query: str,
    project: str,
    *,
    limit: int = 10,
    include_inactive: bool = False,
    embedder: Embedder | None = None,
    fusion: Fusion | None = None,
    query_vector: bytes | None = None,
) -> list[RecallHit]:
    """`query_vector`: the query's embedding when the caller already has it (from `embedder`)."""
    embedder = embedder or default_embedder(store)
    fusion = fusion or fusion_for(embedder)
    vectors.ensure(store, embedder, stamp=False)
    statuses = ("active", "superseded", "forgotten") if include_inactive else ("active",)
    depth = max(limit * 4, 20)
    lexical = search.fts(store, query, (project, USER_SCOPE), depth, statuses)
    vector = query_vector if query_vector is not None else embedder.embed(query)
    allowed = set(statuses)
    has_features = any(vector)  # an all-zero vector (no words at all) has no neighbours
    nearest = vectorcache.knn(store, vector, project, depth) if has_features else []
    status_of = rows.statuses(store, [mid for mid, _ in nearest])
    semantic = [(mid, 1.0 - dist) for mid, dist in nearest
                if status_of.get(mid) in allowed and 1.0 - dist >= fusion.min_similarity]
    if fusion.lexical_floor is not None:
        lexical = _close_enough(store, vector, lexical, dict(nearest), fusion.lexical_floor) if has_features else []
    return _fuse(store, lexical, semantic, limit, fusion)


def for_prompt(store: Store, prompt: str, project: str, *, limit: int = 3, floor: float = PROMPT_FLOOR,
               words: Sequence[int] = (), word_floor: float = PROMPT_WORD_FLOOR,
               embedder: Embedder | None = None) -> list[tuple[RecallHit, float]] | None:
    """The few active memories a prompt bears on, each with its similarity to the prompt, most
    similar first. The whole prompt and each of its first parts (`prompt_parts`: "which pnpm
    script starts the job, and how does it take its lock?" asks two things) are recalled in turn,
    a memory counting with its best similarity to any of them. A memory is kept when it is at
    least `floor` similar, or, when it is among `words` (the memories the prompt hook chose by
    its words), at least `word_floor` similar: a note that shares a prompt's specific words and
    is near it in meaning. An unrelated note costs the assistant's attention, so both bars are
    higher than recall's. None when the store's embedder does not compare meaning (hashing): the
    caller then chooses by words."""
    embedder = embedder or default_embedder(store)
    if family(embedder.fingerprint) not in MEANING:
        return None
    text = prompt[:MAX_PROMPT_CHARS]
    by_words = [m for m in rows.load(store, list(dict.fromkeys(words))[:MAX_WORD_IDS])
                if m.status == "active" and m.project in (project, USER_SCOPE)]
    best: dict[int, tuple[RecallHit, float]] = {}
    for part in (text, *prompt_parts(text)):
        vector = embedder.embed(part)
        hits = recall(store, part, project, limit=max(limit * 3, 10), embedder=embedder, query_vector=vector)
        hits += [RecallHit(m, 0.0, rank, None) for rank, m in enumerate(by_words, start=1)]
        similar = search.similarities(store, vector, [hit.memory.id for hit in hits])
        for hit in hits:
            similarity = similar.get(hit.memory.id, 0.0)
            if similarity > best.get(hit.memory.id, (hit, -1.0))[1]:
                best[hit.memory.id] = (hit, similarity)
    worded = {m.id for m in by_words}
    kept = [(hit, s) for hit, s in best.values() if s >= floor or (hit.memory.id in worded and s >= word_floor)]
    return sorted(kept, key=lambda pair: (-pair[1], pair[0].memory.id))[:limit]


def prompt_parts(text: str) -> list[str]:
    """The first `PROMPT_PARTS` sentences or joined questions of a prompt ("…, and how …"), when it
    has more than one; each at least `MIN_PART` characters."""
    parts = [part.strip() for part in _PART_BREAK.split(text) if part and len(part.strip()) >= MIN_PART]
    return parts[:PROMPT_PARTS] if len(parts) > 1 else []


def _close_enough(store: Store, vector: bytes, lexical: list[int], distances: dict[int, float],
                  floor: float) -> list[int]:
    """The bm25 hits whose vectors are at least `floor` similar to the query's."""
    similar = {mid: 1.0 - dist for mid, dist in distances.items()}
    similar.update(search.similarities(store, vector, [mid for mid in lexical if mid not in similar]))
    return [mid for mid in lexical if similar.get(mid, 0.0) >= floor]


def fused_scores(lexical: Sequence[T], semantic: Sequence[tuple[T, float]],
                 fusion: Fusion = FUSIONS["hashing"]) -> dict[T, float]:
    """Weighted reciprocal-rank fusion of a lexical and a (filtered) vector ranking of any ids:
    the same arithmetic for the local store and the team store. A memory only the vectors found
    (no word in common with the query) must be close to count at all."""
    scores: dict[T, float] = {}
    for rank, mid in enumerate(lexical, start=1):
        scores[mid] = scores.get(mid, 0.0) + 1.0 / (RRF_K + rank)
    in_lexical = set(lexical)
    for rank, (mid, similarity) in enumerate(semantic, start=1):
        if mid in in_lexical or similarity >= fusion.vector_only_similarity:
            scores[mid] = scores.get(mid, 0.0) + fusion.vector_weight / (RRF_K + rank)
    return scores


def _fuse(store: Store, lexical: list[int], semantic: list[tuple[int, float]], limit: int,
          fusion: Fusion) -> list[RecallHit]:
    scores = fused_scores(lexical, semantic, fusion)
    _weigh_trust(store, scores)
    order = sorted(scores, key=lambda mid: (-scores[mid], mid))[:limit]
    lex_rank = {mid: i for i, mid in enumerate(lexical, start=1)}
    vec_rank = {mid: i for i, (mid, _) in enumerate(semantic, start=1)}
    return [
        RecallHit(memory, scores[memory.id], lex_rank.get(memory.id), vec_rank.get(memory.id))
        for memory in rows.load(store, order)
    ]


def _weigh_trust(store: Store, scores: dict[int, float]) -> None:
    """Lower what may be stale; raise a little what was said or confirmed recently."""
    now = datetime.now(UTC)
    for mid, (stale, last) in rows.freshness(store, list(scores)).items():
        weight = STALE_WEIGHT if stale else 1.0
        scores[mid] *= weight * (1.0 + RECENCY_WEIGHT * 0.5 ** (_age_days(last, now) / RECENCY_HALF_LIFE_DAYS))


def _age_days(stamp: str, now: datetime) -> float:
    try:
        when = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return 10_000.0
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (now - when).total_seconds() / 86400)
