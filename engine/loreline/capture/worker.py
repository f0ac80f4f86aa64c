"""The capture worker: spool → jobs → the import pipeline, one drainer at a time.

A worker takes the worker lock (`filelock` on `capture.worker_lock_path()`) for its whole
run; a second worker finds it taken and returns at once (`None`). Holding it, the worker
requeues jobs a dead worker left running, then repeats: ingest the spool, run the next due
job. `drain()` stops when no deferred job is due within `horizon` seconds (it sleeps for one
due sooner: a job waiting for its transcript to catch up; failed attempts waiting for a retry
are left to a later run); `serve()` keeps polling.

Running one job:
1. find the transcript (a Codex or older Claude Code event may arrive without a path);
2. reconcile: when the hook saw an assistant message the transcript does not hold yet (the
   file lags the hook), defer with a growing wait; after `reconcile_tries` waits import what
   the file has and drop the message — it is a marker, never imported itself, so a turn is
   never stored twice;
3. the spend gate's rules for background work: while the backend cools down after a login
   or API reported its limit (`capture.cooldown`), the job waits until that lifts, without
   reading the session; a session that has not ended and was written to less than
   `capture.min_idle_minutes` ago waits until it has been idle that long;
4. import the session through `pipeline.import_sessions` (incremental through the ledger),
   unattended, with actor `hook`; a session recorded as paused (`capture.paused`: it ran
   under `LORELINE_OFF=1`, e.g. resumed so), and a session never imported that holds fewer
   than `capture.min_prompts` prompts, are left out and the job is done with that note;
5. done; or deferred (the daily cap or token budget: until the next local day; a cooldown:
   until it lifts; rate limited otherwise: backoff); or retried with backoff, and `failed`
   with its last error after `max_attempts`.

The worker only imports sessions whose hooks fired: it never looks for the history on disk,
so a history found at first connect is imported only when a person runs `loreline import
sessions`. All of its work is background work (`environment.background`): wherever it runs, it
never uses the assistant's own credentials.

After a drain that imported sessions, the brief of each project they belong to is written
again when its memories changed (`brief.rewrite.after_import`): by the configured model, one
call per project per run (unattended: it passes the same spend gate), else by the rules.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from datetime import time as dt_time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import capture, environment, errors, home, pipeline, usage
from ..assistants import registry
from . import cooldown

from . import jobs
from ..beliefs import Judge
from ..distill import Distiller, Metered
from .jobs import Job
from ..privacy.redact import redact
from ..privacy.sanitize import sanitize
from ..store import Store, ledger
from ..team import background as team_background

if TYPE_CHECKING:
    from .. import backends

LAG_BASE_SECONDS = 2.0
HORIZON_SECONDS = 60.0
POLL_SECONDS = 2.0
RATE_LIMIT_SECONDS = 120.0
PROBE_CHARS = 200
#: why a memory background capture made waits for review (`capture.review = "ask"`)
REVIEW_REASON = "from background capture (review = ask)"
#: the events that end a session (no idle wait after them)
END_EVENTS = ("SessionEnd",)
_WS = re.compile(r"\s+")


@dataclass(slots=True)
class DrainReport:
    ingested: int = 0
    done: int = 0
    deferred: int = 0
    retried: int = 0
    failed: int = 0
    requeued_stale: int = 0
    bad_files: int = 0
    #: the background team sync's line when one ran (`team.background`)
    team: str | None = None

    def line(self) -> str:
        return (f"worker: {self.ingested} events in, {self.done} done, {self.deferred} deferred, "
                f"{self.retried} to retry, {self.failed} failed")


class Worker:
    def __init__(
        self,
        settings: capture.Settings | None = None,
        *,
        distiller: Distiller | None = None,
        lag_base: float = LAG_BASE_SECONDS,
        horizon: float = HORIZON_SECONDS,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.settings = settings or capture.load_settings()
        self.judge: Judge | None = None
        if distiller is None:
            with environment.background():
                choice = default_choice()
            distiller, self.judge = choice.distiller, choice.judge
        self.distiller = distiller
        self.lag_base = lag_base
        self.horizon = horizon
        self.sleep = sleep
        #: the projects this drain's imports read (their briefs are written at its end)
        self.touched: set[str] = set()

    # -- entry points -------------------------------------------------------------

    def drain(self, *, wait_lock: float = 0.0) -> DrainReport | None:
        """Run everything due now or within the horizon; None when another worker holds the lock."""
        lock = _lock(wait_lock)
        if lock is None:
            return None
        try:
            with environment.background(), Store() as store:
                return self._drain(store)
        finally:
            lock.release()

    def serve(self, should_stop: Callable[[], bool], poll: float = POLL_SECONDS) -> DrainReport | None:
        """Keep draining until `should_stop()`; None when another worker holds the lock."""
        lock = _lock(0.0)
        if lock is None:
            return None
        total = DrainReport()
        try:
            with environment.background(), Store() as store:
                while not should_stop():
                    _add(total, self._drain(store, horizon=0.0))
                    self.sleep(poll)
        finally:
            lock.release()
        return total

    # -- the loop -----------------------------------------------------------------

    def _drain(self, store: Store, horizon: float | None = None) -> DrainReport:
        report = DrainReport(requeued_stale=jobs.requeue_stale(store))
        horizon = self.horizon if horizon is None else horizon
        while True:
            got = jobs.ingest(store)
            report.ingested += got.files - got.repeated
            report.bad_files += got.bad
            job = jobs.next_due(store)
            if job is not None:
                self._count(report, self.run_job(store, job))
                continue
            wake = jobs.next_wake(store)
            wait = (wake - datetime.now(UTC)).total_seconds() if wake else None
            if wait is None or wait > horizon:
                break
            self.sleep(max(0.0, min(wait, horizon)) + 0.01)
        jobs.prune(store, self.settings.failed_retention_days)
        report.team = team_background.maybe_sync(store, self.judge)
        self._rebrief(store)
        return report

    def _rebrief(self, store: Store) -> None:
        """The briefs of the projects this drain's imports read; a failure leaves them to the next run."""
        touched, self.touched = self.touched, set()
        if not touched:
            return
        from ..brief import rewrite

        try:
            rewrite.after_import(store, touched, self.distiller)
        except (errors.LorelineError, OSError) as err:  # the display still drops lines of changed memories
            from .errorlog import log_error

            log_error("worker brief", err)

    @staticmethod
    def _count(report: DrainReport, outcome: str) -> None:
        if outcome == "done":
            report.done += 1
        elif outcome == "deferred":
            report.deferred += 1
        elif outcome == "failed":
            report.failed += 1
        else:
            report.retried += 1

    # -- one job ------------------------------------------------------------------

    def run_job(self, store: Store, job: Job) -> str:
        """Claim and run one job; returns its new state."""
        job = jobs.claim(store, job)
        try:
            return self._run(store, job)
        except errors.CapReachedError as err:
            jobs.defer(store, job, seconds_to_next_day(), str(err))
            return "deferred"
        except errors.RateLimitedError as err:
            return self._defer_limited(store, job, f"rate limited: {err}")
        except errors.StoreBusyError as err:
            return jobs.retry_or_fail(store, job, str(err), self.settings.max_attempts + 2)
        except (errors.LorelineError, OSError) as err:
            return jobs.retry_or_fail(store, job, _message(err), self.settings.max_attempts)
        except Exception as err:  # a bug must not stop the queue; the job records it
            return jobs.retry_or_fail(store, job, f"internal error: {err.__class__.__name__}: {err}",
                                      self.settings.max_attempts)

    def _run(self, store: Store, job: Job) -> str:
        held = self._cooling()
        if held is not None:  # no model call can be made: the session is not even read
            jobs.defer(store, job, max(1.0, float(held["until"]) - time.time()),
                       usage.cooldown_message(self.distiller.name, held))
            return "deferred"
        path = locate(job)
        waits = int(job.payload.get("waits", 0))
        if path is None:
            if waits < self.settings.reconcile_tries:
                return self._wait(store, job, waits, "transcript not found yet")
            return jobs.retry_or_fail(store, job, "transcript not found", self.settings.max_attempts)
        fresh = self._still_fresh(job, path)
        if fresh is not None:
            jobs.defer(store, job, fresh, f"the session was written to less than {self.settings.min_idle_minutes} "
                                          "minutes ago (capture.min_idle_minutes)")
            return "deferred"
        note = None
        if job.marker and not transcript_has(store, path, job.tool, job.marker):
            if waits < self.settings.reconcile_tries:
                return self._wait(store, job, waits, "transcript behind the hook")
            note = f"the transcript never showed the last assistant message after {waits} waits; imported what it had"
        return self._import(store, job, path, note)

    def _wait(self, store: Store, job: Job, waits: int, reason: str) -> str:
        jobs.defer(store, job, self.lag_base * 2**waits, reason, {"waits": waits + 1})
        return "deferred"

    def _import(self, store: Store, job: Job, path: Path, note: str | None) -> str:
        options = self._options()
        report = pipeline.import_sessions(store, [(path, job.tool)], options)
        self.touched |= options.projects
        if report.deferred:
            reason = report.deferred[0][1]
            if not report.until_tomorrow:
                return self._defer_limited(store, job, reason)
            jobs.defer(store, job, seconds_to_next_day(), reason)
            return "deferred"
        if report.failed:
            return jobs.retry_or_fail(store, job, report.failed[0][1], self.settings.max_attempts)
        if report.left_out:  # a paused session (`capture.paused`): done, nothing learned
            return jobs.finish(store, job, report.left_out[0][1])
        follow_native(store, path)
        return jobs.finish(store, job, note)

    def _defer_limited(self, store: Store, job: Job, reason: str) -> str:
        held = self._cooling()
        if held is not None:  # the backend reported its limit: wait until it lifts, not a backoff
            jobs.defer(store, job, max(1.0, float(held["until"]) - time.time()), reason)
            return "deferred"
        times = int(job.payload.get("rate_limited", 0))
        jobs.defer(store, job, rate_limit_delay(times), reason, {"rate_limited": times + 1})
        return "deferred"

    def _cooling(self) -> dict[str, Any] | None:
        """The cooldown of this worker's model backend while it holds (the rules never cool down)."""
        return cooldown.of(self.distiller.name) if isinstance(self.distiller, Metered) else None

    def _still_fresh(self, job: Job, path: Path) -> float | None:
        """Seconds until a session that has not ended has been idle `capture.min_idle_minutes`;
        None when it may be imported now."""
        idle = self.settings.min_idle_minutes * 60
        if not idle or job.event in END_EVENTS:
            return None
        try:
            left = path.stat().st_mtime + idle - time.time()
        except OSError:
            return None
        return left if left > 0 else None

    def _options(self) -> pipeline.Options:
        hold = REVIEW_REASON if self.settings.review == "ask" else None
        return pipeline.Options(distiller=self.distiller, judge=self.judge, actor="hook", attended=False, hold=hold,
                                min_prompts=self.settings.min_prompts)


