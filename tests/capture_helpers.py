"""Helpers for the capture tests: run the installed hook, read the spool, hold the worker lock."""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from filelock import FileLock

from loreline import pipeline
from loreline.distill.rules import RulesDistiller
from loreline.samples.builder import ClaudeSession
from loreline.store import Store
from tests.conftest import FIXTURES, VENV_BIN, loreline_exe, subprocess_env

HOOK = VENV_BIN / "loreline-hook"
HOOK_PAYLOADS = FIXTURES / "hooks"
RULES_CONFIG = '[distill]\nbackend = "rules"\n'


def payloads(name: str) -> list[dict[str, Any]]:
    lines = (HOOK_PAYLOADS / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def hook_env(home: Path, **extra: str) -> dict[str, str]:
    """The environment of a hook Claude Code starts: no API key, this test's Loreline home."""
    return subprocess_env(home, **extra)


def run_hook(home: Path, *args: str, stdin: bytes | str | dict[str, Any] | None = None,
             env: dict[str, str] | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    data = json.dumps(stdin).encode() if isinstance(stdin, dict) else stdin.encode() if isinstance(stdin, str) else stdin
    return subprocess.run([str(HOOK), *args], input=data if data is not None else b"", capture_output=True,
                          env=env or hook_env(home), cwd=cwd, timeout=60)


def start_hook(home: Path, *args: str, stdin: dict[str, Any], env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen([str(HOOK), *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env or hook_env(home))
    assert proc.stdin is not None
    proc.stdin.write(json.dumps(stdin).encode())
    proc.stdin.close()
    return proc


def spool_files(home: Path) -> list[Path]:
    folder = home / "spool"
    return sorted(p for p in folder.iterdir() if not p.name.startswith(".")) if folder.is_dir() else []


def spool_records(home: Path) -> list[dict[str, Any]]:
    return [json.loads(p.read_text(encoding="utf-8")) for p in spool_files(home)]


@contextmanager
def worker_lock_held(home: Path) -> Iterator[None]:
    """Hold the worker lock so hooks see a worker running and start none."""
    home.mkdir(parents=True, exist_ok=True, mode=0o700)
    lock = FileLock(str(home / "worker.lock"))
    with lock:
        yield


def write_config(home: Path, text: str) -> Path:
    home.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = home / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


def import_into_store(*paths: Path) -> None:
    """A real import (rules distiller) into the store at $LORELINE_HOME."""
    with Store() as store:
        report = pipeline.import_sessions(store, [(p, None) for p in paths], pipeline.Options(RulesDistiller()))
    assert not report.failed, report.failed


#: what the everyday-questions stories have a person say (one session)
UV = "We use uv for Python packages, never pip."
TESTS = "To run the tests, use `uv run pytest -q` from the repo root."
DEPLOY = "We decided to deploy the web app to Fly.io from the main branch."
SQLITE = "We decided to keep SQLite because the app runs on laptops."


def everyday_session(cwd: Path, sessions_dir: Path) -> tuple[ClaudeSession, Path]:
    """A Claude Code session in `cwd` stating the package manager, the test command, where the web
    app deploys, why SQLite stays and a linter rule, imported for real (rules distiller)."""
    session = ClaudeSession(cwd=str(cwd))
    for said in (UV, TESTS, DEPLOY, SQLITE, "Always run the linter before committing."):
        session.user(said)
        session.assistant("Noted.")
    path = session.write(sessions_dir / f"{session.session_id}.jsonl")
    import_into_store(path)
    return session, path


def remembered_session(cwd: Path, sessions_dir: Path) -> tuple[ClaudeSession, Path]:
    """A Claude Code session stating two preferences, a decision and a fact."""
    session = ClaudeSession(cwd=str(cwd))
    session.user("In this repo we use pnpm, never npm.")
    session.assistant("Understood: pnpm it is.")
    session.user("We decided to keep SQLite because the app runs on laptops.")
    session.assistant("Noted, SQLite stays.")
    session.user("The fix was to pin node to 20 in .nvmrc.")
    session.assistant("Pinned.")
    session.user("Always run the linter before committing.")
    session.assistant("Will do.")
    return session, session.write(sessions_dir / f"{session.session_id}.jsonl")


def remembered_project(root: Path) -> tuple[Path, dict[str, Any]]:
    """A project folder under `root` whose store (at $LORELINE_HOME) holds two preferences, a
    decision and a fact, imported for real; and a UserPromptSubmit payload of its session."""
    folder = root / "proj"
    folder.mkdir()
    session, path = remembered_session(folder, root / "sessions")
    import_into_store(path)
    return folder, event("UserPromptSubmit", session, path)


def event(name: str, session: ClaudeSession, path: Path, **extra: Any) -> dict[str, Any]:
    """A hook payload in Claude Code 2.1's shape."""
    payload: dict[str, Any] = {"session_id": session.session_id, "transcript_path": str(path),
                               "cwd": session.cwd, "permission_mode": "default", "hook_event_name": name}
    payload.update(extra)
    return payload


def run_worker(home: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([loreline_exe(), "worker", *args], capture_output=True, text=True,
                          env=env or hook_env(home), timeout=180)


def wait_for(check: Callable[[], bool], timeout: float = 30.0, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def db_rows(home: Path, sql: str, params: tuple[Any, ...] = (), *, early: bool = False) -> list[tuple[Any, ...]]:
    """Read the store with the standard library (read-only), as an outside observer.

    With `early`, a store another process is still creating reads as empty."""
    import sqlite3

    db = home / "loreline.db"
    if not db.exists():
        return []
    conn = sqlite3.connect(db.as_uri() + "?mode=ro", uri=True, timeout=5)
    try:
        return conn.execute(sql, params).fetchall()
    except sqlite3.OperationalError:
        if early:
            return []
        raise
    finally:
        conn.close()
