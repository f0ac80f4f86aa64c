"""The spend gate for background work: the daily token budget beside the call cap, checked
before each call with its estimate and counted after with the real tokens; the cooldown a
login or API starts when it reports its usage limit or a rate limit (a 429 with a retry time
through the real anthropic SDK against the scripted server; Claude Code's and Codex's own
limit messages through their backends' real parsing, the CLIs faked at the process boundary
with what the real CLIs printed, tests/fixtures/limits); short and still-running sessions left
to later; and text already distilled never sent twice, also after a cooldown.

The stories that run the CLI (a large history at connect, consent as a new user) are in
tests/test_spend_connect.py.
"""

from __future__ import annotations

import json
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from loreline import capture, config, pipeline, status, usage
from loreline.api import usage as api_usage
from loreline.assistants.claude_code.distill import CodeClient, CodeDistiller, CodeSettings
from loreline.assistants.codex.distill import CodexClient, CodexDistiller, CodexSettings
from loreline.cli import capture_status
from loreline.capture import cooldown, jobs
from loreline.capture.worker import Worker
from loreline.distill.anthropic import AnthropicDistiller
from loreline.distill.rules import RulesDistiller
from loreline.models import ImportReport, Limit
from loreline.samples.builder import ClaudeSession
from loreline.store import Store
from tests.capture_helpers import run_hook, worker_lock_held
from tests.fake_anthropic import FakeAnthropic, fake_anthropic, model_client  # noqa: F401  (fixture)

LIMITS = Path(__file__).parent / "fixtures" / "limits"


def sessions(tmp_path: Path, n: int, prompts: int = 2, *, name: str = "s") -> list[Path]:
    out = []
    for index in range(n):
        s = ClaudeSession(str(tmp_path / f"p{index}"))
        s.user(f"In project p{index} we always run the linter before committing.")
        s.assistant("Noted.")
        for more in range(1, prompts):
            s.user(f"Also, request {more}: keep the changelog short.")
            s.assistant("Will do.")
        out.append(s.write(tmp_path / f"{name}{index}.jsonl"))
    return out


def run(store: Store, distiller: Any, paths: list[Path], *, attended: bool) -> ImportReport:
    options = pipeline.Options(distiller=distiller, attended=attended)
    return pipeline.import_sessions(store, [(p, "claude-code") for p in paths], options)


def anthropic(fake: FakeAnthropic, **settings: Any) -> AnthropicDistiller:
    return AnthropicDistiller(model_client(fake, **settings))


def empty_answers(fake: FakeAnthropic) -> None:
    fake.default = FakeAnthropic.tool("record_memories", {"memories": []})


def spent_tokens(report: ImportReport) -> int:
    u = report.usage
    return u.input_tokens + u.cache_read_tokens + u.cache_creation_tokens + u.output_tokens


# -- the daily token budget ------------------------------------------------------------------------


def test_unattended_work_stops_at_the_token_budget_checked_with_each_calls_estimate(
        fake_anthropic: FakeAnthropic, tmp_path: Path) -> None:
    empty_answers(fake_anthropic)
    first, second, third = sessions(tmp_path, 3)
    config.set_value(usage.TOKENS_KEY, "1")  # less than any call
    with Store() as store:
        refused = run(store, anthropic(fake_anthropic), [first], attended=False)
        assert fake_anthropic.requests == [] and refused.until_tomorrow == [str(first)]
        assert refused.deferred[0][1].startswith("DAILY TOKEN BUDGET REACHED: 0 of 1 unattended tokens used today "
                                                 "and the next call needs ≈ ")
        config.set_value(usage.TOKENS_KEY, "1000000")
        done = run(store, anthropic(fake_anthropic), [first], attended=False)
        spent = usage.tokens_on(store, usage.today(), attended=False)
        assert done.imported == 1 and len(fake_anthropic.requests) == 1
        assert spent == spent_tokens(done) > 1000  # recorded after the call with the real tokens
        config.set_value(usage.TOKENS_KEY, str(spent + 10))  # room left, but less than the next call's estimate
        stopped = run(store, anthropic(fake_anthropic), [second], attended=False)
        assert len(fake_anthropic.requests) == 1 and stopped.until_tomorrow == [str(second)]
        assert f"{spent:,} of {spent + 10:,} unattended tokens used today" in stopped.deferred[0][1]
        assert usage.today_summary(store)["tokens_reached"] is False  # the call was refused, nothing was spent
        attended = run(store, anthropic(fake_anthropic), [second, third], attended=True)  # never stopped, counted
        assert attended.imported == 2 and len(fake_anthropic.requests) == 3
        assert usage.tokens_on(store, usage.today(), attended=True) == spent_tokens(attended)
        assert usage.tokens_on(store, usage.today(), attended=False) == spent


