"""Recall: the memories of a project that answer a query, each with its provenance.

Two rankings are fused by reciprocal rank (k = 60): FTS5 bm25 over the memory text and
the nearest embeddings (`store.vectorcache`: the project's vectors held in memory between
store changes, else sqlite-vec in SQL), both within the project (plus user-scope memories).
With an embedder that compares meaning, a bm25 hit must also be close enough in meaning
(`Fusion.lexical_floor`), so a shared word alone never shows a memory. A memory's similarity is
its best: its own vector's or one of its cue vectors' (each question it answers, its topic words,
as a model or a person wrote them), and when a memory with cue vectors would be shown, one of
the shown must reach `Fusion.answer_floor` (a question near the project's that none answers
gets nothing).
A bm25 hit that holds every content word of the query (`recall_rules.terms`: "how do I upgrade a
module?" asks for upgrade and module) is what the question plainly asks for: it passes the
lexical floor and answers, whatever the sentence model makes of a memory full of command text
(`Fusion.covered_words`).
Superseded and forgotten memories are left out unless asked for.

Then trust: a memory that may be stale (its files changed since, `staleness`) counts for
`STALE_WEIGHT` of its score, and a recently said or confirmed one gets up to `RECENCY_WEIGHT`
more (halving every `RECENCY_HALF_LIFE_DAYS`), so of two equally relevant memories the one
confirmed last week comes before the one nobody has looked at for a year.

The constants every recall shares with the hooks are in `recall_rules`. The weights come from
`scripts/eval` (retrieval), per embedder, chosen on the tuning half of
its question set: with the sentence model the vectors weigh twice bm25 and carry the
paraphrases; with the hashing embedder, which compares spelling, they only break ties.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import UTC, datetime
from typing import TypeVar

from . import questions, vectors
from .embed import Embedder, default_embedder, family
from .models import RecallHit
from .recall_rules import (RECENCY_HALF_LIFE_DAYS, RECENCY_WEIGHT, RRF_K, STALE_WEIGHT, USER_SCOPE, fresh_covers,
                           session_order, terms, with_authors)
from .records import record
from .store import Store, offered
from .store import memories as rows
from .store import search, vectorcache

__all__ = ["COVERED_WORDS", "FUSIONS", "RECENCY_HALF_LIFE_DAYS", "RECENCY_WEIGHT", "RRF_K", "STALE_WEIGHT", "USER_SCOPE", "Fusion",
           "answered", "covering", "fused_scores", "fusion_for", "recall", "session_notes"]

T = TypeVar("T", int, str)
#: the fewest content words a query must have for a memory holding them all to be kept by words alone
COVERED_WORDS = 2


@record
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
    #: the lower floor for a bm25 hit about a category the query asks about (`questions.topics`:
    #: "may I spin up infrastructure by hand?" and a Terraform rule); None: the lexical floor
    topic_floor: float | None = None
    #: the similarity (a memory's best: its own vector or one of its cues') that at least one
    #: found memory must reach for recall to show anything: a question near a project's topics
    #: that no memory answers gets nothing; None: no such bar
    answer_floor: float | None = None
    #: a bm25 hit holding every content word of the query (`recall_rules.terms`, at least this
    #: many of them) is kept and answers whatever its similarity; None: no such rule
    covered_words: int | None = None


#: per embedder family (the fingerprint's first word); tuned on the tuning half of
#: tests/eval/retrieval.json (`scripts/eval retrieval`)
FUSIONS = {
    "hashing": Fusion(vector_weight=0.15, min_similarity=0.2, vector_only_similarity=0.45),
    "static": Fusion(vector_weight=2.0, min_similarity=0.2, vector_only_similarity=0.35),
    # topic_floor: chosen on the three sets' tuning halves (0.35 … 0.2 tried; 0.25 lifts sets 2 and 3
    # alike and answers no more abstention questions)
    # answer_floor: chosen with the cue vectors on the three sets' tuning halves (0.45 … 0.55 tried)
    # covered_words: chosen on the three sets' tuning halves (1, 2 and off tried; see docs/benchmarks.md)
    "minilm": Fusion(vector_weight=2.0, min_similarity=0.2, vector_only_similarity=0.3, lexical_floor=0.4,
                     topic_floor=0.25, answer_floor=0.45, covered_words=COVERED_WORDS),
}


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
    """`query_vector`: the embedding of the understood query (`questions.understand(query).text`)
    when the caller already has it (from `embedder`)."""
    embedder = embedder or default_embedder(store)
    fusion = fusion or fusion_for(embedder)
    vectors.ensure(store, embedder, stamp=False)
    statuses = ("active", "superseded", "forgotten") if include_inactive else ("active",)
    depth = max(limit * 4, 20)
    asked = questions.understand(query)
    lexical = search.fts(store, query, (project, USER_SCOPE), depth, statuses, asked.topics)
    vector = query_vector if query_vector is not None else embedder.embed(asked.text)
    allowed = set(statuses)
    has_features = any(vector)  # an all-zero vector (no words at all) has no neighbours
    nearest = vectorcache.knn(store, vector, project, depth) if has_features else []
    status_of = rows.statuses(store, [mid for mid, _ in nearest])
    semantic = [(mid, 1.0 - dist) for mid, dist in nearest
                if status_of.get(mid) in allowed and 1.0 - dist >= fusion.min_similarity]
    similar = {mid: 1.0 - dist for mid, dist in nearest}
    if fusion.lexical_floor is not None or fusion.answer_floor is not None:
        similar.update(search.similarities(store, vector, [mid for mid in lexical if mid not in similar])
                       if has_features else {})
    covered = covering(store, query, lexical, fusion.covered_words)
    if fusion.lexical_floor is not None:
        on_topic = set(search.fts(store, "", (project, USER_SCOPE), depth, statuses, asked.topics)) \
            if fusion.topic_floor is not None and asked.topics else set()
        lexical = _close_enough(lexical, similar, fusion.lexical_floor, on_topic, fusion.topic_floor,
                                covered) if has_features else [mid for mid in lexical if mid in covered]
    if fusion.answer_floor is not None and not answered(lexical, semantic, similar, fusion,
                                                        search.cued(store, [*lexical, *(m for m, _ in semantic)]),
                                                        covered):
        return []
    return _fuse(store, lexical, semantic, limit, fusion, covered)


def covering(store: Store, query: str, lexical: Sequence[int], fewest: int | None) -> set[int]:
    """The bm25 hits that hold every content word of `query` (`recall_rules.terms`: stop words and
    generic request words left out), when it has at least `fewest` of them (None: none do)."""
    words = terms(query)
    if fewest is None or len(words) < fewest or not lexical:
        return set()
    return search.holding_all(store, words, list(lexical))


def answered(lexical: Sequence[int], semantic: Sequence[tuple[int, float]], similar: dict[int, float],
             fusion: Fusion, cued: Collection[int], covered: Collection[int] = ()) -> bool:
    """Whether recall shows anything. When some memory it would show has cue vectors (`cued`: the
    questions it answers were embedded), one of them must reach `fusion.answer_floor` with its
    best similarity (its text's or a cue's): a question that only comes near a project's
    questions is not answered. Among memories without cues (a store from before cues) the bars
    they passed are the only ones: their text alone is never as close to a question. A memory
    holding every content word of the query (`covered`) answers it."""
    shown = list(lexical)
    if any(mid in covered for mid in shown):
        return True
    shown += [mid for mid, s in semantic if mid not in lexical and s >= fusion.vector_only_similarity]
    floor = fusion.answer_floor
    if floor is None or not any(mid in cued for mid in shown):
        return bool(shown)
    return any(similar.get(mid, 0.0) >= floor for mid in shown)


def _close_enough(lexical: list[int], similar: dict[int, float], floor: float, on_topic: Collection[int] = (),
                  topic_floor: float | None = None, covered: Collection[int] = ()) -> list[int]:
    """The bm25 hits at least `floor` similar to the query (`similar`: each memory's best
    similarity; `topic_floor` for those about a category the query asks about, `on_topic`), and
    those holding every content word of the query (`covered`) whatever their similarity."""
    low = floor if topic_floor is None else topic_floor
    return [mid for mid in lexical
            if mid in covered or similar.get(mid, 0.0) >= (low if mid in on_topic else floor)]


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
          fusion: Fusion, covered: Collection[int] = ()) -> list[RecallHit]:
    scores = fused_scores(lexical, semantic, fusion)
    for mid in covered:  # what the question plainly asks for ranks as if the vectors had put it first
        if mid in scores:
            scores[mid] = max(scores[mid], 1.0 / (RRF_K + lexical.index(mid) + 1) + fusion.vector_weight / (RRF_K + 1))
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


def session_notes(store: Store, project: str, *, files: Collection[str] = (),
                  limit: int = 400) -> tuple[list[tuple[int, str, str]], int]:
    """What a session is offered at its start, as notes `(id, kind, text)` in injection order
    (`recall_rules`: by kind; tied to one of `files`, pinned, newest first within a kind), a
    teammate's memory naming who shared it; and how many of the first `limit` were left out
    because the session loads them from a native file. The hook reads the same with the
    standard library (`capture.hookread.session_start_memories`)."""
    found = offered.session_start(store, project, limit)
    if not found:
        return [], 0
    tied = offered.tied(store, files) if files else set()
    covered = fresh_covers(offered.covers(store, project))
    authors = offered.team_authors(store, [i for i, _, _ in found])
    notes = [(i, kind, with_authors(text, authors.get(i))) for i, kind, text in found if i not in covered]
    return session_order(notes, tied), len(found) - len(notes)
