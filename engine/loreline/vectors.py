"""Which embedder made the store's vectors, and rebuilding them with another one.

The store is stamped (`meta.embedder`) with the fingerprint of the embedder that wrote its
vectors the first time any are written. Vectors of two embedders never mix: recall and
imports refuse a store stamped by another embedder with one clear line, and `reembed()`
recomputes every memory's vector in one transaction and re-stamps the store.
"""

from __future__ import annotations

from collections.abc import Callable

from . import questions
from .embed import Embedder
from .errors import StoreError
from .store import Store, search
from .store import memories as rows

BATCH = 500

EMBEDDER_KEY = "embedder"


def ensure(store: Store, embedder: Embedder, *, stamp: bool = True) -> None:
    """Refuse a store whose vectors came from another embedder; stamp an unstamped one
    (writers only: a reader passes `stamp=False` and never takes the write lock)."""
    stored = store.meta(EMBEDDER_KEY)
    if stored is not None and stored != embedder.fingerprint:
        raise StoreError(f"the store's vectors were made by {stored}, but this Loreline embeds with "
                         f"{embedder.fingerprint}; run `loreline reembed` to rebuild them")
    if stored is None and stamp:
        with store.write():
            store.set_meta(EMBEDDER_KEY, embedder.fingerprint)


def cue_lines(cues: str) -> list[str]:
    """The cue lines that get a vector of their own: each question a memory answers and its topic
    words, as a model or a person wrote them. The glossary's lines (a rules memory's cues) get
    none: they name categories, which recall matches by words (`questions.topics`)."""
    own, _ = questions.split_cues("", cues)
    return [line.strip() for line in own.splitlines() if line.strip()]


def embed_cues(embedder: Embedder, cues: str) -> list[bytes]:
    """One vector per cue line (`cue_lines`), in one pass where the embedder can."""
    lines = cue_lines(cues)
    if not lines:
        return []
    many = getattr(embedder, "embed_many", None)
    return list(many(lines)) if many is not None else [embedder.embed(line) for line in lines]


def put_cues(store: Store, memory_id: int, embedder: Embedder, cues: str) -> None:
    """Make and store (replacing any) the vectors of a memory's cue lines."""
    search.put_cue_vectors(store, memory_id, embed_cues(embedder, cues))


def stamp(store: Store) -> str | None:
    """The fingerprint of the embedder that made the store's vectors (None before any)."""
    return store.meta(EMBEDDER_KEY)


def reembed(store: Store, embedder: Embedder, progress: Callable[[int], None] | None = None) -> int:
    """Recompute every memory's vector (and its cue vectors) with `embedder`; returns how many
    memories were embedded.
    `progress` hears the running count after each batch of `BATCH`."""
    count = 0
    with store.write():
        last = 0
        while True:
            batch = rows.texts_after(store, last, BATCH)
            if not batch:
                break
            cues = rows.cues_of(store, [memory_id for memory_id, _, _ in batch])
            for memory_id, _project, text in batch:
                search.put_vector(store, memory_id, embedder.embed(text))
                put_cues(store, memory_id, embedder, cues.get(memory_id, ""))
                count += 1
            last = batch[-1][0]
            if progress is not None:
                progress(count)
        store.set_meta(EMBEDDER_KEY, embedder.fingerprint)
    return count
