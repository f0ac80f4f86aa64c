"""Recall candidates from the team database: full text (tsvector, ts_rank) and vectors (HNSW,
one partial index per vector width).

Both are restricted to one project's active rows and return ranked uids; the caller fuses
them by reciprocal rank exactly like local recall (`recall.fused_order`).
"""

from __future__ import annotations

import re

from . import VECTOR_WIDTHS, TeamStore, vector_text, vector_width

_TOKEN = re.compile(r"\w+", re.UNICODE)
EF_SEARCH = 80
#: the second, wider index search before an exact scan (pgvector's maximum is 1000)
WIDE_EF_SEARCH = 800


def ts_query(text: str) -> str | None:
    """An OR of the query's words for `to_tsquery` (each quoted, so no operator gets through)."""
    from ..search import fts_query

    match = fts_query(text)
    if match is None:
        return None
    words = [w for w in _TOKEN.findall(match.replace('"', " ")) if w != "OR"]
    return " | ".join("'" + w + "'" for w in dict.fromkeys(words)) or None


def fts(team: TeamStore, text: str, project: str, limit: int) -> list[str]:
    query = ts_query(text)
    if query is None:
        return []
    rows = team.rows(
        "SELECT uid FROM memories, to_tsquery('english', %s) q, to_tsquery('simple', 'p' || md5(%s)) p "
        "WHERE tsv @@ (q && p) AND project = %s AND status = 'active' "
        "ORDER BY ts_rank(tsv, q) DESC, seq DESC LIMIT %s",
        (query, project, project, limit),
    )
    return [str(r[0]) for r in rows]


def knn(team: TeamStore, vector: bytes, project: str, k: int, embedder: str) -> list[tuple[str, float]]:
    """The k nearest active rows of one project made by the same embedder: (uid, cosine distance).

    The HNSW index of the query's width answers first. pgvector applies the project filter
    *after* the index search, so a project holding a small share of a large team table can come
    back with fewer than k rows; then a ten times wider index search, and if that is still short
    an exact scan of the project's rows (through the project index), answer instead. A vector
    of a width the table does not hold is a TeamError (`vector_width`)."""
    width = vector_width(vector)
    vec = vector_text(vector)
    if vec is None:
        return []
    params = (vec, project, embedder, vec, k)
    with team.write() as conn:
        for ef in (max(EF_SEARCH, k), WIDE_EF_SEARCH):
            conn.execute(f"SET LOCAL hnsw.ef_search = {ef}")
            rows = conn.execute(knn_sql(width), params).fetchall()
            if len(rows) >= k:
                return [(str(r[0]), float(r[1])) for r in rows]
        rows = conn.execute(knn_sql(width, exact=True), params).fetchall()
    return [(str(r[0]), float(r[1])) for r in rows]


def knn_sql(width: int, *, exact: bool = False) -> str:
    """The nearest-rows query for vectors of `width` (one of `VECTOR_WIDTHS`); parameters are
    (query vector, project, embedder, query vector, k).

    The partial index `memories_vec_<width>` is over `embedding::vector(<width>)` where
    `vector_dims(embedding) = <width>`: the ordering repeats that cast and the filter repeats
    that predicate word for word (the width written in, not a parameter), which is what lets
    the planner pick it. The filter also keeps any other width away from the cast. `exact`
    orders by an expression the index cannot serve, so the rows are scanned instead."""
    if width not in VECTOR_WIDTHS:
        raise ValueError(f"no index for vectors of {width} values")
    distance = f"embedding::vector({width}) <=> %s::vector({width})"
    order = f"({distance}) + 0" if exact else distance
    return (f"SELECT uid, {distance} AS d FROM memories WHERE vector_dims(embedding) = {width} "
            f"AND project = %s AND status = 'active' AND embedder = %s ORDER BY {order} LIMIT %s")


def load(team: TeamStore, uids: list[str]) -> dict[str, tuple[str, str, str, str | None]]:
    """uid → (author, kind, text, observed_at)."""
    if not uids:
        return {}
    return {str(r[0]): (str(r[1]), str(r[2]), str(r[3]), r[4]) for r in team.rows(
        "SELECT uid, author, kind, text, observed_at FROM memories WHERE uid = ANY(%s)", (uids,))}
