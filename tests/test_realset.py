"""The real labelled set's scoring (scripts/evallib/realset.py) and the dry-run benchmark entry.

Scoring is checked on a hand-made set in a temporary directory, so every figure is worked out
by hand; the committed set is only checked for consistency (labels on user lines, a split
that covers every session once), never for its scores.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import orjson

import pytest

from loreline import home as loreline_home
from loreline.assistants.registry import parse as parse_session
from loreline.store import Store
from tests.conftest import ROOT

SCRIPTS = str(ROOT / "scripts")
if SCRIPTS not in sys.path:
    sys.path.insert(0, SCRIPTS)

from benchlib import dryrun_bench, registry  # noqa: E402
from evallib import realset  # noqa: E402
from loreline.distill.rules import RulesDistiller  # noqa: E402

pytestmark = pytest.mark.slow  # the big evaluation suite (the real labelled set)


def _line(kind: str, text: str, n: int, **extra: object) -> bytes:
    role = "user" if kind == "user" else "assistant"
    content: object = text if role == "user" else [{"type": "text", "text": text}]
    record = {"type": role, "uuid": f"u{n}", "parentUuid": f"u{n - 1}" if n > 1 else None, "sessionId": "s1",
              "cwd": "/home/dev/app", "timestamp": f"2026-01-01T10:00:{n:02d}Z", "isSidechain": False,
              "message": {"role": role, "content": content}, **extra}
    return orjson.dumps(record) + b"\n"


def _real_dir(tmp_path: Path) -> Path:
    real = tmp_path / "real"
    (real / "sessions" / "a").mkdir(parents=True)
    lines = [
        ("user", "ok let's go with esbuild for the bundle"),  # 1: labelled, found
        ("assistant", "We'll use Redis locks because they are simple."),  # 2: assistant; rules never read it
        ("user", "we always run the tests with vitest"),  # 3: labelled but with a keyword the memory lacks -> a miss + false +
        ("user", "Stop hook feedback:\nwe should always use pnpm"),  # 4: injected; skipped by the rules
        ("user", "we should never store tokens in localStorage"),  # 5: marked forbidden by hand
    ]
    body = b"".join(_line(kind, text, n) for n, (kind, text) in enumerate(lines, start=1))
    (real / "sessions" / "a" / "one.jsonl").write_bytes(body)
    (real / "split.json").write_text(json.dumps({"tune": ["a/one.jsonl"], "test": []}))
    labels = {"positives": [
        {"session": "a/one.jsonl", "line": 1, "kind": "decision", "gist": "esbuild", "keywords": ["esbuild"]},
        {"session": "a/one.jsonl", "line": 3, "kind": "fact", "gist": "vitest 2", "keywords": ["vitest 2"]},
    ], "forbidden": [{"session": "a/one.jsonl", "line": 5, "why": "test"}]}
    (real / "labels.json").write_text(json.dumps(labels))
    return real


def test_a_hand_worked_half(tmp_path: Path) -> None:
    score = realset.score_half(RulesDistiller(), "tune", _real_dir(tmp_path))
    assert (score.sessions, score.labels, score.memories, score.hits) == (1, 2, 3, 1)
    assert [m.line for m in score.false_positives] == [3]
    assert [m.line for m in score.forbidden] == [5]
    assert abs(score.precision - 1 / 3) < 1e-9 and score.recall == 0.5
    assert realset.as_json(score)["forbidden"] == 1


def test_an_empty_half_scores_without_dividing_by_zero(tmp_path: Path) -> None:
    score = realset.score_half(RulesDistiller(), "test", _real_dir(tmp_path))
    assert (score.memories, score.labels, score.precision, score.recall) == (0, 0, 1.0, 1.0)


def test_the_committed_set_is_consistent() -> None:
    split = realset.load_split()
    assert not set(split["tune"]) & set(split["test"])
    labels, forbidden = realset.load_labels()
    sessions = set(split["tune"]) | set(split["test"])
    assert len(labels) >= 40 and len(sessions) >= 20
    for label in labels:
        assert label.session in sessions and label.keywords
        path = realset.session_file(label.session)
        turn = next((u for u in parse_session(path).transcript.turns
                     if u.line_start <= label.line <= u.line_end), None)
        if turn is None:  # the user's words inside a tool result: the line itself must hold them
            raw = path.read_text(encoding="utf-8").splitlines()[label.line - 1].lower()
            assert "user has answered" in raw or "reason for the rejection" in raw, label
            assert all(k.lower() in raw for k in label.keywords), label
            continue
        assert turn.speaker == "user" and all(k.lower() in turn.text.lower() for k in label.keywords), label
    assert all(session in sessions for session, _ in forbidden)
    assert all(realset.session_file(s).is_file() for s in sessions)


def test_the_dry_run_entry_times_a_real_dry_run(tmp_path: Path) -> None:
    ctx = registry.Context(tmp_path / "work", size_mb=0.4, slope_mb=(0.5, 1.5), runs=1, quiet=True)
    slope, row = dryrun_bench.dry_run_vs_orjson(ctx)
    assert row.value > 0 and row.detail["sessions"] == len(ctx.main_tree().sessions) and row.passed is None
    # the budget is on the cost per MB: the slope between two trees, for the import and the floor alike
    small, large = slope.detail["trees_mb"]
    assert 0 < small < large and slope.runs >= dryrun_bench.SLOPE_RUNS
    (floor_small, floor_large), (import_small, import_large) = slope.detail["floor_s"], slope.detail["import_s"]
    assert slope.detail["floor_ms_per_mb"] == pytest.approx(1000 * (floor_large - floor_small) / (large - small))
    assert slope.detail["import_ms_per_mb"] == pytest.approx(1000 * (import_large - import_small) / (large - small))
    assert slope.value == pytest.approx(slope.detail["import_ms_per_mb"] / slope.detail["floor_ms_per_mb"])
    assert slope.passed == (slope.value <= dryrun_bench.BUDGET_RATIO)
    with loreline_home.using(tmp_path / "work" / "dryrun-home-0"), Store() as store:
        assert store.one("SELECT count(*) FROM memories") == (0,)  # a dry run stores nothing


def test_the_eval_command_reports_both_halves(tmp_path: Path) -> None:
    from evallib import __main__ as eval_main

    doc = tmp_path / "benchmarks.md"
    doc.write_text("# B\n", encoding="utf-8")
    out = tmp_path / "eval.json"
    assert eval_main.main(["extraction", "--backend", "rules", "--json", str(out), "--docs", str(doc)]) == 0
    real = json.loads(out.read_text())["real"]
    assert [(r["backend"], r["half"]) for r in real] == [("rules", "tune"), ("rules", "test")]
    assert all(0 <= r["precision"] <= 1 and 0 <= r["recall"] <= 1 and r["labels"] > 0 for r in real)
    assert "held-out test half" in doc.read_text()


def test_the_rules_through_import_are_judged_by_what_is_left_active() -> None:
    """The offline rules only suggest; what a half's histories leave active (said again) is what
    reaches an assistant, and that is what this mode scores."""
    from evallib import realimport

    score = realimport.score_half("tune")
    assert score.sessions == len(realset.load_split()["tune"])
    assert score.memories == score.hits + len(score.false_positives) + len(score.forbidden)
    assert "active after import" in realimport.render(score)


def test_an_action_line_is_forbidden_ground_for_a_preference_not_for_a_procedure(tmp_path: Path) -> None:
    record = {"type": "assistant", "uuid": "u2", "parentUuid": "u1", "sessionId": "s1", "cwd": "/home/dev/app",
              "timestamp": "2026-01-01T10:00:02Z", "isSidechain": False, "message": {"role": "assistant", "content": [
                  {"type": "text", "text": "Restarting the db."},
                  {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "docker compose restart db"}}]}}
    path = tmp_path / "s.jsonl"
    path.write_bytes(_line("user", "the db is stuck", 1) + orjson.dumps(record) + b"\n")
    t = parse_session(path).transcript
    assert [turn.speaker for turn in t.turns] == ["user", "assistant", "action"]  # lines 1, 2 and 2
    judged = {kind: realset.is_forbidden(realset.Memory("a/s.jsonl", 2, kind, "x"), set(), t)
              for kind in ("procedure", "fact", "episode", "preference", "decision")}
    assert judged == {"procedure": False, "fact": False, "episode": False, "preference": True, "decision": True}
    assert realset.is_forbidden(realset.Memory("a/s.jsonl", 1, "preference", "x"), set(), t) is False
