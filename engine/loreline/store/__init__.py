"""The store: one SQLite file opened with apsw, with sqlite-vec loaded.

The standard library's `sqlite3` of many Pythons cannot load extensions, so the store uses
apsw, which bundles a current SQLite and loads sqlite-vec everywhere. WAL mode, a busy
timeout, foreign keys and memory-mapped reads are set on every connection; migrations run on
open. The file and its directory are private to the user (0600 / 0700).

A store this user cannot write (a read-only mount or folder, `chmod a-w`) is opened read-only
(`Store.read_only`): every read works and `write()` raises one StoreError line saying so.

Writes go through `write()`: one `BEGIN IMMEDIATE` transaction, so two writers queue on the
busy timeout instead of failing half-way, and an error rolls everything back.

The store owns every table's SQL: one module per table or concern (`memories`, `conflicts`,
`ledger`, `replays`, `usage`, `jobs`, `search`, `migrations`) with functions named for what
they mean; nothing outside this package writes a statement (`tests/test_layout.py` checks).
The one exception is the hook's read-only SessionStart query in `loreline.capture.hookread`,
which must not import apsw.
"""

from __future__ import annotations

import importlib.util
import os
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import apsw

from .. import home
from ..errors import StoreBusyError, StoreCorruptError, StoreError
from . import migrations

TYPE_CHECKING = False  # typing is left to the type checker: the everyday commands import none of it
if TYPE_CHECKING:
    from typing import Any

BUSY_TIMEOUT_MS = 15_000
RECLAIM_MIN_PAGES = 256  # 1 MiB of 4 KiB pages
MMAP_BYTES = 1 << 30  # address space, not memory: only the pages read become resident


_VEC_DAMAGE = re.compile(r"blob|malformed|shadow|corrupt", re.IGNORECASE)


def _vec_extension() -> str:
    """Where sqlite-vec's loadable extension lies, found without importing the `sqlite_vec` package
    (its `__init__` imports numpy, ~50 ms that opening a store for a listing must not pay)."""
    global _VEC_PATH
    if _VEC_PATH is None:
        spec = importlib.util.find_spec("sqlite_vec")
        folders = list(spec.submodule_search_locations or ()) if spec is not None else []
        if not folders:
            import sqlite_vec  # an unusual install: let the package say where it is

            _VEC_PATH = str(sqlite_vec.loadable_path())
        else:
            _VEC_PATH = os.path.join(folders[0], "vec0")  # the name `sqlite_vec.loadable_path()` gives
    return _VEC_PATH


_VEC_PATH: str | None = None


def is_damage(err: BaseException) -> bool:
    """What a damaged file raises: SQLite's own corruption errors, and sqlite-vec's SQL errors
    when its shadow tables no longer hold what it wrote (not every SQL error: those are bugs)."""
    if isinstance(err, (apsw.CorruptError, apsw.NotADBError)):
        return True
    return isinstance(err, apsw.SQLError) and bool(_VEC_DAMAGE.search(str(err)))


def damage(err: BaseException) -> str:
    text = str(err).split(":", 1)[-1].strip() or err.__class__.__name__
    return text[:120]


