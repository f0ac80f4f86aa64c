"""The worker and the jobs queue: ingest, coalescing, reconciliation with a lagging transcript,
retries, deferral, retention, one drainer at a time, concurrency and a killed worker."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from loreline import capture, pipeline

from loreline.capture import jobs
from loreline.distill.rules import RulesDistiller
from loreline.errors import CapReachedError, RateLimitedError
from loreline.models import Candidate, Chunk
from loreline.samples.builder import ClaudeSession
from loreline.store import Store
from loreline.capture.worker import Worker, seconds_to_next_day
from tests.capture_helpers import (
    HOOK,
    RULES_CONFIG,
    db_rows,
    event,
    hook_env,
    remembered_session,
    run_hook,
    run_worker,
    spool_files,
    start_hook,
    wait_for,
    worker_lock_held,
    write_config,
)
from tests.conftest import loreline_exe

pytestmark = pytest.mark.slow  # the capture worker in real processes, with waits on locks and queues


def _worker(**settings: int) -> Worker:
    config = capture.Settings()
    for key, value in settings.items():
        setattr(config, key, value)
    return Worker(config, distiller=RulesDistiller(), lag_base=0.05, horizon=0.0)


def _stop(loreline_home: Path, session: ClaudeSession, path: Path, message: str | None = None, name: str = "Stop") -> None:
    extra = {"last_assistant_message": message} if message is not None else {}
    with worker_lock_held(loreline_home):
        result = run_hook(loreline_home, name, stdin=event(name, session, path, **extra))
    assert result.returncode == 0


def _jobs() -> list[jobs.Job]:
    with Store() as store:
        return [jobs.get(store, int(r[0])) for r in store.rows("SELECT id FROM jobs ORDER BY id")]


def _memory_count() -> int:
    with Store() as store:
        return int(store.scalar("SELECT count(*) FROM memories"))


def _project(tmp_path: Path) -> tuple[ClaudeSession, Path]:
    (tmp_path / "proj").mkdir(exist_ok=True)
    return remembered_session(tmp_path / "proj", tmp_path / "sessions")


# -- ingest and coalescing -------------------------------------------------------------


def test_events_of_one_session_coalesce_into_one_job(loreline_home: Path, tmp_path: Path) -> None:
    session, path = _project(tmp_path)
    other, other_path = remembered_session(tmp_path / "proj", tmp_path / "sessions")
    for message in ("first", "second", "third"):
        _stop(loreline_home, session, path, message)
    _stop(loreline_home, other, other_path, "elsewhere")
    _stop(loreline_home, session, path, name="SessionEnd")
    with Store() as store:
        got = jobs.ingest(store)
    assert (got.files, got.new_jobs, got.coalesced, got.bad) == (5, 2, 3, 0)
    assert spool_files(loreline_home) == []
    first, second = _jobs()
    assert (first.session_path, first.events, first.event, first.state) == (str(path), 4, "SessionEnd", "queued")
    assert first.marker == "third" and second.marker == "elsewhere"


def test_the_stored_message_is_redacted(loreline_home: Path, tmp_path: Path) -> None:
    session, path = _project(tmp_path)
    _stop(loreline_home, session, path, "Connect with postgres://app:hunter2-very-secret@db.internal/prod please")
    with Store() as store:
        jobs.ingest(store)
    [job] = _jobs()
    assert job.marker is not None and "hunter2-very-secret" not in job.marker
    assert not db_rows(loreline_home, "SELECT id FROM jobs WHERE payload LIKE '%hunter2%'")


def test_a_file_ingested_before_a_crash_is_not_counted_again(loreline_home: Path, tmp_path: Path) -> None:
    session, path = _project(tmp_path)
    _stop(loreline_home, session, path, "once")
    [spooled] = spool_files(loreline_home)
    copy = tmp_path / spooled.name
    shutil.copy(spooled, copy)
    with Store() as store:
        jobs.ingest(store)
        shutil.copy(copy, spooled)  # as if the process died after the commit, before the unlink
        again = jobs.ingest(store)
    assert (again.files, again.repeated, again.new_jobs, again.coalesced) == (1, 1, 0, 0)
    assert spool_files(loreline_home) == []
    assert _jobs()[0].events == 1


def test_an_unusable_spool_file_becomes_a_visible_failed_job(loreline_home: Path) -> None:
    folder = loreline_home / "spool"
    folder.mkdir(parents=True)
    (folder / capture.spool_name(1, 2, "bad")).write_text("{ not json")
    (folder / capture.spool_name(2, 2, "nosid")).write_text('{"event": "Stop"}')
    (folder / ".tmp-half-written.json").write_text("{")
    with Store() as store:
        got = jobs.ingest(store)
        summary = jobs.summary(store)
    assert got.bad == 2 and summary["failed"] == 2
    assert {j["error"].split(": ", 1)[1] for j in summary["failed_jobs"]} == {
        "not valid JSON", "not a Loreline spool record (no session id)"}
    assert [p.name for p in folder.iterdir()] == [".tmp-half-written.json"]


# -- running --------------------------------------------------------------------------


def test_a_drained_job_imports_the_session_and_forgets_the_message(loreline_home: Path, tmp_path: Path) -> None:
    session, path = _project(tmp_path)
    _stop(loreline_home, session, path, "Will do.")
    report = _worker().drain()
    assert report is not None and (report.ingested, report.done) == (1, 1)
    [job] = _jobs()
    assert job.state == "done" and job.marker is None and job.attempts == 1
    assert _memory_count() == 4
    with Store() as store:
        assert store.scalar("SELECT count(DISTINCT actor) FROM audit") == 1
        assert store.scalar("SELECT actor FROM audit LIMIT 1") == "hook"


def test_a_lagging_transcript_defers_the_job_until_the_turn_is_written(loreline_home: Path, tmp_path: Path) -> None:
    session, path = _project(tmp_path)
    session.user("Never commit directly to main.")
    _stop(loreline_home, session, path, "Understood, I will always open a pull request.")
    worker = _worker(reconcile_tries=5)
    report = worker.drain()
    assert report is not None and report.deferred == 1 and report.done == 0
    [job] = _jobs()
    assert job.state == "deferred" and job.payload["waits"] == 1 and job.not_before is not None
    assert _memory_count() == 0
    session.assistant("Understood, I will always open a pull request.")
    session.write(path)
    worker.horizon = 10.0
    report = worker.drain()
    assert report is not None and report.done == 1
    assert _memory_count() == 5
    _stop(loreline_home, session, path, "Understood, I will always open a pull request.")
    assert _worker().drain() is not None
    assert _memory_count() == 5
    with Store() as store:
        assert store.scalar("SELECT count(*) FROM provenance") == 5


def test_a_message_that_never_appears_is_dropped_after_the_waits(loreline_home: Path, tmp_path: Path) -> None:
    session, path = _project(tmp_path)
    _stop(loreline_home, session, path, "A reply Claude Code never wrote to the file.")
    worker = _worker(reconcile_tries=2)
    worker.horizon = 10.0
    report = worker.drain()
    assert report is not None and (report.deferred, report.done) == (2, 1)
    [job] = _jobs()
    assert job.state == "done" and job.marker is None
    assert job.last_error is not None and "after 2 waits" in job.last_error
    assert not db_rows(loreline_home, "SELECT id FROM jobs WHERE payload LIKE '%never wrote%'")
    assert _memory_count() == 4


def test_failures_are_retried_then_failed_visibly_then_resolved(loreline_home: Path, tmp_path: Path) -> None:
    session, path = _project(tmp_path)
    missing = tmp_path / "sessions" / "gone" / f"{session.session_id}.jsonl"
    _stop(loreline_home, session, missing, "hello")
    worker = _worker(reconcile_tries=0, max_attempts=2)
    worker.drain()
    [job] = _jobs()
    assert (job.state, job.attempts, job.last_error) == ("queued", 1, "transcript not found")
    with Store() as store, store.write():
        store.conn.execute("UPDATE jobs SET not_before = NULL")
    worker.drain()
    [job] = _jobs()
    assert (job.state, job.attempts) == ("failed", 2)
    status = subprocess.run([loreline_exe(), "status"], capture_output=True, text=True, env=hook_env(loreline_home))
    assert f"!! capture job {job.id} failed ({missing}): transcript not found" in status.stdout
    assert "1 failed" in status.stdout
    missing.parent.mkdir(parents=True)
    shutil.copy(path, missing)
    _stop(loreline_home, session, missing, "Will do.")
    worker.drain()
    states = [j.state for j in _jobs()]
    assert states == ["done", "done"]
    assert "resolved by job" in (_jobs()[0].last_error or "")


class _Refusing:
    """A backend at the network edge that refuses every call (cap spent, or rate limited)."""

    name = "refusing"
    policy = "refusing@1"

    def __init__(self, error: Exception) -> None:
        self.error = error

    def distill(self, chunk: Chunk) -> list[Candidate]:
        raise self.error


@pytest.mark.parametrize("error,expected", [
    (CapReachedError("the daily cap of 100 unattended calls is spent"), "next day"),
    (RateLimitedError("429 after retries"), "two minutes"),
])
def test_cap_and_rate_limits_defer_instead_of_failing(loreline_home: Path, tmp_path: Path, error: Exception,
                                                      expected: str) -> None:
    session, path = _project(tmp_path)
    _stop(loreline_home, session, path, "Will do.")
    worker = Worker(capture.Settings(), distiller=_Refusing(error), horizon=0.0)  # type: ignore[arg-type]
    report = worker.drain()
    assert report is not None and report.deferred == 1 and report.failed == 0
    [job] = _jobs()
    assert job.state == "deferred" and job.attempts == 0 and str(error) in (job.last_error or "")
    assert job.not_before is not None
    wait = (jobs.parse_stamp(job.not_before) - jobs.parse_stamp(jobs.stamp())).total_seconds()
    target = seconds_to_next_day() if expected == "next day" else 120.0
    assert abs(wait - target) < 10
    if expected == "two minutes":  # a backend that keeps refusing is asked less and less often
        with Store() as store, store.write():
            store.conn.execute("UPDATE jobs SET not_before = NULL")
        worker.drain()
        [job] = _jobs()
        assert job.not_before is not None
        wait = (jobs.parse_stamp(job.not_before) - jobs.parse_stamp(jobs.stamp())).total_seconds()
        assert abs(wait - 240.0) < 10
    assert job.marker is not None  # kept until the job is really done


def test_events_that_arrive_while_a_job_runs_send_it_back_to_the_queue(loreline_home: Path, tmp_path: Path) -> None:
    session, path = _project(tmp_path)
    _stop(loreline_home, session, path, "one")
    with Store() as store:
        jobs.ingest(store)
        job = jobs.claim(store, jobs.next_due(store))  # type: ignore[arg-type]
        with store.write():
            jobs._coalesce(store, "later.json", {"session_id": session.session_id, "transcript_path": str(path),
                                                 "event": "Stop", "last_assistant_message": "two"})
        assert jobs.finish(store, job) == "queued"
        again = jobs.get(store, job.id)
    assert again.state == "queued" and again.marker == "two" and again.attempts == 0


def test_retention_deletes_the_raw_text_of_old_failed_jobs(loreline_home: Path, tmp_path: Path) -> None:
    session, path = _project(tmp_path)
    _stop(loreline_home, session, tmp_path / "nowhere.jsonl", "keep me a while")
    _worker(reconcile_tries=0, max_attempts=1).drain()
    assert db_rows(loreline_home, "SELECT id FROM jobs WHERE payload LIKE '%keep me a while%'")
    with Store() as store:
        jobs.prune(store, failed_retention_days=7)
    assert db_rows(loreline_home, "SELECT id FROM jobs WHERE payload LIKE '%keep me a while%'")
    with Store() as store, store.write():
        store.conn.execute("UPDATE jobs SET updated_at = '2020-01-01T00:00:00.000+00:00'")
    with Store() as store:
        jobs.prune(store, failed_retention_days=7)
    [job] = _jobs()
    assert job.state == "failed" and job.marker is None and job.payload["marker_deleted"] is True


# -- processes ------------------------------------------------------------------------


def test_one_drainer_at_a_time(loreline_home: Path, tmp_path: Path) -> None:
    write_config(loreline_home, RULES_CONFIG)
    session, path = _project(tmp_path)
    _stop(loreline_home, session, path, "Will do.")
    with worker_lock_held(loreline_home):
        started = time.monotonic()
        busy = run_worker(loreline_home, "--drain")
        waited = run_worker(loreline_home, "--drain", "--wait", "0.5")
        assert time.monotonic() - started < 20
    assert (busy.returncode, busy.stdout, busy.stderr) == (0, "", "")
    assert (waited.returncode, waited.stdout) == (0, "")
    assert len(spool_files(loreline_home)) == 1
    done = run_worker(loreline_home, "--drain", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["done"] == 1


def test_fifty_hooks_at_once_lose_nothing(loreline_home: Path, tmp_path: Path) -> None:
    write_config(loreline_home, RULES_CONFIG)
    sessions = [remembered_session(tmp_path / "proj", tmp_path / "sessions") for _ in range(10)]
    (tmp_path / "proj").mkdir()
    with worker_lock_held(loreline_home):
        procs = [start_hook(loreline_home, "Stop", stdin=event("Stop", s, p, last_assistant_message="Will do."))
                 for _ in range(5) for s, p in sessions]
        codes = [proc.wait(timeout=120) for proc in procs]
    assert codes == [0] * 50
    assert len(spool_files(loreline_home)) == 50
    drained = run_worker(loreline_home, "--drain", "--json")
    assert drained.returncode == 0, drained.stderr
    assert json.loads(drained.stdout)["ingested"] == 50
    rows = db_rows(loreline_home, "SELECT state, json_extract(payload, '$.events') FROM jobs")
    assert len(rows) == 10 and sum(r[1] for r in rows) == 50


def test_a_full_spool_drops_events_and_counts_them(loreline_home: Path, tmp_path: Path) -> None:
    write_config(loreline_home, "[capture]\nspool_max_mb = 1\n")
    folder = loreline_home / "spool"
    folder.mkdir(parents=True)
    for index in range(70):
        (folder / capture.spool_name(index, 1, "fill")).write_bytes(b" " * 16_000)
    session, path = _project(tmp_path)
    _stop(loreline_home, session, path, "dropped")
    _stop(loreline_home, session, path, "dropped too")
    assert len(spool_files(loreline_home)) == 70
    status = subprocess.run([loreline_exe(), "status", "--json"], capture_output=True, text=True,
                            env=hook_env(loreline_home))
    assert json.loads(status.stdout)["capture"]["spool"]["dropped"] == 2


def _big_session(tmp_path: Path, turns: int) -> Path:
    session = ClaudeSession(cwd=str(tmp_path / "proj"))
    for i in range(turns):
        session.user(f"We decided to use tool{i} because it beats tool{i + 1} on cold starts.")
        session.assistant(f"Noted: tool{i}. " + "detail " * 40)
    return session.write(tmp_path / "sessions" / f"{session.session_id}.jsonl")


def _baseline_count(path: Path, db: Path) -> int:
    with Store(db) as store:
        pipeline.import_sessions(store, [(path, None)], pipeline.Options(RulesDistiller()))
        return int(store.scalar("SELECT count(*) FROM memories"))


def test_a_worker_killed_mid_job_leaves_it_for_the_next_worker(loreline_home: Path, tmp_path: Path) -> None:
    write_config(loreline_home, RULES_CONFIG)
    (tmp_path / "proj").mkdir()
    path = _big_session(tmp_path, 1500)
    session_id = path.stem
    with worker_lock_held(loreline_home):
        run_hook(loreline_home, "Stop", stdin={"session_id": session_id, "transcript_path": str(path),
                                               "cwd": str(tmp_path / "proj"), "hook_event_name": "Stop"})
    victim = subprocess.Popen([loreline_exe(), "worker", "--drain"], env=hook_env(loreline_home),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_for(lambda: db_rows(loreline_home, "SELECT state FROM jobs", early=True) == [("running",)], 60, "the job to run")
    time.sleep(0.3)
    os.kill(victim.pid, signal.SIGKILL)
    assert victim.wait(timeout=30) == -signal.SIGKILL
    assert db_rows(loreline_home, "SELECT state, attempts FROM jobs") == [("running", 1)]
    again = run_worker(loreline_home, "--drain", "--json")
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["requeued_stale"] == 1
    assert db_rows(loreline_home, "SELECT state, attempts FROM jobs") == [("done", 2)]
    expected = _baseline_count(path, tmp_path / "baseline.db")
    assert db_rows(loreline_home, "SELECT count(*) FROM memories") == [(expected,)]


def test_a_session_end_hook_starts_a_detached_worker(loreline_home: Path, tmp_path: Path) -> None:
    write_config(loreline_home, RULES_CONFIG)
    session, path = _project(tmp_path)
    _stop(loreline_home, session, path, "Will do.")
    result = run_hook(loreline_home, "SessionEnd", stdin=event("SessionEnd", session, path, reason="other"))
    assert result.returncode == 0 and result.stderr == b""
    wait_for(lambda: db_rows(loreline_home, "SELECT state FROM jobs", early=True) == [("done",)], 60, "the detached worker")
    assert db_rows(loreline_home, "SELECT count(*) FROM memories") == [(4,)]
    wait_for(lambda: spool_files(loreline_home) == [], 10, "an empty spool")


# -- the real clients' payloads against the transcripts they wrote ------------------------


def test_real_stop_messages_are_found_in_the_real_transcript(loreline_home: Path, tmp_path: Path) -> None:
    from loreline.capture.worker import transcript_has
    from tests.capture_helpers import HOOK_PAYLOADS, payloads

    path = tmp_path / "1c72e0f5-ad06-47e4-84ea-92d67c2caf32.jsonl"
    shutil.copy(HOOK_PAYLOADS / "claude-transcript-sample.jsonl", path)
    stops = [p["last_assistant_message"] for p in payloads("claude-hook-payloads.jsonl")
             if p["hook_event_name"] == "Stop"]
    with Store() as store:
        assert [transcript_has(store, path, "claude-code", m) for m in stops] == [True, True]
        assert not transcript_has(store, path, "claude-code", "Something Claude never said here.")


def test_real_codex_notifications_import_the_rollout_found_by_thread_id(loreline_home: Path, tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.capture_helpers import HOOK_PAYLOADS, payloads

    notes = payloads("codex-notify-payloads.jsonl")
    codex_home = tmp_path / "codex"
    rollout = codex_home / "sessions" / "2026" / "11" / "29" / f"rollout-2026-11-29T16-46-02-{notes[1]['thread-id']}.jsonl"
    rollout.parent.mkdir(parents=True)
    shutil.copy(HOOK_PAYLOADS / "codex-rollout-sample.jsonl", rollout)
    env = hook_env(loreline_home, CODEX_HOME=str(codex_home))
    with worker_lock_held(loreline_home):
        for note in notes:
            assert run_hook(loreline_home, "codex-notify", json.dumps(note), env=env).returncode == 0
    monkeypatch.setenv("CODEX_HOME", str(codex_home))
    _worker(reconcile_tries=0, max_attempts=1).drain()
    by_session = {j.session_id: j for j in _jobs()}
    assert by_session[notes[0]["thread-id"]].state == "failed"
    assert by_session[notes[0]["thread-id"]].last_error == "transcript not found"
    done = by_session[notes[1]["thread-id"]]
    assert (done.state, done.events, done.marker) == ("done", 3, None)
    assert db_rows(loreline_home, "SELECT session_path, tool FROM ledger") == [(str(rollout), "codex")]


def test_a_foreground_worker_drains_as_events_come_and_stops_on_sigterm(loreline_home: Path, tmp_path: Path) -> None:
    write_config(loreline_home, RULES_CONFIG)
    session, path = _project(tmp_path)
    serving = subprocess.Popen([loreline_exe(), "worker", "--json"], env=hook_env(loreline_home),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: db_rows(loreline_home, "SELECT count(*) FROM migrations", early=True) != [], 30, "the store")
        result = run_hook(loreline_home, "Stop", stdin=event("Stop", session, path, last_assistant_message="Will do."))
        assert result.returncode == 0
        wait_for(lambda: db_rows(loreline_home, "SELECT state FROM jobs", early=True) == [("done",)], 30, "the job")
    finally:
        serving.send_signal(signal.SIGTERM)
        out, err = serving.communicate(timeout=30)
    assert serving.returncode == 0, err
    assert json.loads(out)["done"] == 1


def test_code_planted_in_the_project_never_runs(loreline_home: Path, tmp_path: Path) -> None:
    """The worker a hook starts, and the `python -m` hook command, keep the project off sys.path."""
    write_config(loreline_home, RULES_CONFIG)
    session, path = _project(tmp_path)
    project = tmp_path / "proj"
    planted = tmp_path / "planted-ran"
    payload = f"import pathlib\npathlib.Path({str(planted)!r}).write_text('ran')\n"
    (project / "loreline" / "cli").mkdir(parents=True)
    for name in ("loreline/__init__.py", "loreline/cli/__init__.py", "loreline/cli/main.py", "json.py",
                 "loreline_hooks.py"):
        (project / name).write_text(payload)
    _stop(loreline_home, session, path, "Will do.")
    end = subprocess.run([str(HOOK), "SessionEnd"], input=json.dumps(event("SessionEnd", session, path)).encode(),
                         cwd=project, env=hook_env(loreline_home), capture_output=True, timeout=60)
    assert end.returncode == 0 and end.stderr == b""
    wait_for(lambda: db_rows(loreline_home, "SELECT state FROM jobs", early=True) == [("done",)], 60, "the worker")
    from loreline.connect import module_argv

    ran = subprocess.run([*module_argv(), "Stop"], input=b"{}", cwd=project, env=hook_env(loreline_home),
                         capture_output=True, timeout=60)
    assert ran.returncode == 0 and ran.stderr == b""
    assert not planted.exists()