def follow_native(store: Store, session: Path) -> None:
    """After a session's import, its project's native memory files (auto memory, CLAUDE.md)
    are followed too: offline (no judge: unattended model calls stay with sessions), and a
    failure here never fails the session's job."""
    from ..native import run as native_run

    entry = ledger.lookup(store, str(session))
    if entry is not None and entry.tool == "claude-code" and os.path.isabs(entry.project):
        native_run.follow(store, registry.ALL, entry.project)


def default_choice() -> "backends.Choice":
    """The configured backend (`distill.backend`: Claude when a key is available, else rules),
    with its judge for the belief pipeline."""
    from .. import backends

    return backends.choose()


def _lock(wait: float) -> Any:
    from filelock import Timeout

    lock = home.private_lock(capture.worker_lock_path())
    try:
        lock.acquire(timeout=wait, poll_interval=0.05)
    except Timeout:
        return None
    return lock


def _add(total: DrainReport, part: DrainReport) -> None:
    for name in ("ingested", "done", "deferred", "retried", "failed", "requeued_stale", "bad_files"):
        setattr(total, name, getattr(total, name) + getattr(part, name))


def _message(err: BaseException) -> str:
    if isinstance(err, OSError):
        return f"cannot read {err.filename or 'the transcript'}: {err.strerror or err}"
    return str(err) or err.__class__.__name__


