"""Candidate lookups for recall and the belief pipeline: FTS5 bm25 and sqlite-vec KNN.

Both are restricted to one project (the full-text rows carry a project token; the KNN walks
the project's memories and scores their vectors) and return ranked memory ids only; callers
load rows. A memory's vectors are its own (`memory_vec`) and one per cue line (`memory_cue_vec`);
its similarity to a query is its best one's.
"""

from __future__ import annotations

import re

from . import Store, scope_token

_TOKEN = re.compile(r"\w+", re.UNICODE)
_STOP = frozenset(
    "a an and are as at be by do does for from how i in is it of on or so that the this to was we what "
    "when where which who why with you our my me us use used using".split()
)


def fts_query(text: str) -> str | None:
    """An FTS5 MATCH expression OR-ing the query's words; None when nothing is searchable."""
    words = [w for w in _TOKEN.findall(text.lower()) if w not in _STOP and len(w) > 1]
    if not words:
        words = [w for w in _TOKEN.findall(text.lower()) if len(w) > 1]
    if not words:
        return None
    unique = list(dict.fromkeys(words))[:32]
    return " OR ".join('"' + w.replace('"', '""') + '"' for w in unique)


#: bm25's weight of a memory's cue words (its cues and its tools' categories) against its text's
CUES_WEIGHT = 0.5


def topics_query(topics: tuple[str, ...]) -> str | None:
    """An FTS5 expression OR-ing the categories a question asks about, as phrases."""
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in topics) if topics else None


def fts(store: Store, text: str, projects: tuple[str, ...], limit: int, statuses: tuple[str, ...],
        topics: tuple[str, ...] = ()) -> list[int]:
    """Memory ids by bm25: the query's words in a memory's text or cue words, and the categories
    it asks about (`questions.topics`) among the cue words."""
    match = fts_query(text)
    asked = topics_query(topics)
    if match is None and asked is None:
        return []
    scopes = " OR ".join(scope_token(p) for p in projects)
    smarks = ",".join("?" * len(statuses))
    wanted = " OR ".join(x for x in (f"{{text cues}} : ({match})" if match else "",
                                     f"cues : ({asked})" if asked else "") if x)
    rows = store.rows(
        f"SELECT m.id FROM (SELECT rowid AS id, bm25(memory_fts, 1.0, 0.0, {CUES_WEIGHT}) AS score FROM memory_fts "
        "WHERE memory_fts MATCH ? ORDER BY score LIMIT ?) hits "
        f"JOIN memories m ON m.id = hits.id WHERE m.status IN ({smarks}) ORDER BY hits.score",
        (f"scope : ({scopes}) AND ({wanted})", limit * 4 if statuses == ("active",) else limit * 2,
         *statuses),
    )
    return [int(r[0]) for r in rows][:limit]


def holding_all(store: Store, words: list[str], memory_ids: list[int]) -> set[int]:
    """Those of the given memories whose text or cue words hold every one of `words` (FTS5's own
    porter stemming: "modules" holds "module")."""
    if not words or not memory_ids:
        return set()
    every = " AND ".join('"' + w.replace('"', '""') + '"' for w in words)
    marks = ",".join("?" * len(memory_ids))
    return {int(r[0]) for r in store.rows(f"SELECT rowid FROM memory_fts WHERE memory_fts MATCH ? AND rowid IN ({marks})",
                                          (f"{{text cues}} : ({every})", *memory_ids))}


KNN = (
    "SELECT v.memory_id, vec_distance_cosine(v.embedding, ?1) AS distance "
    "FROM memories m CROSS JOIN memory_vec v ON v.memory_id = m.id "
    "WHERE m.project = ?2 ORDER BY distance NULLS LAST, v.memory_id LIMIT ?3"
)
#: the nearest cue vectors of a project (a memory's best cue), to merge with `KNN`'s
CUE_KNN = (
    "SELECT c.memory_id, min(vec_distance_cosine(c.embedding, ?1)) AS distance "
    "FROM memories m CROSS JOIN memory_cue_vec c ON c.memory_id = m.id "
    "WHERE m.project = ?2 GROUP BY c.memory_id ORDER BY distance NULLS LAST, c.memory_id LIMIT ?3"
)


def knn(store: Store, vector: bytes, project: str, k: int) -> list[tuple[int, float]]:
    """The k nearest vectors of one project: (memory id, cosine distance), nearest first.

    Exact, not approximate: the project's memories come from `memories_by_project_id` (in id
    order, so their vectors are read in file order) and each vector is scored in C; the
    memories are the outer loop (CROSS JOIN), so another project's vectors are never read. A
    vector with no direction (all zero) has no distance and is left out."""
    best: dict[int, float] = {}
    for sql in (KNN, CUE_KNN):
        for mid, distance in store.rows(sql, (vector, project, k)):
            if distance is not None and float(distance) < best.get(int(mid), 3.0):
                best[int(mid)] = float(distance)
    return sorted(best.items(), key=lambda pair: (pair[1], pair[0]))[:k]


def similarities(store: Store, vector: bytes, memory_ids: list[int]) -> dict[int, float]:
    """Cosine similarity of the given memories to `vector`: each memory's best of its own vector
    and its cue vectors (memories without any are left out)."""
    if not memory_ids:
        return {}
    marks = ",".join("?" * len(memory_ids))
    rows = store.rows(f"SELECT memory_id, min(vec_distance_cosine(embedding, ?1)) FROM ("
                      f"SELECT memory_id, embedding FROM memory_vec WHERE memory_id IN ({marks}) UNION ALL "
                      f"SELECT memory_id, embedding FROM memory_cue_vec WHERE memory_id IN ({marks})) "
                      "GROUP BY memory_id", (vector, *memory_ids, *memory_ids))
    return {int(r[0]): 1.0 - float(r[1]) for r in rows if r[1] is not None}


def copy_cue_vectors(store: Store, from_id: int, to_id: int) -> None:
    """Give a memory's next version the same cue vectors (it keeps the cues)."""
    store.conn.execute("INSERT OR REPLACE INTO memory_cue_vec(memory_id, line, embedding) "
                       "SELECT ?, line, embedding FROM memory_cue_vec WHERE memory_id = ?", (to_id, from_id))


def cued(store: Store, memory_ids: list[int]) -> set[int]:
    """Those of the given memories that have cue vectors."""
    if not memory_ids:
        return set()
    marks = ",".join("?" * len(memory_ids))
    return {int(r[0]) for r in store.rows(f"SELECT DISTINCT memory_id FROM memory_cue_vec WHERE memory_id IN ({marks})",
                                          tuple(memory_ids))}


def put_vector(store: Store, memory_id: int, vector: bytes) -> None:
    """Store (or replace) a memory's vector; the memory's project comes from its row."""
    store.conn.execute("INSERT OR REPLACE INTO memory_vec(memory_id, embedding) VALUES(?, ?)", (memory_id, vector))


def put_cue_vectors(store: Store, memory_id: int, vectors: list[bytes]) -> None:
    """Replace a memory's cue vectors (one per cue line; none: the memory has no cues)."""
    store.conn.execute("DELETE FROM memory_cue_vec WHERE memory_id = ?", (memory_id,))
    for line, vector in enumerate(vectors):
        store.conn.execute("INSERT INTO memory_cue_vec(memory_id, line, embedding) VALUES(?, ?, ?)",
                           (memory_id, line, vector))
