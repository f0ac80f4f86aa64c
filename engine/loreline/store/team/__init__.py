"""The team store: one PostgreSQL database with pgvector, shared by a team's machines.

psycopg 3 is imported lazily (`connect()`): the CLI's start-up, hooks and the local store
never load it. Vectors travel in pgvector's text form (`[0.1,0.2,…]`) cast to `vector`
on the server, so no numpy and no client-side adapter are needed. Each value is written with
nine significant digits, enough for any float32 to read back as itself, and pgvector prints the
shortest form that does the same: a vector goes to the server and back bit for bit
(`vector_text`, `vector_bytes`), so a receiver can keep the sender's vector instead of
embedding the text again.

Invariants:
- the DSN never holds a password: the password comes from the OS keyring (`keys`) or from
  libpq's own sources (PGPASSWORD, ~/.pgpass), never from a Loreline file;
- the schema is created and upgraded by named migrations (`migrations`), one transaction
  each, recorded in `loreline_migrations`; two machines migrating at once serialise on an
  advisory lock;
- every statement that changes shared rows runs inside `TeamStore.write()`; a connection
  problem anywhere becomes one TeamUnreachableError line, never a traceback;
- `memories.embedding` is an unsized `vector`: each row keeps its embedder's width, and only the
  widths in `VECTOR_WIDTHS` go in or are searched, each through its own partial HNSW index
  (`memories_vec_<width>`), so a query is only ever compared with vectors of its own width.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ...errors import TeamError, TeamUnreachableError

CONNECT_TIMEOUT = 5
_PASSWORD_IN_URL = re.compile(r"^[a-z]+://[^/@]*:[^/@]*@", re.IGNORECASE)
_PASSWORD_KEY = re.compile(r"(^|\s|[?&])password\s*=", re.IGNORECASE)
#: the vector widths the team table indexes. Each has a partial HNSW index made by a migration:
#: a new width needs a new migration as well as its place here.
VECTOR_WIDTHS = (256, 384)


def check_dsn(dsn: str) -> str:
    """The DSN as given, or a TeamError when it holds a password (it would end up in a file)."""
    dsn = dsn.strip()
    if not dsn:
        raise TeamError("no team server configured; run `loreline team connect postgresql://user@host/db`")
    if _PASSWORD_IN_URL.search(dsn) or _PASSWORD_KEY.search(dsn):
        raise TeamError("the team DSN holds a password; give it without one (the password goes to the OS "
                        "keyring with `loreline team connect --password-stdin`)")
    return dsn


def vector_width(vector: bytes) -> int:
    """How many float32 values `vector` holds; a TeamError unless it is one of `VECTOR_WIDTHS`."""
    width, odd = divmod(len(vector), 4)
    if odd or width not in VECTOR_WIDTHS:
        known = " or ".join(str(w) for w in VECTOR_WIDTHS)
        raise TeamError(f"the team store holds vectors of {known} values, not {len(vector) / 4:g}; "
                        "pick an embedder of one of those widths (`embed.model`)")
    return width


def vector_text(vector: bytes) -> str | None:
    """pgvector's text form of a float32 vector (exact: nine significant digits per value); None
    for an all-zero one (no direction)."""
    from array import array

    values = array("f", vector)
    if not any(values):
        return None
    return "[" + ",".join(f"{v:.9g}" for v in values) + "]"


def vector_bytes(text: str) -> bytes:
    """A float32 vector from pgvector's text form (`[0.1,0.2,…]`): the inverse of `vector_text`."""
    from array import array

    inner = text.strip()[1:-1]
    return array("f", map(float, inner.split(",")) if inner else ()).tobytes()


class TeamStore:
    """One connection to the team database (autocommit off: `write()` commits)."""

    def __init__(self, dsn: str, password: str | None = None, *, migrate: bool = True) -> None:
        try:
            import psycopg
        except ImportError:
            raise TeamError("the team store needs psycopg: pip install 'loreline[team]'") from None
        self._psycopg = psycopg
        extra: dict[str, Any] = {"connect_timeout": CONNECT_TIMEOUT, "application_name": "loreline"}
        if password:
            extra["password"] = password
        try:
            self.conn = psycopg.connect(check_dsn(dsn), autocommit=True, **extra)
        except psycopg.OperationalError as err:
            raise TeamUnreachableError(f"cannot reach the team server: {_first_line(err)}") from None
        if migrate:
            from . import migrations

            with self.write():
                migrations.apply(self)

    def close(self) -> None:
        try:
            self.conn.close()
        except Exception:  # closing a dead connection must not hide the real error
            pass

    def __enter__(self) -> TeamStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def write(self) -> Iterator[Any]:
        """One transaction; a dropped connection or a server error becomes one TeamError line."""
        psycopg = self._psycopg
        try:
            with self.conn.transaction():
                yield self.conn
        except (psycopg.OperationalError, psycopg.InterfaceError) as err:
            raise TeamUnreachableError(f"lost the team server: {_first_line(err)}") from None
        except psycopg.Error as err:
            raise TeamError(f"the team server refused a change: {_first_line(err)}") from None

    def rows(self, sql: str, params: tuple[Any, ...] | dict[str, Any] = ()) -> list[tuple[Any, ...]]:
        psycopg = self._psycopg
        try:
            return list(self.conn.execute(sql, params).fetchall())
        except (psycopg.OperationalError, psycopg.InterfaceError) as err:
            raise TeamUnreachableError(f"lost the team server: {_first_line(err)}") from None
        except psycopg.Error as err:
            raise TeamError(f"the team server refused a query: {_first_line(err)}") from None

    def scalar(self, sql: str, params: tuple[Any, ...] | dict[str, Any] = ()) -> Any:
        found = self.rows(sql, params)
        return found[0][0] if found else None


def _first_line(err: BaseException) -> str:
    text = str(err).strip().splitlines()
    return text[0][:200] if text else err.__class__.__name__
