"""A file that cannot be read fails only itself: dangling and looping links, named pipes,
folders named like sessions and unreadable files are each reported with their reason, in a
subprocess through the CLI, while every other session imports."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from loreline.samples.builder import ClaudeSession, project_slug
from tests.conftest import loreline_exe, subprocess_env

pytestmark = pytest.mark.slow  # imports of unreadable files in CLI processes

HOUR_AGO = time.time() - 3600
DANGLING = "a dangling symbolic link (its target {} does not exist)"
LOOP = "a symbolic link loop"
FIFO = "a named pipe (FIFO), not a transcript file"
FOLDER = "a directory, not a transcript file"
NO_DAC = ("setpriv", "--bounding-set=-dac_override,-dac_read_search", "--")


def _uuid(n: int) -> str:
    return f"{n:08x}-0000-4000-8000-000000000000.jsonl"


def _dated(*paths: Path) -> None:
    for path in paths:
        os.utime(path, (HOUR_AGO, HOUR_AGO), follow_symlinks=False)


def _good_session(tmp_path: Path, root: Path) -> Path:
    session = ClaudeSession(str(tmp_path / "shop"))
    session.user("In this repo we use pnpm, never npm.")
    path = session.write(root / "projects" / project_slug(session.cwd) / f"{session.session_id}.jsonl")
    _dated(path)
    return path


def _broken_claude_files(folder: Path) -> dict[str, str]:
    """Every kind of unreadable entry, named like a session; path → the reason expected."""
    dangling, loop_a, loop_b, fifo, directory = (folder / _uuid(n) for n in range(1, 6))
    dangling.symlink_to(folder / "moved-away.jsonl")
    loop_a.symlink_to(loop_b)
    loop_b.symlink_to(loop_a)
    os.mkfifo(fifo)
    directory.mkdir()
    _dated(dangling, loop_a, loop_b, fifo, directory)
    return {str(dangling): DANGLING.format(folder / "moved-away.jsonl"), str(loop_a): LOOP, str(loop_b): LOOP,
            str(fifo): FIFO, str(directory): FOLDER}


def cli(home: Path, *args: str, prefix: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*prefix, loreline_exe(), *args], capture_output=True, text=True,
                          env=subprocess_env(home), timeout=120)


def test_broken_files_fail_alone_and_the_rest_import(tmp_path: Path, loreline_home: Path) -> None:
    root = tmp_path / "claude"
    good = _good_session(tmp_path, root)
    expected = _broken_claude_files(good.parent)
    first = cli(loreline_home, "import", "sessions", "--claude-dir", str(root), "--json")
    assert first.returncode == 0, first.stderr
    report = json.loads(first.stdout)["sessions"]
    assert report["imported"] == 1
    assert {f["path"]: f["error"] for f in report["failed"]} == expected
    again = cli(loreline_home, "import", "sessions", "--claude-dir", str(root))
    assert again.returncode == 0, again.stderr  # unchanged sessions are not a failed run
    assert "1 unchanged" in again.stdout and "5 failed" in again.stdout
    for reason in set(expected.values()):
        assert reason in again.stdout
    assert "Traceback" not in first.stderr + again.stderr


def test_codex_and_cursor_broken_files_are_reported_too(tmp_path: Path, loreline_home: Path) -> None:
    claude = tmp_path / "claude"
    _good_session(tmp_path, claude)
    rollout = tmp_path / "codex" / "sessions" / "2026" / "01" / "02" / "rollout-2026-01-02T10-00-00-x.jsonl"
    rollout.parent.mkdir(parents=True)
    rollout.symlink_to(tmp_path / "deleted-rollout.jsonl")
    cursor = tmp_path / "cursor" / "projects" / "p" / "agent-transcripts" / _uuid(9)
    cursor.parent.mkdir(parents=True)
    os.mkfifo(cursor)
    _dated(rollout, cursor)
    result = cli(loreline_home, "import", "sessions", "--tool", "all", "--claude-dir", str(claude),
                 "--codex-home", str(tmp_path / "codex"), "--cursor-dir", str(tmp_path / "cursor"), "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)["sessions"]
    assert report["imported"] == 1
    assert {f["path"]: f["error"] for f in report["failed"]} == {
        str(rollout): DANGLING.format(tmp_path / "deleted-rollout.jsonl"), str(cursor): FIFO}


def test_named_paths_that_cannot_be_read_fail_alone(tmp_path: Path, loreline_home: Path) -> None:
    good = _good_session(tmp_path, tmp_path / "claude")
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    alone = cli(loreline_home, "import", "sessions", "--path", str(fifo))
    assert alone.returncode == 1 and alone.stdout == ""
    assert alone.stderr == f"loreline: cannot import {fifo}: {FIFO}\n"  # one line, and no read that blocks
    both = cli(loreline_home, "import", "sessions", "--path", str(good), str(fifo), str(tmp_path), "--json")
    assert both.returncode == 0, both.stderr
    report = json.loads(both.stdout)["sessions"]
    assert report["imported"] == 1
    assert {f["path"]: f["error"] for f in report["failed"]} == {str(fifo): FIFO, str(tmp_path): FOLDER}


def _unprivileged() -> tuple[str, ...]:
    """How to run the CLI so that file permissions apply: as is for a normal user; for root,
    without the capabilities that bypass them (setpriv drops CAP_DAC_OVERRIDE and
    CAP_DAC_READ_SEARCH from the bounding set, so root's own mode-000 file is unreadable)."""
    if os.geteuid() != 0:
        return ()
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: a permission-denied file cannot be made unreadable to root")
    probe = subprocess.run([*NO_DAC, "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip(f"setpriv cannot drop the DAC capabilities here: {probe.stderr.decode().strip()}")
    return NO_DAC


def test_a_file_without_read_permission_fails_alone(tmp_path: Path, loreline_home: Path) -> None:
    prefix = _unprivileged()
    root = tmp_path / "claude"
    good = _good_session(tmp_path, root)
    locked = good.parent / _uuid(7)
    shutil.copyfile(good, locked)
    locked.chmod(0)
    _dated(locked)
    result = cli(loreline_home, "import", "sessions", "--claude-dir", str(root), "--json", prefix=prefix)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)["sessions"]
    assert report["imported"] == 1
    assert report["failed"] == [{"path": str(locked), "error": "permission denied"}]


def test_a_folder_that_cannot_be_listed_is_reported(tmp_path: Path, loreline_home: Path) -> None:
    prefix = _unprivileged()
    root = tmp_path / "claude"
    _good_session(tmp_path, root)
    hidden = root / "projects" / "-home-dev-secret"
    hidden.mkdir()
    shutil.copyfile(next((root / "projects").glob("*/*.jsonl")), hidden / _uuid(8))
    hidden.chmod(0)
    try:
        result = cli(loreline_home, "import", "sessions", "--claude-dir", str(root), "--json", prefix=prefix)
    finally:
        hidden.chmod(0o700)  # so the temporary folder can be removed
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)["sessions"]
    assert report["imported"] == 1
    assert {"path": str(hidden), "reason": "cannot list this folder: Permission denied"} in report["left_out"]


def test_reading_a_named_pipe_as_a_transcript_never_waits(tmp_path: Path, loreline_home: Path) -> None:
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    result = cli(loreline_home, "transcript", str(fifo))  # no writer ever comes: an open() would wait
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr == f"loreline: not a file: {fifo} ({FIFO})\n"