class Store:
    def __init__(self, path: Path | None = None, *, busy_timeout_ms: int = BUSY_TIMEOUT_MS) -> None:
        self.path = path or home.db_path()
        #: the front end changes are made through, for the audit (None: the command line)
        self.via: str | None = None
        self.read_only = _read_only(self.path)
        if not self.read_only:
            try:
                home.ensure_private_dir(self.path.parent)
            except OSError as err:
                raise StoreError(f"cannot use {self.path.parent} for the store: {err.strerror or err}") from None
            _touch_private(self.path)
        try:
            self.conn = _connect_read_only(self.path) if self.read_only else apsw.Connection(str(self.path))
            self.conn.setbusytimeout(busy_timeout_ms)
            self.conn.enable_load_extension(True)
            self.conn.load_extension(_vec_extension())
            self.conn.enable_load_extension(False)
            self.conn.create_scalar_function("loreline_scope_token", _scope_token_sql, 1, deterministic=True)
            self.conn.create_scalar_function("loreline_topic_words", _topic_words_sql, 2, deterministic=True)
            if not self.read_only:
                self._enable_wal(busy_timeout_ms)
            self.conn.execute("PRAGMA foreign_keys=ON")
            self.conn.execute("PRAGMA synchronous=NORMAL")
            self.conn.execute(f"PRAGMA mmap_size={MMAP_BYTES}")  # reads without a copy: a KNN reads ~1 KiB a memory
            pending = migrations.pending(self)
            if pending and self.read_only:
                raise StoreError(f"{self.path} is read-only and was written by an older Loreline; open it once "
                                 "with write access to upgrade it")
            if pending:  # a write lock only when there is something to migrate
                with self.write():
                    applied = migrations.apply(self)
                if migrations.RECLAIMS.intersection(applied):
                    self._reclaim()
        except (apsw.NotADBError, apsw.CorruptError) as err:
            raise StoreCorruptError(
                f"{self.path} is damaged or not a Loreline database ({err.__class__.__name__}); "
                "move it aside and re-import"
            ) from None
        except apsw.BusyError:
            raise StoreBusyError(f"{self.path} is locked by another process; try again") from None
        for suffix in ("-wal", "-shm"):
            if not self.read_only:
                home.make_private_file(Path(str(self.path) + suffix))

    def _enable_wal(self, timeout_ms: int) -> None:
        """WAL mode, once per file. Switching needs a moment of exclusive access and SQLite
        does not wait for it (the busy handler is not used), so two processes opening a new
        store together retry here instead of failing."""
        deadline = time.monotonic() + timeout_ms / 1000
        delay = 0.005
        while True:
            try:
                if str(self.conn.execute("PRAGMA journal_mode").fetchall()[0][0]).lower() != "wal":
                    self.conn.execute("PRAGMA journal_mode=WAL")
                return
            except apsw.BusyError:
                if time.monotonic() + delay > deadline:
                    raise
                time.sleep(delay)
                delay = min(delay * 2, 0.2)

    def _reclaim(self) -> None:
        """Give the pages a migration freed back to the file system (VACUUM, then a WAL
        checkpoint), when there are more than a few. Best effort: when another process keeps
        the store busy the file stays as large, and later writes reuse the free pages."""
        if int(self.scalar("PRAGMA freelist_count")) < RECLAIM_MIN_PAGES:
            return
        try:
            self.conn.execute("VACUUM")
            self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except apsw.BusyError:
            pass

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def write(self) -> Iterator[apsw.Connection]:
        """One immediate transaction; nested use joins the outer one."""
        if self.read_only:
            raise StoreError(self.read_only_message())
        if not self.conn.get_autocommit():
            yield self.conn
            return
        try:
            self.conn.execute("BEGIN IMMEDIATE")
        except apsw.BusyError:
            raise StoreBusyError(f"{self.path} stayed locked by another writer; try again") from None
        try:
            yield self.conn
        except BaseException as err:
            self._rollback()
            if is_damage(err):
                raise StoreCorruptError(f"{self.path} is damaged ({damage(err)}); move it aside and re-import") from None
            if isinstance(err, apsw.BusyError):
                raise StoreBusyError(f"{self.path} stayed locked by another writer; try again") from None
            raise
        else:
            try:
                self.conn.execute("COMMIT")
            except apsw.Error as err:
                if is_damage(err):
                    raise StoreCorruptError(f"{self.path} is damaged ({damage(err)}); move it aside and re-import") \
                        from None
                raise

    def read_only_message(self) -> str:
        return (f"{self.path} is read-only (a read-only folder or mount); reading works, "
                "but this command writes: run it with a writable Loreline home")

    def _rollback(self) -> None:
        try:
            self.conn.execute("ROLLBACK")
        except apsw.Error:
            pass  # the transaction may already be gone (a damaged file, an interrupted statement)

    def rows(self, sql: str, params: tuple[Any, ...] | dict[str, Any] = ()) -> list[tuple[Any, ...]]:
        try:
            return list(self.conn.execute(sql, params))
        except apsw.BusyError:
            raise StoreBusyError(f"{self.path} is locked by another process; try again") from None
        except apsw.ReadOnlyError:
            raise StoreError(self.read_only_message()) from None
        except apsw.Error as err:
            if is_damage(err):
                raise StoreCorruptError(f"{self.path} is damaged ({damage(err)}); move it aside and re-import") \
                    from None
            raise

    def one(self, sql: str, params: tuple[Any, ...] | dict[str, Any] = ()) -> tuple[Any, ...] | None:
        found = self.rows(sql, params)
        return found[0] if found else None

    def scalar(self, sql: str, params: tuple[Any, ...] | dict[str, Any] = ()) -> Any:
        row = self.one(sql, params)
        return row[0] if row else None

    def meta(self, key: str) -> str | None:
        value = self.scalar("SELECT value FROM meta WHERE key = ?", (key,))
        return str(value) if value is not None else None

    def set_meta(self, key: str, value: str) -> None:
        self.conn.execute(
            "INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )


def scope_token(project: str) -> str:
    """One full-text token standing for a project: `p` and 15 digits of its hash (digits, so
    no stemmer ever changes it)."""
    import hashlib  # here: hashlib loads OpenSSL, which listing memories does not need

    digest = hashlib.blake2b(project.encode("utf-8"), digest_size=8).digest()
    return "p" + str(int.from_bytes(digest, "big") % 10**15).zfill(15)


def _scope_token_sql(*args: Any) -> str:
    return scope_token(str(args[0]))


def _topic_words_sql(*args: Any) -> str:
    """A memory's words for the index's `cues` column (`questions.topic_words`)."""
    from ..questions import topic_words

    return topic_words(str(args[0] or ""), str(args[1] or ""))


def _touch_private(path: Path) -> None:
    try:
        fd = home.open_private(path, os.O_RDWR)
    except OSError as err:
        raise StoreError(f"cannot open the store at {path}: {err.strerror}") from None
    os.close(fd)


def _read_only(path: Path) -> bool:
    """An existing store this user cannot write (a read-only mount, a folder or file without
    write permission): it is opened for reading only, and commands that write say so."""
    try:
        return path.is_file() and not (os.access(path.parent, os.W_OK) and os.access(path, os.W_OK))
    except OSError:
        return False


def _connect_read_only(path: Path) -> apsw.Connection:
    """Open without creating or changing any file. A WAL database needs its `-shm` index,
    which SQLite cannot create in a read-only folder: when it is missing (the last writer
    closed cleanly, so there is no pending `-wal` content either) the file is opened as
    immutable, which reads the main file alone and takes no locks."""
    from urllib.parse import quote

    uri = "file:" + quote(str(path.resolve()), safe="/")
    flags = apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI
    if Path(str(path) + "-shm").exists():
        conn = apsw.Connection(uri + "?mode=ro", flags=flags)
        try:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchall()
            return conn
        except apsw.Error:
            conn.close()
    return apsw.Connection(uri + "?immutable=1", flags=flags)
