"""The few memories a prompt bears on, by meaning: what the prompt hook adds to each prompt.

`for_prompt` answers for the warm recall process (`loreline_warm`), which the prompt hook asks:
- the whole prompt is recalled as a question is (`recall.recall`: bm25 and the nearest vectors),
  and each of its first parts (`prompt_parts`: "which pnpm script starts the job, and how does it
  take its lock?" asks two things) adds the memories nearest to it; a memory counts with its best
  similarity to the whole prompt or any part. A prompt of several sentences is embedded sentence
  by sentence, in one pass, its whole being their normalised mean (each word is read once); each
  sentence is embedded as it is understood (`questions.understand`: with the categories it asks about);
- a memory is kept when it is at least `FLOOR` similar, or, when the hook's own word match chose
  it (`words`), at least `WORD_FLOOR` similar: a note that shares a prompt's specific words and
  is near it in meaning. A memory with cue vectors (a similarity that counts the questions it
  answers, `store.search.similarities`) must reach `CUED_FLOOR` either way. An unrelated note costs the assistant's attention, so both bars are
  higher than recall's;
- memories the session already received (`shown`) are left out before the few are picked.

The floors (`recall_rules`, with the rules every recall shares) were chosen on the tuning halves of both retrieval sets
(`PYTHONPATH=scripts python -m evallib.prompt_recall --warm-grid`); the default run of that
module reports the test halves. Letting a memory in at a lower similarity because it shares a
word with the prompt added more unrelated notes than answers there, except for the memories the
hook's word match (which weighs rare words) chose.
"""

from __future__ import annotations

from collections.abc import Iterable

from . import questions
from .embed import Embedder, concepts, default_embedder, family
from .models import Memory
from .recall import recall
from .recall_rules import MAX_PROMPT_CHARS, MEANING, PARTS, USER_SCOPE
from .recall_rules import sentences as split_sentences
from .recall_rules import MEANING_CUED_FLOOR as CUED_FLOOR
from .recall_rules import MEANING_FLOOR as FLOOR
from .recall_rules import MEANING_WORD_FLOOR as WORD_FLOOR
from .store import Store, search, vectorcache
from .store import memories as rows

__all__ = ["CUED_FLOOR", "FLOOR", "MEANING", "WORD_FLOOR", "embed_all", "for_prompt", "prompt_parts"]

WHOLE_PARTS = 12  #: sentences that make up a long prompt's whole (its first 12)
NEAREST = 20  #: neighbours of each part considered
MAX_WORDS = 20
MAX_SHOWN_EXTRA = 20  #: recall this many more when the session was already shown memories


def for_prompt(store: Store, prompt: str, project: str, *, limit: int = 3, floor: float = FLOOR,
               words: Iterable[int] = (), word_floor: float = WORD_FLOOR, shown: Iterable[int] = (),
               embedder: Embedder | None = None, cued_floor: float = CUED_FLOOR) -> list[tuple[Memory, float]] | None:
    """The few active memories of the project (and the user's) the prompt bears on, each with its
    similarity, most similar first; None when the store's embedder does not compare meaning
    (hashing): the caller then chooses by words."""
    embedder = embedder or default_embedder(store)
    if family(embedder.fingerprint) not in MEANING:
        return None
    text = prompt[:MAX_PROMPT_CHARS]
    hidden = set(shown)
    worded = [m for m in rows.load(store, [w for w in dict.fromkeys(words) if w not in hidden][:MAX_WORDS])
              if m.status == "active" and m.project in (project, USER_SCOPE)]
    vector, part_vectors, plain = _vectors(embedder, text)
    depth = max(limit * 3, 10) + min(len(hidden), MAX_SHOWN_EXTRA)
    found = {hit.memory.id: hit.memory for hit in recall(store, text, project, limit=depth, embedder=embedder,
                                                          query_vector=vector) if hit.memory.id not in hidden}
    found.update((m.id, m) for m in worded)
    best = search.similarities(store, vector, list(found))
    for part_vector in part_vectors:
        near = [mid for mid, distance in vectorcache.knn(store, part_vector, project, NEAREST)
                if 1.0 - distance >= floor and mid not in hidden and mid not in found]
        found.update((m.id, m) for m in rows.load(store, near) if m.status == "active")
        for mid, similarity in search.similarities(store, part_vector, list(found)).items():
            best[mid] = max(best.get(mid, -1.0), similarity)
    for plain_vector in plain:  # as worded, before the categories were added
        for mid, similarity in search.similarities(store, plain_vector, list(found)).items():
            best[mid] = max(best.get(mid, -1.0), similarity)
    by_words = {m.id for m in worded} | _on_topic(found.values(), text)
    cued = search.cued(store, list(found))
    kept = [(found[mid], s) for mid, s in best.items()
            if mid in found and (s >= cued_floor if mid in cued else
                                 (s >= floor or (mid in by_words and s >= word_floor)))]
    return sorted(kept, key=lambda pair: (-pair[1], pair[0].id))[:limit]


def _on_topic(memories: Iterable[Memory], prompt: str) -> set[int]:
    """The memories about a category the prompt asks about (`questions.topics`: "which package
    manager?" and "we use uv" share python package manager): kept from the lower floor, as
    those the prompt's words chose are."""
    asked = set(questions.topics(prompt))
    if not asked:
        return set()
    return {m.id for m in memories if asked.intersection(concepts.categories(f"{m.text}\n{m.cues}"))}


def _vectors(embedder: Embedder, text: str) -> tuple[bytes, list[bytes], list[bytes]]:
    """The prompt's vector, its first parts' vectors (each sentence as understood: with the
    categories it asks about, `questions.understand`) and the plain vectors of the whole or
    parts the understanding changed (a memory counts with its best similarity to either). A
    prompt of several sentences is embedded sentence by sentence (in one pass) and the whole is
    their normalised mean: each word is read once, not twice, which halves the cost of a long
    prompt."""
    sentences = _sentences(text) or [text]
    if len(sentences) < 2:
        sentences = [text]
    understood = [questions.understand(s).text for s in sentences[:WHOLE_PARTS]]
    changed = [s for s, u in zip(sentences[:PARTS], understood) if s != u]
    vectors = embed_all(embedder, understood + changed)
    plain = vectors[len(understood):]
    if len(understood) < 2:
        return vectors[0], [], plain
    return _mean(vectors[:len(understood)]), vectors[:PARTS], plain


def _mean(vectors: list[bytes]) -> bytes:
    from array import array

    width = len(vectors[0]) // 4
    total = [0.0] * width
    for raw in vectors:
        for i, value in enumerate(array("f", raw)):
            total[i] += value
    norm = sum(v * v for v in total) ** 0.5
    return array("f", [v / norm for v in total] if norm else total).tobytes()


def embed_all(embedder: Embedder, texts: list[str]) -> list[bytes]:
    """Each text's vector, in one pass where the embedder can (`MiniLMEmbedder.embed_many`)."""
    many = getattr(embedder, "embed_many", None)
    return list(many(texts)) if many is not None else [embedder.embed(text) for text in texts]


def prompt_parts(text: str) -> list[str]:
    """The first `PARTS` sentences or joined questions of a prompt ("…, and how …"), when it has
    more than one; each at least `recall_rules.MIN_PART` characters."""
    parts = _sentences(text)
    return parts[:PARTS] if len(parts) > 1 else []


def _sentences(text: str) -> list[str]:
    return split_sentences(text)
