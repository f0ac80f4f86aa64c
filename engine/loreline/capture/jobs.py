"""The capture queue: hook spool files become jobs, at most one open job per session.

    spool file ──ingest──▶ queued ──claim──▶ running ──▶ done
                            ▲  ▲               │  │
                            │  └──── retry ────┘  ├──▶ deferred ──(not_before passes)──▶ running
                            │                     │    (transcript lagging, rate limited, daily cap)
                            └── stale (dead worker)└──▶ failed (after max_attempts; last_error kept)

Invariants:
- Ingest is one transaction per batch: each spool file read becomes part of a job and its name
  is recorded in `spooled`; files are deleted only after the commit. A crash between the
  commit and the deletion leaves files whose names are recorded: the next ingest deletes them
  without touching a job, so no event is counted twice and none is lost.
- Coalescing: at most one open (queued, deferred or running) job per session key — the
  transcript path, else `tool:session id` — enforced by a unique partial index. Later events
  update that job: event count, newest event, and the newest assistant message (the marker
  the transcript must contain before the job imports it).
- A job that received events while it ran goes back to `queued` instead of `done`, so turns
  written during an import are read by the next run.
- A spool file that cannot be read becomes a `failed` job naming the file: never a silent drop.
- Raw text a hook queued (the marker) is sanitized and redacted before it is stored, removed
  when its job is done, and removed from failed jobs after `failed_retention_days`.
- A job found `running` by a worker that holds the worker lock belonged to a worker that
  died (the lock is held for the whole drain: it is the lease). It goes back to `queued`
  keeping its attempt count, so a job that kills every worker ends `failed`, not in a loop.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from .. import capture, home
from ..records import field, record
from ..store import Store
from ..store import jobs as table

KIND = "capture"
OPEN_STATES = table.OPEN_STATES
BATCH = 500
MAX_SPOOL_FILE_BYTES = 4 * capture.MAX_RECORD_BYTES
STALE_TMP_SECONDS = 3600
DONE_KEEP_DAYS = 30
SPOOLED_KEEP_DAYS = 7
#: payload keys that only matter until the job is done (the marker is raw hook text)
TRANSIENT_KEYS = ("marker", "marker_spool", "waits", "rate_limited", "defer_reason")


@record
class Job:
    id: int
    session_key: str
    session_path: str | None
    session_id: str | None
    tool: str
    event: str | None
    state: str
    attempts: int
    not_before: str | None
    last_error: str | None
    payload: dict[str, Any] = field(default_factory=dict)

    @property
    def marker(self) -> str | None:
        value = self.payload.get("marker")
        return value if isinstance(value, str) and value else None

    @property
    def events(self) -> int:
        return int(self.payload.get("events", 0))


@record(frozen=False)
class Ingested:
    files: int = 0
    new_jobs: int = 0
    coalesced: int = 0
    repeated: int = 0
    bad: int = 0


def stamp(moment: datetime | None = None) -> str:
    """Job times: UTC with milliseconds, so they compare correctly as text."""
    return (moment or datetime.now(UTC)).astimezone(UTC).isoformat(timespec="milliseconds")


def after(seconds: float) -> str:
    return stamp(datetime.now(UTC) + timedelta(seconds=seconds))


def parse_stamp(text: str) -> datetime:
    return datetime.fromisoformat(text)


# -- ingest -------------------------------------------------------------------------


def ingest(store: Store, folder: Path | None = None) -> Ingested:
    """Move every spool file into jobs (see the module invariants)."""
    folder = folder or home.spool_dir()
    result = Ingested()
    for names in _batches(_spool_names(folder)):
        records = [(name, read_record(folder / name)) for name in names]
        with store.write():
            for name, record in records:
                _ingest_one(store, name, record, result)
        for name in names:
            (folder / name).unlink(missing_ok=True)
    _sweep_tmp(folder)
    return result


def _spool_names(folder: Path) -> list[str]:
    try:
        return sorted(name for name in os.listdir(folder) if capture.is_spool_name(name))
    except FileNotFoundError:
        return []


def _batches(names: list[str]) -> Iterator[list[str]]:
    for start in range(0, len(names), BATCH):
        yield names[start : start + BATCH]


def read_record(path: Path) -> dict[str, Any] | str:
    """A spool record, or the reason it cannot be used."""
    import orjson  # in the functions that use it: `loreline status` reads the queue's counts only

    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_SPOOL_FILE_BYTES + 1)
    except OSError as err:
        return f"cannot read: {err.strerror or err}"
    if len(raw) > MAX_SPOOL_FILE_BYTES:
        return "larger than any record the hook writes"
    try:
        record = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return "not valid JSON"
    if not isinstance(record, dict) or not isinstance(record.get("session_id"), str) or not record["session_id"]:
        return "not a Loreline spool record (no session id)"
    return record


def _ingest_one(store: Store, name: str, record: dict[str, Any] | str, result: Ingested) -> None:
    result.files += 1
    if table.spooled(store, name):
        result.repeated += 1
        return
    if isinstance(record, str):
        job_id = _bad_file(store, name, record)
        result.bad += 1
    else:
        job_id, created = _coalesce(store, name, record)
        if created:
            result.new_jobs += 1
        else:
            result.coalesced += 1
    table.record_spooled(store, name, job_id, stamp())


def _bad_file(store: Store, name: str, reason: str) -> int:
    return table.insert_failed(store, KIND, f"spool:{name}", f"unusable spool file {name}: {reason}", stamp())


def session_key(record: dict[str, Any]) -> str:
    path = record.get("transcript_path")
    if isinstance(path, str) and path:
        return path
    return f"{_tool(record)}:{record['session_id']}"


def _tool(record: dict[str, Any]) -> str:
    tool = record.get("tool")
    return tool if tool in capture.TOOLS else "claude-code"


def _coalesce(store: Store, name: str, record: dict[str, Any]) -> tuple[int, bool]:
    """Fold `record` into the session's open job, or open one; (job id, created)."""
    key = session_key(record)
    path = record.get("transcript_path") if isinstance(record.get("transcript_path"), str) else None
    event = str(record.get("event") or "?")[:40]
    found = table.open_job(store, key)
    payload = merge_payload(_load(found[1]) if found else {}, name, record)
    if found is not None:
        table.update_open(store, found[0], event, _dump(payload), path, stamp())
        return found[0], False
    return table.insert_queued(store, KIND, key, path, record["session_id"][:256], _tool(record), event,
                               _dump(payload), stamp()), True


