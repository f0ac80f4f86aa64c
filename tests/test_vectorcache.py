"""Recall's in-memory KNN answers as the SQL scan does, and never from vectors the store no longer has."""

from __future__ import annotations

import random
from array import array
from pathlib import Path

import pytest

from loreline.store import Store, search, vectorcache
from loreline.store import memories as rows

WIDTH = 384


def unit(rng: random.Random) -> bytes:
    values = [rng.gauss(0.0, 1.0) for _ in range(WIDTH)]
    norm = sum(v * v for v in values) ** 0.5
    return array("f", [v / norm for v in values]).tobytes()


def fill(store: Store, project: str, count: int, rng: random.Random) -> list[int]:
    ids = []
    with store.write():
        for i in range(count):
            mid = rows.insert(store, rows.NewMemory(project, "fact", f"memory {project} {i}", None, "t"))
            search.put_vector(store, mid, unit(rng))
            ids.append(mid)
    return ids


def test_the_held_matrix_answers_as_the_sql_scan_does(loreline_home: Path) -> None:
    rng = random.Random(3)
    with Store() as store:
        fill(store, "/a", 300, rng)
        fill(store, "/b", 50, rng)
        with store.write():
            mid = rows.insert(store, rows.NewMemory("/a", "fact", "nothing to embed", None, "t"))
            search.put_vector(store, mid, bytes(4 * WIDTH))  # no direction: never a neighbour
        for _ in range(20):
            query = unit(rng)
            expected = search.knn(store, query, "/a", 25)
            found = vectorcache.knn(store, query, "/a", 25)
            assert [m for m, _ in found] == [m for m, _ in expected]
            assert all(abs(a - b) < 1e-5 for (_, a), (_, b) in zip(found, expected))
            assert mid not in {m for m, _ in found}
        assert {m for m, _ in vectorcache.knn(store, query, "/b", 100)} <= set(range(301, 352))


def test_a_write_by_this_connection_or_another_is_seen_by_the_next_knn(loreline_home: Path) -> None:
    rng = random.Random(4)
    with Store() as store:
        fill(store, "/a", 40, rng)
        query = unit(rng)
        vectorcache.knn(store, query, "/a", 5)  # held now
        with store.write():
            mine = rows.insert(store, rows.NewMemory("/a", "fact", "the answer", None, "t"))
            search.put_vector(store, mine, query)
        assert vectorcache.knn(store, query, "/a", 1)[0][0] == mine
        with Store() as other:
            with other.write():
                theirs = rows.insert(other, rows.NewMemory("/a", "fact", "another answer", None, "t"))
                search.put_vector(other, theirs, query)
                search.put_vector(other, mine, unit(rng))  # replaced: no longer the answer
        nearest = vectorcache.knn(store, query, "/a", 2)
        assert nearest[0][0] == theirs and mine != nearest[1][0]


def test_a_project_too_large_to_hold_is_answered_in_sql(loreline_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(5)
    monkeypatch.setattr(vectorcache, "MAX_VECTORS", 10)
    loads: list[str] = []
    real_load = vectorcache._load
    monkeypatch.setattr(vectorcache, "_load", lambda *a: loads.append(a[1]) or real_load(*a))
    with Store() as store:
        fill(store, "/big", 30, rng)
        fill(store, "/small", 5, rng)
        query = unit(rng)
        assert vectorcache.knn(store, query, "/big", 3) == search.knn(store, query, "/big", 3)
        vectorcache.knn(store, query, "/small", 3)
    assert loads == ["/small"]
