"""Candidate lookups for recall and the belief pipeline: FTS5 bm25 and sqlite-vec KNN.

Both are restricted to one project (the vector table is partitioned by project, so a KNN
never scans another project's vectors) and return ranked memory ids only; callers load rows.
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


def fts(store: Store, text: str, projects: tuple[str, ...], limit: int, statuses: tuple[str, ...]) -> list[int]:
    match = fts_query(text)
    if match is None:
        return []
    scopes = " OR ".join(scope_token(p) for p in projects)
    smarks = ",".join("?" * len(statuses))
    rows = store.rows(
        "SELECT m.id FROM (SELECT rowid AS id, bm25(memory_fts, 1.0, 0.0) AS score FROM memory_fts "
        "WHERE memory_fts MATCH ? ORDER BY score LIMIT ?) hits "
        f"JOIN memories m ON m.id = hits.id WHERE m.status IN ({smarks}) ORDER BY hits.score",
        (f"scope : ({scopes}) AND text : ({match})", limit * 4 if statuses == ("active",) else limit * 2,
         *statuses),
    )
    return [int(r[0]) for r in rows][:limit]


def knn(store: Store, vector: bytes, project: str, k: int) -> list[tuple[int, float]]:
    """The k nearest vectors of one project: (memory id, cosine distance), nearest first."""
    rows = store.rows(
        "SELECT memory_id, distance FROM memory_vec WHERE embedding MATCH ? AND k = ? AND project = ? "
        "ORDER BY distance",
        (vector, k, project),
    )
    return [(int(r[0]), float(r[1])) for r in rows if r[1] is not None]


def put_vector(store: Store, memory_id: int, project: str, vector: bytes) -> None:
    store.conn.execute("DELETE FROM memory_vec WHERE memory_id = ?", (memory_id,))
    store.conn.execute(
        "INSERT INTO memory_vec(memory_id, project, embedding) VALUES(?, ?, ?)", (memory_id, project, vector)
    )