def merge_payload(payload: dict[str, Any], name: str, record: dict[str, Any]) -> dict[str, Any]:
    """The job payload after one more event: counts, newest event, newest marker (redacted)."""
    out = dict(payload)
    out["events"] = int(out.get("events", 0)) + 1
    out["last_event"] = str(record.get("event") or "?")[:40]
    out["received_at"] = max(str(record.get("received_at") or ""), str(out.get("received_at") or ""))
    if isinstance(record.get("cwd"), str):
        out["cwd"] = record["cwd"][: capture.MAX_FIELD_CHARS]
    message = record.get("last_assistant_message")
    if isinstance(message, str) and message.strip():
        from ..privacy.redact import redact  # here: `loreline status` reads the queue without them
        from ..privacy.sanitize import sanitize

        out["marker"] = redact(sanitize(message[: capture.MAX_MESSAGE_BYTES]))
        out["marker_spool"] = name
        out["waits"] = 0
    return out


def _load(text: str | None) -> dict[str, Any]:
    import orjson

    try:
        value = orjson.loads(text or "{}")
    except orjson.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


def _dump(payload: dict[str, Any]) -> str:
    import orjson

    return orjson.dumps(payload).decode()


def _sweep_tmp(folder: Path) -> None:
    """Remove temp files a hook left behind when it was killed mid-write."""
    cutoff = time.time() - STALE_TMP_SECONDS
    try:
        entries = list(os.scandir(folder))
    except FileNotFoundError:
        return
    for entry in entries:
        try:
            if entry.name.startswith(capture.TMP_PREFIX) and entry.stat().st_mtime < cutoff:
                os.unlink(entry.path)
        except OSError:
            continue


# -- running ------------------------------------------------------------------------


def requeue_stale(store: Store) -> int:
    """Put jobs a dead worker left `running` back in the queue (call while holding the lock)."""
    with store.write():
        return table.requeue_running(store, stamp())


def next_due(store: Store) -> Job | None:
    row = table.next_due(store, stamp())
    return _job(row) if row else None


