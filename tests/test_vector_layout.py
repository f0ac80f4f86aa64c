"""The vector index costs space per memory, not per project, and old stores are rebuilt into it."""

from __future__ import annotations

from pathlib import Path

import apsw
import pytest
import sqlite_vec

from loreline.embed import HashingEmbedder
from loreline.store import Store, migrations, scope_token
from loreline.store import memories as rows
from loreline.store import search

pytestmark = pytest.mark.slow  # stores rebuilt and re-embedded with the sentence model

VECTORS_MIGRATION = "0006_vectors_by_memory"
EMB = HashingEmbedder()


class _Bare:
    """Just enough of a store for the old migrations to run on a bare connection."""

    def __init__(self, path: Path) -> None:
        self.conn = apsw.Connection(str(path))
        self.conn.enable_load_extension(True)
        self.conn.load_extension(sqlite_vec.loadable_path())
        self.conn.create_scalar_function("loreline_scope_token", lambda p: scope_token(str(p)), 1)


def _old_store(path: Path, projects: int) -> dict[int, tuple[str, bytes]]:
    """A store as the migrations before the vector rebuild left it: a `vec0` table partitioned by
    project, one memory per project, plus a vector whose memory is gone. Returns id → (project, vector)."""
    bare = _Bare(path)
    bare.conn.execute("CREATE TABLE migrations(name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
    for name, migrate in migrations.MIGRATIONS:
        if name == VECTORS_MIGRATION:
            break
        migrate(bare)  # type: ignore[arg-type]
        bare.conn.execute("INSERT INTO migrations VALUES(?, 'then')", (name,))
    written: dict[int, tuple[str, bytes]] = {}
    with bare.conn:
        for i in range(1, projects + 1):
            project, text = f"/home/dev/project-{i:03d}", f"project {i} deploys with make release-{i}"
            bare.conn.execute(
                "INSERT INTO memories(id, project, kind, text, content_hash, created_at, updated_at, extractor) "
                "VALUES(?, ?, 'procedure', ?, ?, 't', 't', 'rules@1')", (i, project, text, rows.content_hash(text)))
            written[i] = (project, EMB.embed(text))
            bare.conn.execute("INSERT INTO memory_vec(memory_id, project, embedding) VALUES(?, ?, ?)",
                              (i, project, written[i][1]))
        bare.conn.execute("INSERT INTO memory_vec(memory_id, project, embedding) VALUES(9999, '/gone', ?)",
                          (EMB.embed("a memory deleted long ago"),))
    bare.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    bare.conn.close()
    return written


def test_an_old_store_is_rebuilt_into_vectors_by_memory_and_shrinks(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    written = _old_store(path, projects=12)
    before = path.stat().st_size
    assert before > 12 * 1024 * 1024  # each project's partition took a whole chunk
    with Store(path) as store:
        applied = {r[0] for r in store.rows("SELECT name FROM migrations")}
        kept = {int(i): bytes(v) for i, v in store.rows("SELECT memory_id, embedding FROM memory_vec")}
        leftovers = store.rows("SELECT name FROM sqlite_master WHERE name LIKE 'memory_vec_%'")
        nearest = search.knn(store, EMB.embed("make release-7"), "/home/dev/project-007", 5)
        elsewhere = search.knn(store, EMB.embed("make release-7"), "/home/dev/project-008", 5)
    assert VECTORS_MIGRATION in applied
    assert kept == {i: vector for i, (_, vector) in written.items()}  # byte for byte; the orphan is gone
    assert leftovers == []  # no vec0 shadow tables remain
    assert [mid for mid, _ in nearest] == [7] and nearest[0][1] < 0.5
    assert [mid for mid, _ in elsewhere] == [8]
    after = path.stat().st_size
    assert after < 1024 * 1024, f"{before:,} → {after:,} bytes"


def test_a_thousand_projects_of_one_memory_stay_small(loreline_home: Path) -> None:
    with Store() as store:
        with store.write():
            for i in range(1000):
                text = f"project {i} pins node {i % 40}"
                mid = rows.insert(store, rows.NewMemory(f"/home/dev/p{i:04d}", "fact", text, None, "t"))
                search.put_vector(store, mid, EMB.embed(text))
        store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        vector_bytes = store.scalar("SELECT sum(pgsize) FROM dbstat WHERE name LIKE 'memory_vec%'")
        found = search.knn(store, EMB.embed("pins node 3"), "/home/dev/p0123", 10)
        path = store.path
    assert [mid for mid, _ in found] == [124]  # ids start at 1
    assert vector_bytes < 1500 * 1000  # about one 4 KiB page per three memories
    assert path.stat().st_size < 4 * 1024 * 1024


def test_a_vector_with_no_direction_is_never_a_neighbour(loreline_home: Path) -> None:
    with Store() as store, store.write():
        zero = rows.insert(store, rows.NewMemory("/p", "fact", "...", None, "t"))
        real = rows.insert(store, rows.NewMemory("/p", "fact", "use pnpm", None, "t"))
        search.put_vector(store, zero, bytes(EMB.dim * 4))
        search.put_vector(store, real, EMB.embed("use pnpm"))
        found = search.knn(store, EMB.embed("pnpm"), "/p", 5)
    assert [mid for mid, _ in found] == [real]


def test_a_vector_of_the_wrong_size_is_refused(loreline_home: Path) -> None:
    with Store() as store:
        with store.write():
            mid = rows.insert(store, rows.NewMemory("/p", "fact", "use pnpm", None, "t"))
        with pytest.raises(apsw.ConstraintError), store.write():
            search.put_vector(store, mid, b"\0" * 6)  # not whole float32 values
        assert store.scalar("SELECT count(*) FROM memory_vec") == 0


def test_a_knn_reads_only_the_project_s_vectors_in_id_order(loreline_home: Path) -> None:
    with Store() as store:
        plan = " | ".join(str(r[-1]) for r in store.rows("EXPLAIN QUERY PLAN " + search.KNN, (EMB.embed("x"), "/p", 5)))
    assert "COVERING INDEX memories_by_project_id (project=?)" in plan and "INTEGER PRIMARY KEY" in plan


def test_vectors_of_another_width_are_kept_after_the_width_migration(tmp_path: Path) -> None:
    """0012 lets a store hold the sentence model's 384-value vectors; the 256-value ones made
    before it are carried over unchanged."""
    written = _old_store(tmp_path / "old.db", 3)
    with Store(tmp_path / "old.db") as store:
        assert "0012_vector_widths" in {r[0] for r in store.rows("SELECT name FROM migrations")}
        kept = {int(i): bytes(v) for i, v in store.rows("SELECT memory_id, embedding FROM memory_vec")}
        assert {mid: vec for mid, (_, vec) in written.items()} == kept
        with store.write():
            mid = rows.insert(store, rows.NewMemory("/p", "fact", "use pnpm", None, "t"))
            search.put_vector(store, mid, b"\0\0\x80?" * 384)
        assert len(store.scalar("SELECT embedding FROM memory_vec WHERE memory_id = ?", (mid,))) == 1536
