"""Usage accounting, the daily cap on unattended model calls, and what they cost."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import apsw
import pytest
import sqlite_vec

from loreline import config, pipeline, usage
from loreline.distill.anthropic import AnthropicDistiller
from loreline.models import ImportReport, Usage
from loreline.samples.builder import ClaudeSession
from loreline.store import Store, migrations
from tests.conftest import loreline_exe, subprocess_env
from tests.fake_anthropic import TEST_KEY, FakeAnthropic, fake_anthropic, model_client  # noqa: F401  (fixture)

pytestmark = pytest.mark.slow  # the daily cap through many CLI processes


def sessions(tmp_path: Path, n: int) -> list[Path]:
    out = []
    for index in range(n):
        s = ClaudeSession(str(tmp_path / f"p{index}"))
        s.user(f"In project p{index} we always run the linter before committing.")
        out.append(s.write(tmp_path / f"s{index}.jsonl"))
    return out


def run(store: Store, fake: FakeAnthropic, paths: list[Path], *, attended: bool) -> ImportReport:
    distiller = AnthropicDistiller(model_client(fake))
    options = pipeline.Options(distiller=distiller, attended=attended)
    return pipeline.import_sessions(store, [(p, "claude-code") for p in paths], options)


def empty_answers(fake: FakeAnthropic) -> None:
    fake.default = FakeAnthropic.tool("record_memories", {"memories": []})


def test_unattended_work_stops_at_the_cap_and_is_deferred_not_lost(
        fake_anthropic: FakeAnthropic, tmp_path: Path) -> None:
    empty_answers(fake_anthropic)
    config.set_value("limits.daily_unattended_calls", "2")
    paths = sessions(tmp_path, 3)
    with Store() as store:
        report = run(store, fake_anthropic, paths, attended=False)
        assert len(fake_anthropic.requests) == 2
        assert report.imported == 2 and [p for p, _ in report.deferred] == [str(paths[2])]
        assert report.deferred[0][1] == ("DAILY CAP REACHED: 2/2 unattended model calls today; capture is paused "
                                         "until tomorrow (raise limits.daily_unattended_calls)")
        assert store.scalar("SELECT count(*) FROM ledger WHERE session_path = ?", (str(paths[2]),)) == 0
        assert usage.calls_on(store, usage.today(), attended=False) == 2
        # raising the cap lets the deferred session through; the others cost nothing again
        config.set_value("limits.daily_unattended_calls", "10")
        again = run(store, fake_anthropic, paths, attended=False)
    assert again.imported == 1 and again.unchanged == 2 and again.deferred == []
    assert len(fake_anthropic.requests) == 3


def test_attended_imports_are_never_capped_but_are_counted(fake_anthropic: FakeAnthropic, tmp_path: Path) -> None:
    empty_answers(fake_anthropic)
    config.set_value("limits.daily_unattended_calls", "1")
    with Store() as store:
        report = run(store, fake_anthropic, sessions(tmp_path, 3), attended=True)
        assert usage.calls_on(store, usage.today(), attended=True) == 3
        assert usage.calls_on(store, usage.today(), attended=False) == 0
        summary = usage.today_summary(store)
    assert report.deferred == [] and report.imported == 3 and len(fake_anthropic.requests) == 3
    assert summary["attended_calls"] == 3 and summary["cap_reached"] is False


def test_tokens_are_recorded_per_call_with_cache_reads_and_writes(
        fake_anthropic: FakeAnthropic, tmp_path: Path) -> None:
    empty_answers(fake_anthropic)
    with Store() as store:
        report = run(store, fake_anthropic, sessions(tmp_path, 2), attended=True)
        row = store.one("SELECT day, backend, model, attended, calls, input_tokens, cache_read_tokens, "
                        "cache_creation_tokens, output_tokens FROM usage")
    assert row is not None
    day, backend, model, attended, calls, fresh, read, written, out = row
    assert (day, backend, model, attended, calls) == (usage.today(), "anthropic", "claude-haiku-4-5", 1, 2)
    assert written == read > 1000  # the instructions: written to the cache once, read the second time
    assert fresh > 0 and out == 80
    assert report.usage == Usage(2, fresh, read, written, out)


def test_prices_are_an_estimate_per_model() -> None:
    million = Usage(1, 1_000_000, 1_000_000, 1_000_000, 1_000_000)
    assert usage.cost("claude-haiku-4-5", million) == pytest.approx(1.00 + 0.10 + 1.25 + 5.00)
    assert usage.cost("claude-haiku-4-5-20251001", Usage(input_tokens=2_000_000)) == pytest.approx(2.0)
    assert usage.cost("claude-opus-4-5-20251101", Usage(output_tokens=1_000_000)) == pytest.approx(25.0)
    assert usage.cost("claude-opus-4-1", Usage(output_tokens=1_000_000)) == pytest.approx(75.0)
    assert usage.cost("some-proxy-model", million) is None
    line = usage.cost_line("claude-haiku-4-5", Usage(3, 12_000, 4_000, 2_000, 300))
    assert line.startswith("Model use: 3 calls to claude-haiku-4-5 · input 12,000 tokens")
    assert "≈ $0.0164 (estimate at list prices)" in line
    assert "no price known" in usage.cost_line("some-proxy-model", Usage(1))


def test_migration_moves_old_usage_rows_into_the_per_model_table(tmp_path: Path) -> None:
    path = tmp_path / "old.db"

    class Bare:
        conn = apsw.Connection(str(path))

    Bare.conn.enable_load_extension(True)
    Bare.conn.load_extension(sqlite_vec.loadable_path())
    Bare.conn.execute("CREATE TABLE migrations(name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
    for name, migrate in migrations.MIGRATIONS:
        if name == "0003_usage_by_model":
            break
        migrate(Bare)  # type: ignore[arg-type]
        Bare.conn.execute("INSERT INTO migrations VALUES(?, 'then')", (name,))
    Bare.conn.execute("INSERT INTO usage(day, backend, attended, calls, input_tokens, cached_tokens, output_tokens) "
                      "VALUES('2026-01-02', 'anthropic', 0, 4, 100, 50, 10)")
    Bare.conn.close()
    with Store(path) as store:
        rows = store.rows("SELECT day, backend, model, attended, calls, input_tokens, cache_read_tokens, "
                          "cache_creation_tokens, output_tokens FROM usage")
    assert rows == [("2026-01-02", "anthropic", "", 0, 4, 100, 50, 0, 10)]


def cli(home: Path, fake: FakeAnthropic, *args: str) -> subprocess.CompletedProcess[str]:
    env = subprocess_env(home, ANTHROPIC_API_KEY=TEST_KEY, ANTHROPIC_BASE_URL=fake.url,
                         PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring")
    return subprocess.run([loreline_exe(), *args], capture_output=True, text=True, timeout=120, env=env)


def test_status_says_loudly_when_the_cap_is_reached(
        fake_anthropic: FakeAnthropic, tmp_path: Path, loreline_home: Path) -> None:
    empty_answers(fake_anthropic)
    config.set_value("limits.daily_unattended_calls", "1")
    with Store() as store:
        run(store, fake_anthropic, sessions(tmp_path, 2), attended=False)
    status = cli(loreline_home, fake_anthropic, "status")
    assert status.returncode == 0, status.stderr
    first = status.stdout.splitlines()[0]
    assert first == ("!! DAILY CAP REACHED: 1/1 unattended model calls today; capture is paused until tomorrow "
                     "(raise limits.daily_unattended_calls)")
    assert "Model use  today 0 attended · 1/1 unattended calls" in status.stdout
    assert "anthropic (claude-haiku-4-5, key from ANTHROPIC_API_KEY)" in status.stdout
    info = json.loads(cli(loreline_home, fake_anthropic, "status", "--json").stdout)
    assert info["model_use"]["cap_reached"] is True and info["model_use"]["unattended_calls"] == 1


def test_cli_dry_run_estimates_and_the_real_run_prints_the_cost(
        fake_anthropic: FakeAnthropic, tmp_path: Path, loreline_home: Path) -> None:
    empty_answers(fake_anthropic)
    [path] = sessions(tmp_path, 1)
    dry = cli(loreline_home, fake_anthropic, "import", "sessions", "--path", str(path), "--dry-run", "--json")
    assert dry.returncode == 0, dry.stderr
    spend: dict[str, Any] = json.loads(dry.stdout)["model_use"]
    assert spend["calls"] == 0 and spend["estimated_input_tokens"] > 1000 and fake_anthropic.requests == []
    text = cli(loreline_home, fake_anthropic, "import", "sessions", "--path", str(path), "--dry-run").stdout
    assert f"Would send 1 chunks ≈ {spend['estimated_input_tokens']:,} input tokens to claude-haiku-4-5" in text
    assert "no model call was made" in text and fake_anthropic.requests == []
    real = cli(loreline_home, fake_anthropic, "import", "sessions", "--path", str(path))
    assert "Model use: 1 calls to claude-haiku-4-5" in real.stdout and "(estimate at list prices)" in real.stdout
    assert len(fake_anthropic.requests) == 1
    status = cli(loreline_home, fake_anthropic, "status").stdout
    assert "Model use  today 1 attended · 0/100 unattended calls" in status and "DAILY CAP" not in status