def next_wake(store: Store) -> datetime | None:
    """When the earliest deferred job becomes due (None when none is deferred). Failed
    attempts waiting for their retry are not counted: a later run picks them up."""
    value = table.next_wake(store)
    return parse_stamp(value) if value else None


def get(store: Store, job_id: int) -> Job:
    row = table.row(store, job_id)
    if row is None:
        raise LookupError(f"no job {job_id}")
    return _job(row)


def claim(store: Store, job: Job) -> Job:
    with store.write():
        table.mark_running(store, job.id, stamp())
    return get(store, job.id)


def finish(store: Store, job: Job, note: str | None = None) -> str:
    """Done, the marker deleted; back to `queued` if events arrived during the run."""
    with store.write():
        current = get(store, job.id)
        if current.events > job.events:
            _set(store, job.id, "queued", current.payload, None, note, attempts=0)
            return "queued"
        payload = {k: v for k, v in current.payload.items() if k not in TRANSIENT_KEYS}
        _set(store, job.id, "done", payload, None, note, finished=True)
        table.resolve_failed(store, job.session_key, job.id, stamp())
    return "done"


def defer(store: Store, job: Job, seconds: float, reason: str, payload: dict[str, Any] | None = None) -> None:
    """Wait at least `seconds` before running again; not counted as a failed attempt."""
    with store.write():
        current = get(store, job.id)
        merged = dict(current.payload)
        merged.update(payload or {})
        merged["defer_reason"] = reason
        _set(store, job.id, "deferred", merged, after(seconds), reason, attempts=max(0, current.attempts - 1))


def retry_or_fail(store: Store, job: Job, error: str, max_attempts: int) -> str:
    """After a failed attempt: queued with backoff, or `failed` once attempts are spent."""
    error = error.replace("\n", " ")[:500]
    with store.write():
        current = get(store, job.id)
        if current.attempts >= max_attempts:
            _set(store, job.id, "failed", current.payload, None, error, finished=True)
            return "failed"
        _set(store, job.id, "queued", current.payload, after(retry_delay(current.attempts)), error)
    return "queued"


def retry_delay(attempts: int) -> float:
    return float(min(30 * 2 ** max(0, attempts - 1), 3600))


def _set(store: Store, job_id: int, state: str, payload: dict[str, Any], not_before: str | None,
         error: str | None, *, attempts: int | None = None, finished: bool = False) -> None:
    table.set_state(store, job_id, state, _dump(payload), not_before, error, stamp(), attempts=attempts,
                    finished=finished)


def _job(row: tuple[Any, ...]) -> Job:
    return Job(int(row[0]), str(row[1]), row[2], row[3], str(row[4] or "claude-code"), row[5], str(row[6]),
               int(row[7]), row[8], row[9], _load(row[10]))


# -- retention and reporting --------------------------------------------------------


def prune(store: Store, failed_retention_days: int) -> None:
    """Bounded retention: failed jobs' raw text, old done jobs, old spool names."""
    now = datetime.now(UTC)
    with store.write():
        for job_id, raw in table.failed_with_marker(store, stamp(now - timedelta(days=failed_retention_days))):
            payload = {k: v for k, v in _load(raw).items() if k not in ("marker", "marker_spool")}
            payload["marker_deleted"] = True
            table.set_payload(store, job_id, _dump(payload))
        table.delete_done(store, stamp(now - timedelta(days=DONE_KEEP_DAYS)))
        table.delete_spooled(store, stamp(now - timedelta(days=SPOOLED_KEEP_DAYS)))


def summary(store: Store, failed_limit: int = 5) -> dict[str, Any]:
    """Queue counts, the newest capture, and the last errors of failed jobs."""
    counts = table.count_by_state(store)
    failed = [{"id": int(r[0]), "session": r[1], "error": r[2], "at": r[3]}
              for r in table.recent_failures(store, failed_limit)]
    last = table.last_received(store)
    deferred = table.deferred_window(store)
    return {
        "queued": int(counts.get("queued", 0)), "running": int(counts.get("running", 0)),
        "deferred": int(counts.get("deferred", 0)), "failed": int(counts.get("failed", 0)),
        "done": int(counts.get("done", 0)), "failed_jobs": failed, "last_event_at": last or None,
        "deferred_until": deferred[0] if deferred else None,
        "deferred_reason": deferred[1] if deferred else None,
        "short_skipped": table.sessions_done_noting(store, capture.SHORT_SESSION),
    }
