"""The `loreline` command end to end, in subprocesses, against a real store on disk."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from loreline.samples.builder import ClaudeSession, project_slug
from tests.conftest import loreline_exe, subprocess_env

pytestmark = pytest.mark.slow  # imports sessions and recalls in CLI processes, each loading the sentence model


def cli(home: Path, *args: str, cwd: Path | None = None, check: bool = True) -> subprocess.CompletedProcess[str]:
    result = subprocess.run([loreline_exe(), *args], capture_output=True, text=True, env=subprocess_env(home),
                            cwd=cwd, timeout=120)
    if check and result.returncode != 0:
        raise AssertionError(f"loreline {' '.join(args)} failed ({result.returncode}): {result.stderr}")
    return result


@pytest.fixture
def claude_tree(tmp_path: Path) -> Path:
    root = tmp_path / "claude"
    shop = ClaudeSession(str(tmp_path / "shop"))
    shop.user("In this repo we use pnpm, never npm.")
    shop.assistant("Noted.", tools=[("Read", {"file_path": str(tmp_path / "shop" / "package.json")}, "{}")])
    shop.user("We'll use Postgres advisory locks because each billing job needs one worker.")
    other = ClaudeSession(str(tmp_path / "other"))
    other.user("The fix was to set PYTHONHASHSEED=0 in the test runner.")
    for age, session in ((7200, shop), (3600, other)):
        path = session.write(root / "projects" / project_slug(session.cwd) / f"{session.session_id}.jsonl")
        os.utime(path, (time.time() - age, time.time() - age))
    (tmp_path / "shop").mkdir()
    return root


def test_import_then_list_show_recall_status(tmp_path: Path, loreline_home: Path, claude_tree: Path) -> None:
    out = cli(loreline_home, "import", "sessions", "--claude-dir", str(claude_tree)).stdout
    assert "Imported 2 sessions" in out and "added 3" in out
    listed = json.loads(cli(loreline_home, "memories", "--json", cwd=tmp_path / "shop").stdout)
    assert [m["kind"] for m in listed] == ["decision", "preference"]
    first = listed[1]
    assert set(first) >= {"id", "kind", "text", "status", "project", "created_at", "observed_at", "provenance"}
    prov = first["provenance"][0]
    assert set(prov) >= {"tool", "session_id", "session_path", "line_start", "line_end", "excerpt"}
    assert prov["line_start"] == 1 and prov["tool"] == "claude-code"
    assert first["files"] == ["package.json"]
    everything = json.loads(cli(loreline_home, "memories", "--all", "--json").stdout)
    assert len(everything) == 3
    shown = cli(loreline_home, "show", str(first["id"])).stdout
    assert "In this repo we use pnpm, never npm." in shown and "lines 1" in shown
    hits = json.loads(cli(loreline_home, "recall", "advisory locks", "--project", str(tmp_path / "shop"), "--json").stdout)
    assert "advisory locks" in hits[0]["memory"]["text"] and hits[0]["memory"]["provenance"]
    assert hits[0]["sources"] == hits[0]["memory"]["provenance"] and hits[0]["fts_rank"] == 1
    status = cli(loreline_home, "status").stdout
    assert "3 active in 2 projects" in status and "2 imported" in status


def test_second_import_reports_everything_unchanged(loreline_home: Path, claude_tree: Path) -> None:
    cli(loreline_home, "import", "sessions", "--claude-dir", str(claude_tree))
    again = json.loads(cli(loreline_home, "import", "sessions", "--claude-dir", str(claude_tree), "--json").stdout)
    assert again["sessions"]["unchanged"] == 2 and again["added"] == 0 and again["chunks"] == 0


def test_dry_run_previews_and_writes_nothing(loreline_home: Path, claude_tree: Path, tmp_path: Path) -> None:
    out = cli(loreline_home, "import", "sessions", "--claude-dir", str(claude_tree), "--dry-run").stdout
    assert "Would import 2 sessions" in out and "In this repo we use pnpm, never npm." in out
    assert json.loads(cli(loreline_home, "memories", "--all", "--json").stdout) == []


def test_left_out_files_are_reported_with_reasons(loreline_home: Path, claude_tree: Path) -> None:
    sidecar = next((claude_tree / "projects").iterdir()) / "agent-1234abcd.jsonl"
    sidecar.write_text("{}\n")
    report = json.loads(cli(loreline_home, "import", "sessions", "--claude-dir", str(claude_tree), "--json",
                            "--sessions", "1").stdout)
    reasons = sorted(item["reason"] for item in report["sessions"]["left_out"])
    assert reasons == ["beyond the cap of 1 sessions (--sessions)", "subagent sidecar, not a session"]


def test_import_of_explicit_paths(loreline_home: Path, tmp_path: Path) -> None:
    s = ClaudeSession("/work/x")
    s.user("On macOS the build needs OPENSSL_DIR set to the brew prefix.")
    path = s.write(tmp_path / "x.jsonl")
    out = cli(loreline_home, "import", "sessions", "--path", str(path)).stdout
    assert "added 1" in out


def test_errors_are_one_clear_line(loreline_home: Path, tmp_path: Path) -> None:
    missing = cli(loreline_home, "import", "sessions", "--path", str(tmp_path / "nope.jsonl"), check=False)
    assert missing.returncode != 0 and missing.stderr.strip().count("\n") == 0
    assert "no such transcript" in missing.stderr
    unknown = cli(loreline_home, "show", "999", check=False)
    assert unknown.returncode == 3 and unknown.stderr.strip() == "loreline: no memory with id 999"
    loreline_home.mkdir(parents=True, exist_ok=True)
    (loreline_home / "loreline.db").write_bytes(b"garbage" * 1000)
    damaged = cli(loreline_home, "status", check=False)
    assert damaged.returncode == 1 and "Traceback" not in damaged.stderr
    assert damaged.stderr.startswith("loreline: ") and "damaged" in damaged.stderr


def test_every_command_has_help() -> None:
    from loreline.cli.main import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    helps = {a.dest: a.help for a in sub._choices_actions}  # type: ignore[attr-defined]
    assert set(helps) == set(sub.choices)  # type: ignore[attr-defined]
    assert all(helps.values())


def test_damage_found_mid_operation_is_one_line_never_a_traceback(loreline_home: Path, tmp_path: Path) -> None:
    s = ClaudeSession("/work/dmg")
    for n in range(40):
        s.user(f"In this repo we use tool{n} for step {n}, never the legacy one.")
    path = s.write(tmp_path / "s.jsonl")
    cli(loreline_home, "import", "sessions", "--path", str(path))
    db = loreline_home / "loreline.db"
    pristine = db.read_bytes()
    damaged_seen = 0
    pages = len(pristine) // 4096
    for page in sorted({2 + (pages - 2) * k // 12 for k in range(12)}):
        db.write_bytes(pristine[: page * 4096] + b"\x07" * 4096 + pristine[(page + 1) * 4096:])
        for args in (("recall", "tool7 step", "--project", "/work/dmg"), ("import", "sessions", "--path", str(path))):
            result = cli(loreline_home, *args, check=False)
            assert "Traceback" not in result.stderr, (page, args, result.stderr)
            assert len([line for line in result.stderr.splitlines() if line.startswith("loreline:")]) <= 1
            damaged_seen += "damaged" in result.stderr
    assert damaged_seen > 0


def test_an_unusable_home_is_one_line(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    result = cli(blocker / "home", "status", check=False)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr.startswith("loreline: cannot use")


def test_import_json_and_text_count_conflicts_and_status_has_the_project_counts(
        tmp_path: Path, loreline_home: Path) -> None:
    """Every count the pipeline keeps reaches `--json` (and the text when it is not zero); status
    gives the current directory's project its own counts."""
    project = tmp_path / "reports"
    project.mkdir()
    s = ClaudeSession(str(project))
    s.user("Let's use MySQL for reporting since the team knows it.")
    s.user("Actually, scrap that: we'll use Postgres for reporting because we need window functions.")
    path = s.write(tmp_path / "rev.jsonl")
    report = json.loads(cli(loreline_home, "import", "sessions", "--path", str(path), "--json").stdout)
    assert (report["conflicts"], report["versioned"], report["added"]) == (1, 0, 2)
    assert report["sessions"]["deferred"] == [] and report["cancelled"] is False
    again = cli(loreline_home, "import", "sessions", "--path", str(s.write(tmp_path / "again.jsonl"))).stdout
    assert "conflicts" not in again  # a second copy only merges: zero counts stay out of the text
    t = ClaudeSession(str(tmp_path / "elsewhere"))
    t.user("Let's use MySQL for reporting since the team knows it.")
    t.user("Actually, scrap that: we'll use Postgres for reporting because we need window functions.")
    text = cli(loreline_home, "import", "sessions", "--path", str(t.write(tmp_path / "t.jsonl"))).stdout
    assert "added 2 · merged 0 · conflicts 1" in text
    status = json.loads(cli(loreline_home, "status", "--json", cwd=project).stdout)
    assert status["project"] == str(project) and status["pending_conflicts"] == 0
    assert status["project_counts"] == {"active": 1, "superseded": 1, "forgotten": 0, "pending_conflicts": 0, "held": 0}
    assert f"This       {project}: 1 active · 0 pending conflicts" in cli(loreline_home, "status", cwd=project).stdout
    other = json.loads(cli(loreline_home, "status", "--json", cwd=tmp_path).stdout)
    assert other["project_counts"]["active"] == 0 and other["memories"]["active"] == 2
