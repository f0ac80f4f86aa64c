"""A damaged store is said, to the person: the installed SessionStart hook prints one line in
`systemMessage` (shown to the user, never in the model's context) and `loreline status` names
the recovery; the hooks still exit 0 quietly. The store is a real one the importer wrote, then
truncated, overwritten page by page, or given a garbage header."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.capture_helpers import remembered_project, run_hook, worker_lock_held
from tests.conftest import loreline_exe, subprocess_env

PAGE = 4096


def _truncate(db: Path) -> None:
    with db.open("r+b") as handle:
        handle.truncate(2 * PAGE)


def _garbage_pages(db: Path) -> None:
    size = db.stat().st_size
    with db.open("r+b") as handle:
        for offset in range(PAGE, size, PAGE):  # page 1 (header and schema) stays readable
            handle.seek(offset)
            handle.write(b"\xde\xad\xbe\xef" * (PAGE // 4))


def _garbage_header(db: Path) -> None:
    with db.open("r+b") as handle:
        handle.write(b"not a database at all " * 8)


DAMAGE: dict[str, Callable[[Path], None]] = {"truncated": _truncate, "garbage pages": _garbage_pages,
                                             "garbage header": _garbage_header}


@pytest.fixture
def project(loreline_home: Path, tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    folder, payload = remembered_project(tmp_path)
    for suffix in ("-wal", "-shm"):  # everything in the main file, as after a clean close
        assert not (loreline_home / f"loreline.db{suffix}").exists()
    return folder, payload


def _hook(loreline_home: Path, name: str, payload: dict[str, Any]) -> subprocess.CompletedProcess[bytes]:
    with worker_lock_held(loreline_home):
        result = run_hook(loreline_home, name, stdin={**payload, "hook_event_name": name, "source": "startup"})
    assert result.returncode == 0 and result.stderr == b""
    return result


def _status(loreline_home: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([loreline_exe(), "status", *args], capture_output=True, text=True, cwd=cwd,
                          env=subprocess_env(loreline_home), timeout=120)


def test_a_healthy_store_gives_the_block_and_no_user_line(loreline_home: Path,
                                                          project: tuple[Path, dict[str, Any]]) -> None:
    """Control for the tests below."""
    _, payload = project
    out = json.loads(_hook(loreline_home, "SessionStart", payload).stdout)
    assert set(out) == {"hookSpecificOutput"} and "pnpm" in out["hookSpecificOutput"]["additionalContext"]


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_session_start_tells_the_user_and_gives_the_model_nothing(loreline_home: Path, damage: str,
                                                                  project: tuple[Path, dict[str, Any]]) -> None:
    _, payload = project
    DAMAGE[damage](loreline_home / "loreline.db")
    out = json.loads(_hook(loreline_home, "SessionStart", payload).stdout)
    assert out == {"systemMessage": "Loreline: its memory store is damaged, so this session got no memories; "
                                    "run `loreline status` to see how to recover."}
    assert "\n" not in out["systemMessage"]
    prompt = _hook(loreline_home, "UserPromptSubmit", {**payload, "prompt": "Add lodash with pnpm"})
    assert prompt.stdout == b"", "nothing reaches the model's context"
    assert "SessionStart" in (loreline_home / "state" / "hook-errors.log").read_text(encoding="utf-8")


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_status_names_the_recovery(loreline_home: Path, damage: str, project: tuple[Path, dict[str, Any]]) -> None:
    folder, _ = project
    db = loreline_home / "loreline.db"
    DAMAGE[damage](db)
    done = _status(loreline_home, folder)
    assert done.returncode != 0 and done.stdout == ""
    lines = done.stderr.splitlines()
    assert lines[0].startswith(f"loreline: {db} is damaged") and "Traceback" not in done.stderr
    assert f"mv {db} {db}.damaged" in done.stderr
    assert "loreline import sessions --tool all" in done.stderr and "loreline import memories FILE" in done.stderr
    report = json.loads(_status(loreline_home, folder, "--json").stdout)
    assert str(db) in report["store_damaged"] and any("loreline import sessions" in s for s in report["recovery"])


def test_the_recovery_works_as_written(loreline_home: Path, project: tuple[Path, dict[str, Any]],
                                       tmp_path: Path) -> None:
    """Moving the file aside as `status` says gives a working, empty store, and the session
    import brings the memories back (the session file given by path here)."""
    folder, payload = project
    db = loreline_home / "loreline.db"
    _garbage_header(db)
    db.rename(db.with_name("loreline.db.damaged"))
    again = subprocess.run([loreline_exe(), "import", "sessions", "--path", payload["transcript_path"]],
                           capture_output=True, text=True, env=subprocess_env(loreline_home), timeout=180)
    assert again.returncode == 0, again.stderr
    assert _status(loreline_home, folder).returncode == 0
    out = json.loads(_hook(loreline_home, "SessionStart", payload).stdout)
    assert "pnpm" in out["hookSpecificOutput"]["additionalContext"]