def test_the_call_cap_and_the_token_budget_each_stop_unattended_work(fake_anthropic: FakeAnthropic,
                                                                      tmp_path: Path) -> None:
    empty_answers(fake_anthropic)
    paths = sessions(tmp_path, 3)
    config.set_value(usage.CAP_KEY, "1")
    with Store() as store:
        report = run(store, anthropic(fake_anthropic), paths, attended=False)
        assert report.imported == 1 and len(fake_anthropic.requests) == 1
        assert all(reason.startswith("DAILY CAP REACHED: 1/1") for _, reason in report.deferred)
        config.set_value(usage.CAP_KEY, "100")
        config.set_value(usage.TOKENS_KEY, str(usage.tokens_on(store, usage.today(), attended=False)))
        report = run(store, anthropic(fake_anthropic), paths, attended=False)
        summary = usage.today_summary(store)
    assert report.imported == 0 and len(report.until_tomorrow) == 2 and len(fake_anthropic.requests) == 1
    assert summary["tokens_reached"] is True and summary["cap_reached"] is False


# -- a 429 with a retry time: the cooldown ---------------------------------------------------------


def test_a_429_with_a_retry_time_starts_a_cooldown_that_every_unattended_run_honours(
        fake_anthropic: FakeAnthropic, tmp_path: Path) -> None:
    paths = sessions(tmp_path, 2)
    fake_anthropic.enqueue(FakeAnthropic.rate_limited(retry_after="600"))
    before = time.time()
    with Store() as store:
        first = run(store, anthropic(fake_anthropic), paths, attended=False)
        assert len(fake_anthropic.requests) == 1 and first.imported == 0 and len(first.deferred) == 2
        assert "the Anthropic API reported its rate limit (HTTP 429, asked to wait 600s)" in first.deferred[0][1]
        held = cooldown.of("anthropic")
        assert held is not None and held["kind"] == "rate limit" and held["stated"] is True
        assert before + 600 + 60 <= held["until"] <= time.time() + 600 + 60
        empty_answers(fake_anthropic)
        again = run(store, anthropic(fake_anthropic), paths, attended=False)  # a new run, a new client
        assert len(fake_anthropic.requests) == 1 and again.imported == 0
        assert again.deferred[0][1].startswith("COOLDOWN: background distillation through the Anthropic API is "
                                               "paused until ")
        [shown] = usage.today_summary(store)["cooldowns"]
        assert shown["backend"] == "anthropic" and shown["said"] == "HTTP 429, asked to wait 600s"
        assert cooldown.of("claude-code") is None  # another backend is not held back
        attended = run(store, anthropic(fake_anthropic), paths, attended=True)  # a person is not stopped
        assert attended.imported == 2 and len(fake_anthropic.requests) == 3
        assert cooldown.of("anthropic") is None  # it answered: the limit has lifted


def test_a_429_without_retry_after_lifts_at_the_reset_time_its_headers_name(
        fake_anthropic: FakeAnthropic, tmp_path: Path) -> None:
    reset = (datetime.now(UTC) + timedelta(hours=2)).replace(microsecond=0)
    fake_anthropic.default = FakeAnthropic.error(429, "rate_limit_error", "Number of request tokens has exceeded "
                                                 "your per-minute rate limit",
                                                 {"anthropic-ratelimit-tokens-reset": reset.isoformat().replace(
                                                     "+00:00", "Z")})
    with Store() as store:
        run(store, anthropic(fake_anthropic, max_retries=0), sessions(tmp_path, 1), attended=False)
    held = cooldown.of("anthropic")
    assert held is not None and held["until"] == reset.timestamp() + 60
    assert held["said"] == "HTTP 429: Number of request tokens has exceeded your per-minute rate limit"


