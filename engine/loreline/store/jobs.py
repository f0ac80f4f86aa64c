"""The capture queue's tables: `jobs` and `spooled` (the spool file names already ingested).

`capture.jobs` owns the rules (states, coalescing, retries, retention; see its docstring);
this module only reads and writes rows. Writers run inside the caller's transaction; payloads
are JSON text, stamps ISO strings, both made by the caller.
"""

from __future__ import annotations

from typing import Any

from . import Store

OPEN_STATES = ("queued", "deferred", "running")
COLUMNS = ("id, session_key, session_path, session_id, tool, event, state, attempts, not_before, "
           "last_error, payload")


def spooled(store: Store, name: str) -> bool:
    """True when this spool file name was ingested already."""
    return store.one("SELECT 1 FROM spooled WHERE name = ?", (name,)) is not None


def record_spooled(store: Store, name: str, job_id: int, at: str) -> None:
    store.conn.execute("INSERT INTO spooled(name, job_id, ingested_at) VALUES(?,?,?)", (name, job_id, at))


def insert_failed(store: Store, kind: str, key: str, error: str, at: str) -> int:
    """A job born failed (an unusable spool file), so the problem is shown, not dropped."""
    store.conn.execute(
        "INSERT INTO jobs(kind, session_key, tool, event, payload, state, attempts, last_error, created_at, "
        "updated_at, finished_at) VALUES(?,?,?,?,?,'failed',0,?,?,?,?)",
        (kind, key, "unknown", None, "{}", error, at, at, at))
    return int(store.conn.last_insert_rowid())


def open_job(store: Store, key: str) -> tuple[int, str] | None:
    """The session's open (queued, deferred or running) job: (id, payload)."""
    row = store.one(f"SELECT id, payload FROM jobs WHERE session_key = ? AND state IN {OPEN_STATES}", (key,))
    return None if row is None else (int(row[0]), str(row[1]))


def update_open(store: Store, job_id: int, event: str, payload: str, path: str | None, at: str) -> None:
    store.conn.execute(
        "UPDATE jobs SET event = ?, payload = ?, session_path = coalesce(?, session_path), updated_at = ? "
        "WHERE id = ?", (event, payload, path, at, job_id))


def insert_queued(store: Store, kind: str, key: str, path: str | None, session_id: str, tool: str, event: str,
                  payload: str, at: str) -> int:
    store.conn.execute(
        "INSERT INTO jobs(kind, session_key, session_path, session_id, tool, event, payload, state, attempts, "
        "created_at, updated_at) VALUES(?,?,?,?,?,?,?,'queued',0,?,?)",
        (kind, key, path, session_id, tool, event, payload, at, at))
    return int(store.conn.last_insert_rowid())


def requeue_running(store: Store, at: str) -> int:
    """Every `running` job back to `queued`, noting the interrupted attempt; how many."""
    store.conn.execute(
        "UPDATE jobs SET state = 'queued', not_before = NULL, updated_at = ?, "
        "last_error = 'the worker stopped during attempt ' || attempts WHERE state = 'running'", (at,))
    return int(store.conn.changes())


def next_due(store: Store, at: str) -> tuple[Any, ...] | None:
    """The job (`COLUMNS`) to run next: queued or deferred, due by `at`, oldest first."""
    return store.one(
        f"SELECT {COLUMNS} FROM jobs WHERE state IN ('queued', 'deferred') "
        "AND (not_before IS NULL OR not_before <= ?) ORDER BY coalesce(not_before, created_at), id LIMIT 1", (at,))


def next_wake(store: Store) -> str | None:
    value = store.scalar("SELECT min(not_before) FROM jobs WHERE state = 'deferred' AND not_before IS NOT NULL")
    return None if value is None else str(value)


def row(store: Store, job_id: int) -> tuple[Any, ...] | None:
    return store.one(f"SELECT {COLUMNS} FROM jobs WHERE id = ?", (job_id,))


def mark_running(store: Store, job_id: int, at: str) -> None:
    store.conn.execute("UPDATE jobs SET state = 'running', attempts = attempts + 1, updated_at = ? "
                       "WHERE id = ?", (at, job_id))


def resolve_failed(store: Store, key: str, by_job: int, at: str) -> None:
    """The session's failed jobs are done: a later job imported the session."""
    store.conn.execute(
        "UPDATE jobs SET state = 'done', finished_at = ?, updated_at = ?, payload = '{}', "
        "last_error = coalesce(last_error, '') || ' (resolved by job ' || ? || ')' "
        "WHERE session_key = ? AND state = 'failed'", (at, at, by_job, key))


def set_state(store: Store, job_id: int, state: str, payload: str, not_before: str | None, error: str | None,
              at: str, *, attempts: int | None = None, finished: bool = False) -> None:
    store.conn.execute(
        "UPDATE jobs SET state = ?, payload = ?, not_before = ?, last_error = ?, updated_at = ?, "
        "attempts = coalesce(?, attempts), finished_at = CASE WHEN ? THEN ? ELSE finished_at END WHERE id = ?",
        (state, payload, not_before, error, at, attempts, finished, at, job_id))


def failed_with_marker(store: Store, before: str) -> list[tuple[int, str]]:
    """(id, payload) of failed jobs last touched before `before` that still hold hook text."""
    return [(int(r[0]), str(r[1])) for r in store.rows(
        "SELECT id, payload FROM jobs WHERE state = 'failed' AND updated_at < ? AND payload LIKE '%\"marker\"%'",
        (before,))]


def set_payload(store: Store, job_id: int, payload: str) -> None:
    store.conn.execute("UPDATE jobs SET payload = ? WHERE id = ?", (payload, job_id))


def delete_done(store: Store, before: str) -> None:
    store.conn.execute("DELETE FROM jobs WHERE state = 'done' AND updated_at < ?", (before,))


def delete_spooled(store: Store, before: str) -> None:
    store.conn.execute("DELETE FROM spooled WHERE ingested_at < ?", (before,))


def count_by_state(store: Store) -> dict[str, int]:
    return {str(state): int(n) for state, n in store.rows("SELECT state, count(*) FROM jobs GROUP BY state")}


def recent_failures(store: Store, limit: int) -> list[tuple[Any, ...]]:
    """(id, session, last error, when) of the newest failed jobs."""
    return store.rows("SELECT id, coalesce(session_path, session_key), last_error, updated_at FROM jobs "
                      "WHERE state = 'failed' ORDER BY updated_at DESC, id DESC LIMIT ?", (limit,))


def last_received(store: Store) -> str | None:
    """When the newest hook event any job holds was received."""
    value = store.scalar("SELECT max(json_extract(payload, '$.received_at')) FROM jobs WHERE payload != '{}'")
    return str(value) if value else None


def sessions_done_noting(store: Store, prefix: str) -> int:
    """How many sessions have a done job whose note starts with `prefix` (skipped ones)."""
    value = store.scalar("SELECT count(DISTINCT session_key) FROM jobs WHERE state = 'done' AND "
                         "substr(last_error, 1, ?) = ?", (len(prefix), prefix))
    return int(value or 0)


def deferred_window(store: Store) -> tuple[Any, Any] | None:
    """(earliest retry time, a reason) over deferred jobs."""
    found = store.one("SELECT min(not_before), max(json_extract(payload, '$.defer_reason')) FROM jobs "
                      "WHERE state = 'deferred'")
    return None if found is None else (found[0], found[1])
