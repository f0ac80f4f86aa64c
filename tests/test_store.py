"""The SQLite store: schema, migrations, permissions, extensions and damaged files."""

from __future__ import annotations

import stat
import threading
import time
from pathlib import Path

import apsw
import pytest

from loreline.embed import HashingEmbedder
from loreline.errors import StoreBusyError, StoreCorruptError
from loreline.store import Store, migrations
from loreline.store import memories as rows
from loreline.store import search

EXPECTED_TABLES = {
    "meta", "memories", "provenance", "memory_files", "conflicts", "ledger", "replays", "jobs", "audit",
    "usage", "tombstones", "migrations", "memory_fts", "memory_vec",
}


def test_blank_database_gets_the_whole_schema(loreline_home: Path) -> None:
    with Store() as store:
        names = {r[0] for r in store.rows("SELECT name FROM sqlite_master WHERE type IN ('table')")}
        applied = [r[0] for r in store.rows("SELECT name FROM migrations ORDER BY name")]
        journal = store.scalar("PRAGMA journal_mode")
        fks = store.scalar("PRAGMA foreign_keys")
    assert EXPECTED_TABLES <= names
    assert applied == [name for name, _ in migrations.MIGRATIONS]
    assert journal == "wal"
    assert fks == 1
    assert (loreline_home / "loreline.db").is_file()


def test_reopening_applies_no_migration_twice(loreline_home: Path) -> None:
    Store().close()
    with Store() as store:
        assert migrations.apply(store) == []
        assert store.scalar("SELECT count(*) FROM migrations") == len(migrations.MIGRATIONS)


def test_files_and_directory_are_private(loreline_home: Path) -> None:
    with Store() as store:
        with store.write():
            rows.insert(store, rows.NewMemory("/p", "fact", "x is y", None, "test"))
    assert stat.S_IMODE(loreline_home.stat().st_mode) == 0o700
    for name in ("loreline.db", "loreline.db-wal"):
        path = loreline_home / name
        if path.exists():
            assert stat.S_IMODE(path.stat().st_mode) == 0o600, name


def test_vectors_are_searched_within_one_project(loreline_home: Path) -> None:
    emb = HashingEmbedder()
    with Store() as store, store.write():
        a = rows.insert(store, rows.NewMemory("/a", "fact", "postgres advisory locks", None, "t"))
        b = rows.insert(store, rows.NewMemory("/b", "fact", "postgres advisory locks", None, "t"))
        search.put_vector(store, a, emb.embed("postgres advisory locks"))
        search.put_vector(store, b, emb.embed("postgres advisory locks"))
        found_a = search.knn(store, emb.embed("advisory locks"), "/a", 5)
        found_b = search.knn(store, emb.embed("advisory locks"), "/b", 5)
    assert [mid for mid, _ in found_a] == [a]
    assert [mid for mid, _ in found_b] == [b]
    assert found_a[0][1] < 0.5


def test_fts_follows_text_updates(loreline_home: Path) -> None:
    with Store() as store:
        with store.write():
            mid = rows.insert(store, rows.NewMemory("/a", "fact", "use pnpm", None, "t"))
            store.conn.execute("UPDATE memories SET text = 'use yarn' WHERE id = ?", (mid,))
        assert search.fts(store, "pnpm", ("/a",), 5, ("active",)) == []
        assert search.fts(store, "yarn", ("/a",), 5, ("active",)) == [mid]


def test_a_damaged_file_is_one_clear_error(loreline_home: Path) -> None:
    loreline_home.mkdir(parents=True)
    (loreline_home / "loreline.db").write_bytes(b"this is not sqlite at all" * 200)
    with pytest.raises(StoreCorruptError, match="damaged or not a Loreline database"):
        Store()


def test_a_write_rolls_back_as_a_whole(loreline_home: Path) -> None:
    with Store() as store:
        with pytest.raises(RuntimeError):
            with store.write():
                rows.insert(store, rows.NewMemory("/a", "fact", "half written", None, "t"))
                raise RuntimeError("boom")
        assert store.scalar("SELECT count(*) FROM memories") == 0


def test_a_writer_held_too_long_is_a_busy_error_not_a_crash(loreline_home: Path) -> None:
    holder = Store()
    waiter = Store(busy_timeout_ms=200)
    released = threading.Event()

    def hold() -> None:
        with holder.write():
            released.wait(5)

    thread = threading.Thread(target=hold)
    thread.start()
    time.sleep(0.2)
    try:
        with pytest.raises(StoreBusyError, match="locked"):
            with waiter.write():
                pass
    finally:
        released.set()
        thread.join()
        holder.close()
        waiter.close()


def test_a_waiting_writer_proceeds_once_the_lock_is_released(loreline_home: Path) -> None:
    first, second = Store(), Store()
    holding = threading.Event()

    def hold() -> None:
        with first.write():
            rows.insert(first, rows.NewMemory("/a", "fact", "first", None, "t"))
            holding.set()
            time.sleep(0.4)

    thread = threading.Thread(target=hold)
    thread.start()
    holding.wait(5)
    started = time.monotonic()
    with second.write():
        rows.insert(second, rows.NewMemory("/a", "fact", "second", None, "t"))
    waited = time.monotonic() - started
    thread.join()
    assert second.scalar("SELECT count(*) FROM memories") == 2
    assert waited > 0.1  # it really waited for the other writer instead of failing
    first.close()
    second.close()


def test_apsw_loads_sqlite_vec_where_stdlib_sqlite3_may_not() -> None:
    conn = apsw.Connection(":memory:")
    import sqlite_vec

    conn.enable_load_extension(True)
    conn.load_extension(sqlite_vec.loadable_path())
    assert str(next(conn.execute("SELECT vec_version()"))[0]).startswith("v")
