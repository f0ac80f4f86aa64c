"""A project's vectors held in memory for recall: one matrix product instead of a scan.

`search.knn` scores every vector of the project in SQL, one row at a time: about 7 ms for
10,000 vectors of the sentence model, most of it per-row overhead. A process that recalls
more than once (the language server, the MCP server) keeps each queried project's vectors
as one float32 matrix and answers a KNN with a matrix-vector product (well under a
millisecond). The matrix is dropped when the store changes: any commit, by this connection
(`total_changes`) or another one (`PRAGMA data_version`), gives the store a new generation,
and the next KNN reads the vectors again. Projects over `MAX_VECTORS` vectors are not held
(the memory would be too much), nor are vectors of a width other than the query's: their KNN
stays in SQL, and that choice is kept for the generation like a matrix.

A memory's cue vectors (`memory_cue_vec`, one per cue line) are rows of the matrix too, next to
its own vector; a memory's similarity is its best row's, as `search.knn` answers in SQL.

Results are `search.knn`'s: (memory id, cosine distance), nearest first, ties by id, vectors
with no direction left out.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any

from ..records import record
from . import Store, search

MAX_VECTORS = 50_000

VECTORS_OF_PROJECT = (
    "SELECT v.memory_id, v.embedding FROM memories m JOIN memory_vec v ON v.memory_id = m.id "
    "WHERE m.project = ?1 UNION ALL "
    "SELECT c.memory_id, c.embedding FROM memories m JOIN memory_cue_vec c ON c.memory_id = m.id "
    "WHERE m.project = ?1 ORDER BY 1"
)
#: the rows a project's matrix would have: one per memory and one per cue line
COUNT_OF_PROJECT = ("SELECT (SELECT count(*) FROM memories WHERE project = ?1) + (SELECT count(*) FROM memories m "
                    "JOIN memory_cue_vec c ON c.memory_id = m.id WHERE m.project = ?1)")


@record(frozen=False)
class _Held:
    generation: tuple[int, int]
    ids: Any  # int64 memory ids, one per row; None: this project's KNN is answered in SQL
    matrix: Any  # float32, one unit row per vector (rows of vectors with no direction dropped)
    #: where each memory's rows start, when some memory has more than one (its cue vectors)
    starts: Any = None


_lock = threading.Lock()
_held: weakref.WeakKeyDictionary[Any, dict[str, _Held]] = weakref.WeakKeyDictionary()


def knn(store: Store, vector: bytes, project: str, k: int) -> list[tuple[int, float]]:
    """The k nearest vectors of one project, as `search.knn` answers it."""
    generation = _generation(store)
    width = len(vector) // 4
    held = _lookup(store, project, generation)
    if held is None or (held.ids is not None and held.matrix.shape[1] != width):
        if int(store.scalar(COUNT_OF_PROJECT, (project,)) or 0) > MAX_VECTORS:
            held = _keep(store, project, _Held(generation, None, None))
        else:
            held = _load(store, project, generation, width)
    if held.ids is None:
        return search.knn(store, vector, project, k)
    if not len(held.ids):
        return []
    import numpy as np

    query = np.frombuffer(vector, dtype=np.float32)
    norm = float(np.sqrt(query @ query))
    if norm == 0.0:
        return search.knn(store, vector, project, k)
    similarity = held.matrix @ (query / norm)
    if held.starts is not None:  # cue vectors too: each memory's best row (its rows are adjacent)
        similarity = np.maximum.reduceat(similarity, held.starts)
    ids = held.ids if held.starts is None else held.ids[held.starts]
    count = min(k, len(similarity))
    top = np.argpartition(-similarity, count - 1)[:count] if count < len(similarity) else np.arange(len(similarity))
    order = sorted(top.tolist(), key=lambda i: (-float(similarity[i]), int(ids[i])))
    return [(int(ids[i]), 1.0 - float(similarity[i])) for i in order]


def _generation(store: Store) -> tuple[int, int]:
    version = store.scalar("PRAGMA data_version")
    return int(store.conn.total_changes()), int(version or 0)


def _lookup(store: Store, project: str, generation: tuple[int, int]) -> _Held | None:
    with _lock:
        held = _held.get(store.conn, {}).get(project)
    return held if held is not None and held.generation == generation else None


def _load(store: Store, project: str, generation: tuple[int, int], width: int) -> _Held:
    """The project's matrix, or the mark that its KNN stays in SQL (no vectors, or some of another
    width); either is kept for this generation."""
    import numpy as np

    rows = store.rows(VECTORS_OF_PROJECT, (project,))
    blobs = [(int(mid), bytes(blob)) for mid, blob in rows if len(blob) == 4 * width]
    if not rows or len(blobs) != len(rows):
        return _keep(store, project, _Held(generation, None, None))
    ids = np.array([mid for mid, _ in blobs], dtype=np.int64)
    matrix = np.frombuffer(b"".join(blob for _, blob in blobs), dtype=np.float32).reshape(len(blobs), width)
    norms = np.sqrt(np.einsum("ij,ij->i", matrix, matrix))
    keep = norms > 0
    ids = ids[keep]
    starts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]]) if len(ids) else None
    if starts is not None and len(starts) == len(ids):
        starts = None
    return _keep(store, project, _Held(generation, ids, (matrix[keep] / norms[keep, None]).astype(np.float32),
                                       starts))


def _keep(store: Store, project: str, held: _Held) -> _Held:
    with _lock:
        _held.setdefault(store.conn, {})[project] = held
    return held
