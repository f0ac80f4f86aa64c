"""Project keys never depend on the folder a process was started in: a session's working
directory from another system (a Windows folder read on Linux or macOS, a POSIX folder read on
Windows) stays absolute and normalised, so the hook and an import of the same session agree."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from loreline.project import absolute, project_key
from loreline.samples.builder import ClaudeSession
from tests.capture_helpers import event, hook_env, run_hook, worker_lock_held
from tests.conftest import loreline_exe, subprocess_env

FOREIGN = [
    ("X:\\work\\app", "X:\\work\\app"),
    ("x:/work/tools/../app/", "X:\\work\\app"),
    ("C:\\Users\\me\\proj\\.\\src\\..", "C:\\Users\\me\\proj"),
    ("\\\\server\\share\\team\\proj\\", "\\\\server\\share\\team\\proj"),
]


def _key_in(folder: Path, path: str) -> str:
    """`project_key(path)` computed by a fresh process started in `folder`."""
    code = "import sys\nfrom loreline.project import project_key\nprint(project_key(sys.argv[1]))\n"
    done = subprocess.run([sys.executable, "-c", code, path], capture_output=True, text=True, cwd=folder, timeout=60,
                          check=True)
    return done.stdout.strip()


@pytest.mark.parametrize(("given", "key"), FOREIGN)
def test_another_system_s_absolute_folder_keeps_one_key_wherever_the_process_runs(
        tmp_path: Path, given: str, key: str) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b" / "deeper").mkdir(parents=True)
    assert _key_in(tmp_path / "a", given) == key
    assert _key_in(tmp_path / "b" / "deeper", given) == key


def test_a_posix_folder_read_on_windows_stays_as_it_was_written() -> None:
    """On Windows a `/home/...` folder is absolute on the system that wrote it: it is not put on
    the current drive (`C:\\home\\...`), which would depend on where the command was started."""
    assert absolute("/home/me/proj/../app/", windows=True) == "/home/me/app"
    assert absolute("/home/me/proj/", windows=False) == "/home/me/proj"
    assert absolute("X:\\work\\..\\app", windows=False) == "X:\\app"


def test_a_relative_folder_is_still_the_current_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert project_key(".") == str(tmp_path) and project_key("sub/..") == str(tmp_path)


def test_the_hook_and_an_import_agree_on_a_windows_session_read_here(loreline_home: Path, tmp_path: Path) -> None:
    """A Claude Code session written on Windows is imported from one folder; the SessionStart
    hook of the same session, started from another folder, finds its memories."""
    session = ClaudeSession(cwd="D:\\src\\shop")
    session.user("In this repo we use pnpm, never npm.")
    session.assistant("Understood: pnpm it is.")
    session.user("Always run the linter before committing.")
    session.assistant("Will do.")
    path = session.write(tmp_path / "sessions" / f"{session.session_id}.jsonl")
    importer, hook_folder = tmp_path / "here", tmp_path / "elsewhere"
    importer.mkdir()
    hook_folder.mkdir()
    done = subprocess.run([loreline_exe(), "import", "sessions", "--path", str(path), "--backend", "rules", "--json"],
                          capture_output=True, text=True, cwd=importer, env=subprocess_env(loreline_home), timeout=120)
    assert done.returncode == 0, done.stderr
    listed = subprocess.run([loreline_exe(), "memories", "--all", "--json"], capture_output=True, text=True,
                            cwd=hook_folder, env=subprocess_env(loreline_home), timeout=60, check=True)
    assert {m["project"] for m in json.loads(listed.stdout)} == {"D:\\src\\shop"}
    with worker_lock_held(loreline_home):
        hook = run_hook(loreline_home, "SessionStart", stdin=event("SessionStart", session, path),
                        env=hook_env(loreline_home), cwd=hook_folder)
    out = hook.stdout.decode()
    assert hook.returncode == 0 and "<loreline-memories>" in out and "pnpm" in out, hook.stderr.decode()
