"""Fixtures for the team store tests: one real PostgreSQL + pgvector server per test session,
and a fresh database per test.

Without a server binary the tests skip with the reason; under CI=true that is a failure.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest

from tests.pg_server import PgServer, Unavailable


def _unavailable(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(reason)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def pg() -> Iterator[PgServer]:
    try:
        import psycopg  # noqa: F401
    except ImportError:
        _unavailable("the team tests need psycopg (the dev extras install it)")
    try:
        server = PgServer().start()
    except Unavailable as err:
        _unavailable(str(err))
        raise
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture()
def team_dsn(pg: PgServer) -> str:
    """A fresh, empty database on the session's server."""
    import psycopg

    name = "t_" + uuid.uuid4().hex[:12]
    with psycopg.connect(pg.dsn, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return pg.dsn.rsplit("/", 1)[0] + "/" + name