def seconds_to_next_day(now: datetime | None = None) -> float:
    """Seconds until the next local day starts: the daily cap counts local days (`usage.today`)."""
    moment = (now or datetime.now(UTC)).astimezone()
    midnight = datetime.combine(moment.date() + timedelta(days=1), dt_time(0, 0, 5)).astimezone()
    return max(60.0, (midnight - moment).total_seconds())


def rate_limit_delay(times: int) -> float:
    """Backoff after the backend kept refusing: 2, 4, 8 … minutes, at most an hour."""
    return float(min(RATE_LIMIT_SECONDS * 2**times, 3600))


# -- finding and checking transcripts ------------------------------------------------


def locate(job: Job) -> Path | None:
    """The job's transcript file; searched by session id when the hook sent no path."""
    if job.session_path:
        path = Path(job.session_path)
        return path if path.is_file() else None
    sid = job.session_id or ""
    if not re.fullmatch(r"[0-9A-Za-z][0-9A-Za-z-]{7,63}", sid):
        return None
    assistant = registry.get(job.tool if job.tool in registry.names() else "claude-code")
    return assistant.locate_session(assistant.home(), sid)


def transcript_has(store: Store, path: Path, tool: str, marker: str) -> bool:
    """Whether an assistant turn of the transcript holds the start of `marker`.

    Both sides are sanitized and redacted the same way and compared with whitespace and case
    ignored. The new part of the file (from the ledger's context position) is read first; the
    whole file only when that misses, e.g. when the turn was imported before its hook arrived.
    """
    probe = _norm(redact(sanitize(marker)))[:PROBE_CHARS]
    if not probe:
        return True
    entry = ledger.lookup(store, str(path))
    starts = [entry.context, None] if entry is not None else [None]
    for start in starts:
        parsed = registry.parse(path, tool=tool, start=start)
        if any(probe in _norm(redact(sanitize(t.text))) for t in parsed.transcript.turns if t.speaker == "assistant"):
            return True
    return False


def _norm(text: str) -> str:
    return _WS.sub(" ", text).strip().lower()