def test_a_rate_limit_that_names_no_time_pauses_for_the_default(fake_anthropic: FakeAnthropic, tmp_path: Path) -> None:
    fake_anthropic.default = FakeAnthropic.rate_limited()
    before = time.time()
    with Store() as store:
        run(store, anthropic(fake_anthropic, max_retries=0), sessions(tmp_path, 1), attended=False)
    held = cooldown.of("anthropic")
    assert held is not None and held["stated"] is False
    assert before + usage.DEFAULT_COOLDOWN_SECONDS <= held["until"] <= time.time() + usage.DEFAULT_COOLDOWN_SECONDS
    assert "(it gave no time; Loreline waits this long, then tries again)" in cooldown.line("anthropic", held)


# -- the login backends' own limit messages ----------------------------------------------------------


def fake_cli(folder: Path, name: str, stdout: str, code: int) -> Path:
    """A CLI that prints what the real one printed (`stdout`), counting its runs."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.out").write_text(stdout, encoding="utf-8")
    script = folder / name
    script.write_text(f"#!{sys.executable}\nimport sys, pathlib\nhere = pathlib.Path(__file__).parent\n"
                      f"sys.stdin.read()\n(here / '{name}.runs').open('a').write('ran\\n')\n"
                      f"sys.stdout.write((here / '{name}.out').read_text())\nsys.exit({code})\n")
    script.chmod(0o755)
    return script


def runs(script: Path) -> int:
    marker = script.with_name(f"{script.name}.runs")
    return len(marker.read_text().splitlines()) if marker.exists() else 0


def next_clock(hour: int, minute: int, zone: Any = None) -> float:
    now = datetime.now(zone) if zone is not None else datetime.now().astimezone()
    when = now.replace(hour=hour, minute=minute, second=0, microsecond=0)
    return (when if when > now else when + timedelta(days=1)).timestamp()


def claude_code(tmp_path: Path, fixture: str) -> tuple[CodeDistiller, Path]:
    cli = fake_cli(tmp_path / "bin", "claude", (LIMITS / fixture).read_text(encoding="utf-8"), 1)
    return CodeDistiller(CodeClient(CodeSettings(cli=cli, workdir=tmp_path / "work"))), cli


def test_claude_codes_plan_limit_message_pauses_it_until_the_reset_it_names(tmp_path: Path) -> None:
    distiller, cli = claude_code(tmp_path, "claude-code-five-hour-limit.json")
    paths = sessions(tmp_path, 2)
    with Store() as store:
        report = run(store, distiller, paths, attended=False)
        assert runs(cli) == 1 and len(report.deferred) == 2 and report.imported == 0
        held = cooldown.of("claude-code")
        assert held is not None and held["kind"] == "usage limit" and held["by"] == "Claude Code"
        assert held["said"] == "You've hit your 5-hour limit · resets 6:12am (UTC)"
        assert held["until"] == next_clock(6, 12, UTC) + 60 and held["stated"] is True
        again = run(store, claude_code(tmp_path, "claude-code-five-hour-limit.json")[0], paths, attended=False)
    assert runs(cli) == 1 and again.deferred[0][1].startswith("COOLDOWN: background distillation through Claude "
                                                              "Code is paused until ")
    assert store.path.exists() and not report.imported


def test_claude_codes_weekly_limit_names_a_day_in_its_time_zone(tmp_path: Path) -> None:
    from zoneinfo import ZoneInfo

    distiller, _ = claude_code(tmp_path, "claude-code-weekly-limit.json")
    with Store() as store:
        run(store, distiller, sessions(tmp_path, 1), attended=False)
    held = cooldown.of("claude-code")
    if held is None:  # the named Dec 5 lies in the past this year and the next is beyond the longest wait
        pytest.fail("the weekly limit started no cooldown")
    zone = ZoneInfo("America/New_York")
    now = datetime.now(zone)
    named = datetime(now.year, 12, 5, 3, 59, tzinfo=zone)
    if named < now - timedelta(days=1):
        named = named.replace(year=now.year + 1)
    expected = min(named.timestamp() + 60, held["since"] + usage.MAX_COOLDOWN_SECONDS)
    assert held["said"] == "You've hit your weekly limit · resets Dec 5, 3:59am (America/New_York)"
    assert abs(held["until"] - expected) < 1


def test_claude_code_on_an_api_key_reports_a_429_as_a_rate_limit(tmp_path: Path) -> None:
    distiller, _ = claude_code(tmp_path, "claude-code-api-key-429.json")
    with Store() as store:
        run(store, distiller, sessions(tmp_path, 1), attended=False)
    held = cooldown.of("claude-code")
    assert held is not None and held["kind"] == "rate limit" and held["stated"] is False
    assert held["said"] == "API Error: Request rejected (429) · Number of request tokens has exceeded your " \
                           "per-minute rate limit"


def codex(tmp_path: Path, fixture: str) -> tuple[CodexDistiller, Path]:
    cli = fake_cli(tmp_path / "bin", "codex", (LIMITS / fixture).read_text(encoding="utf-8"), 1)
    return CodexDistiller(CodexClient(CodexSettings(cli=cli, workdir=tmp_path / "work"))), cli


def test_codexs_usage_limit_pauses_it_until_the_time_it_names(tmp_path: Path) -> None:
    distiller, cli = codex(tmp_path, "codex-usage-limit.jsonl")
    paths = sessions(tmp_path, 2)
    with Store() as store:
        report = run(store, distiller, paths, attended=False)
        held = cooldown.of("codex")
        assert runs(cli) == 1 and len(report.deferred) == 2
        assert held is not None and held["kind"] == "usage limit" and held["by"] == "Codex"
        assert held["said"].startswith("You’ve hit your usage limit.") and held["said"].endswith("try again at 6:12 AM.")
        assert held["until"] == next_clock(6, 12) + 60  # Codex names the time in its local zone
        run(store, codex(tmp_path, "codex-usage-limit.jsonl")[0], paths, attended=False)
    assert runs(cli) == 1


def test_codexs_rate_limit_after_its_own_retries_is_a_cooldown_too(tmp_path: Path) -> None:
    distiller, _ = codex(tmp_path, "codex-rate-limit.jsonl")
    with Store() as store:
        run(store, distiller, sessions(tmp_path, 1), attended=False)
    held = cooldown.of("codex")
    assert held is not None and held["kind"] == "rate limit" and held["stated"] is False
    assert held["said"] == "exceeded retry limit, last status: 429 Too Many Requests"


def test_other_failures_start_no_cooldown(fake_anthropic: FakeAnthropic, tmp_path: Path) -> None:
    fake_anthropic.default = FakeAnthropic.overloaded()
    with Store() as store:
        report = run(store, anthropic(fake_anthropic, max_retries=0), sessions(tmp_path, 1), attended=False)
    assert report.deferred and cooldown.active() == {}


# -- the worker, status and the next SessionStart -----------------------------------------------------


def hook(loreline_home: Path, event: str, path: Path) -> None:
    """The assistant's hook for `event` of the session in `path` (the worker it would start finds
    the lock held and leaves: the test drains)."""
    s_id = json.loads(path.read_text().splitlines()[0])["sessionId"]
    with worker_lock_held(loreline_home):
        done = run_hook(loreline_home, event, stdin={"session_id": s_id, "transcript_path": str(path),
                                                     "cwd": str(path.parent), "hook_event_name": event})
    assert done.returncode == 0 and done.stderr == b""


def hooked_session(loreline_home: Path, tmp_path: Path, prompts: int = 2, event: str = "SessionEnd") -> Path:
    [path] = sessions(tmp_path, 1, prompts, name=f"hooked{prompts}{event}")
    hook(loreline_home, event, path)
    return path


def the_job() -> jobs.Job:
    with Store() as store:
        [job_id] = [int(r[0]) for r in store.rows("SELECT id FROM jobs")]
        return jobs.get(store, job_id)


def test_the_worker_waits_out_a_cooldown_without_reading_the_session(loreline_home: Path, tmp_path: Path) -> None:
    distiller, cli = claude_code(tmp_path, "claude-code-five-hour-limit.json")
    until = time.time() + 3600
    cooldown.save("claude-code", usage.cooldown_entry(Limit("usage limit", "You've hit your 5-hour limit", until,
                                                            "Claude Code")))
    hooked_session(loreline_home, tmp_path)
    report = Worker(capture.Settings(), distiller=distiller, horizon=0.0).drain()
    job = the_job()
    assert report is not None and report.deferred == 1 and runs(cli) == 0
    assert job.state == "deferred" and (job.last_error or "").startswith("COOLDOWN: background distillation "
                                                                         "through Claude Code is paused until ")
    assert job.not_before is not None and abs(jobs.parse_stamp(job.not_before).timestamp() - (until + 60)) < 5
    rules = Worker(capture.Settings(), distiller=RulesDistiller(), horizon=0.0)  # the rules never cool down
    with Store() as store, store.write():
        store.conn.execute("UPDATE jobs SET not_before = NULL")
    assert rules.drain() is not None and the_job().state == "done"


def test_the_next_session_start_tells_the_person_once(loreline_home: Path, tmp_path: Path) -> None:
    payload = {"session_id": "sess-cooldown-1", "cwd": str(tmp_path), "hook_event_name": "SessionStart",
               "source": "startup"}
    assert run_hook(loreline_home, "SessionStart", stdin=payload).stdout == b""
    cooldown.save("codex", usage.cooldown_entry(Limit("usage limit", "You’ve hit your usage limit.",
                                                      time.time() + 7200, "Codex")))
    told = json.loads(run_hook(loreline_home, "SessionStart", stdin=payload).stdout)
    assert told["systemMessage"].startswith("Loreline: background distillation through Codex is paused until ")
    assert "Codex said “You’ve hit your usage limit.”" in told["systemMessage"]
    assert "hookSpecificOutput" not in told  # no memories yet: the line alone, nothing for the model
    assert run_hook(loreline_home, "SessionStart", stdin=payload).stdout == b""  # once per cooldown
    cooldown.save("codex", usage.cooldown_entry(Limit("rate limit", "429", time.time() + 60, "Codex")))
    assert b"systemMessage" in run_hook(loreline_home, "SessionStart", stdin=payload).stdout  # a new one is told


def test_the_cooldown_file_survives_damage(loreline_home: Path) -> None:
    folder = loreline_home / "state"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / cooldown.FILE).write_text("{not json")
    assert cooldown.active() == {} and cooldown.notice() is None
    cooldown.save("anthropic", usage.cooldown_entry(Limit("rate limit", "429", time.time() + 60)))
    assert set(cooldown.active()) == {"anthropic"}


# -- short and still-running sessions, for background capture only ------------------------------------


def test_background_capture_skips_short_sessions_and_says_so(loreline_home: Path, tmp_path: Path) -> None:
    short = hooked_session(loreline_home, tmp_path, prompts=1)
    worker = Worker(capture.Settings(), distiller=RulesDistiller(), horizon=0.0)
    assert worker.drain() is not None
    job = the_job()
    assert job.state == "done" and (job.last_error or "").startswith(
        "short session: 1 prompt, fewer than capture.min_prompts = 2; background capture skips it")
    with Store() as store:
        assert store.scalar("SELECT count(*) FROM ledger") == 0
        assert jobs.summary(store)["short_skipped"] == 1
        said = capture_status.lines(status.capture_state(store))
        explicit = run(store, RulesDistiller(), [short], attended=True)  # a person's import takes it
        assert explicit.imported == 1 and explicit.left_out == []
    assert ("           1 short sessions skipped (fewer prompts than capture.min_prompts): `loreline import sessions` "
            "takes them") in said


def test_status_puts_what_pauses_background_capture_first(fake_anthropic: FakeAnthropic, tmp_path: Path) -> None:
    empty_answers(fake_anthropic)
    config.set_value(usage.CAP_KEY, "1")
    with Store() as store:
        run(store, anthropic(fake_anthropic), sessions(tmp_path, 1), attended=False)
        config.set_value(usage.TOKENS_KEY, "100")
        cooldown.save("codex", usage.cooldown_entry(Limit("usage limit", "You’ve hit your usage limit.",
                                                          time.time() + 3600, "Codex")))
        problems = api_usage.gate_problems(usage.today_summary(store))
    assert [line.split(":")[0] for line in problems] == ["COOLDOWN", "DAILY CAP REACHED", "DAILY TOKEN BUDGET REACHED"]
    assert problems[0].startswith("COOLDOWN: background distillation through Codex is paused until ")
    assert problems[2].endswith("unattended tokens used today; capture is paused until tomorrow (raise "
                                "limits.daily_unattended_tokens)")


def test_background_capture_waits_for_a_running_session_to_go_idle(loreline_home: Path, tmp_path: Path) -> None:
    settings = capture.Settings()
    settings.min_idle_minutes = 10
    path = hooked_session(loreline_home, tmp_path, event="Stop")
    assert Worker(settings, distiller=RulesDistiller(), horizon=0.0).drain() is not None
    job = the_job()
    assert job.state == "deferred" and "capture.min_idle_minutes" in (job.last_error or "")
    assert job.not_before is not None
    wait = jobs.parse_stamp(job.not_before).timestamp() - path.stat().st_mtime
    assert 590 < wait < 610
    hook(loreline_home, "SessionEnd", path)
    with Store() as store, store.write():
        store.conn.execute("UPDATE jobs SET not_before = NULL")
    assert Worker(settings, distiller=RulesDistiller(), horizon=0.0).drain() is not None
    assert the_job().state == "done"  # the session ended: no wait


# -- never twice -----------------------------------------------------------------------------------------


def test_text_distilled_before_a_cooldown_is_not_sent_again_after_it(fake_anthropic: FakeAnthropic,
                                                                       tmp_path: Path) -> None:
    s = ClaudeSession(str(tmp_path / "big"))
    for n in range(2):
        s.user(f"Part {n}: " + "we keep the release notes in docs/releases and review them weekly. " * 220)
        s.assistant("Understood.")
    path = s.write(tmp_path / "big.jsonl")
    fake_anthropic.enqueue(FakeAnthropic.tool("record_memories", {"memories": []}),
                           FakeAnthropic.rate_limited(retry_after="600"))
    with Store() as store:
        first = run(store, anthropic(fake_anthropic), [path], attended=False)
        assert first.deferred and first.chunks == 2 and len(fake_anthropic.requests) == 2
        assert cooldown.of("anthropic") is not None
        empty_answers(fake_anthropic)
        assert run(store, anthropic(fake_anthropic), [path], attended=False).deferred  # held: nothing sent
        assert len(fake_anthropic.requests) == 2
        cooldown.lift("anthropic")  # the time it named has come
        after = run(store, anthropic(fake_anthropic), [path], attended=False)
        assert after.imported == 1 and after.chunks_replayed == 1 and len(fake_anthropic.requests) == 3
        assert run(store, anthropic(fake_anthropic), [path], attended=False).unchanged == 1
    sent = [r.user_text for r in fake_anthropic.requests]
    assert ["Part 0:" in text for text in sent] == [True, False, False]  # distilled once, never sent again
    assert ["Part 1:" in text for text in sent] == [False, True, True]  # refused by the limit, sent once it lifted


def test_the_hook_and_the_engine_leave_out_the_same_credentials() -> None:
    from loreline import environment
    from loreline_hooks import launch

    assert launch.ASSISTANT_CREDENTIALS == environment.ASSISTANT_CREDENTIALS
