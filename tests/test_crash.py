"""Crash safety and concurrency of imports, with real processes on a real store.

An import is killed with SIGKILL at many points and re-run; the store must end exactly as
after an uninterrupted import. Two imports of overlapping sessions run at once; neither may
fail with a locked database, and nothing may be stored twice.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import apsw
import pytest
import sqlite_vec

from loreline.samples.builder import ClaudeSession
from tests.conftest import loreline_exe, subprocess_env

pytestmark = pytest.mark.crash

KILL_POINTS = 20


def make_sessions(root: Path, count: int = 48) -> list[Path]:
    paths = []
    for n in range(count):
        s = ClaudeSession(f"/work/project-{n % 3}", session_id=f"{n:08x}-0000-4000-8000-000000000000")
        for k in range(6):
            s.user(f"In this repo we use tool{k} for step {n % 4}, never the legacy one.")
            s.assistant("Noted. " + "Lots of output here. " * 200)
            s.user(f"The fix was to set FLAG_{k}=1 before running stage {n % 5}.")
            s.assistant("Done. " + "More output. " * 200)
        paths.append(s.write(root / f"s{n:02d}.jsonl"))
    return paths


def dump(db: Path) -> dict[str, object]:
    """Everything that must match, without ids or wall-clock times."""
    conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    conn.enable_load_extension(True)
    conn.load_extension(sqlite_vec.loadable_path())
    memories = sorted(conn.execute("SELECT project, kind, text, status, version FROM memories"))
    provenance = sorted(conn.execute(
        "SELECT m.text, p.session_path, p.line_start, p.line_end, p.excerpt FROM provenance p "
        "JOIN memories m ON m.id = p.memory_id"))
    ledger = sorted(conn.execute("SELECT session_path, line, offset, context_line, prefix_hash, size FROM ledger"))
    replays = sorted(conn.execute("SELECT replay_key FROM replays"))
    vectors = conn.execute("SELECT count(*) FROM memory_vec").fetchall()
    fts = conn.execute("SELECT count(*) FROM memory_fts").fetchall()
    audit = sorted(conn.execute("SELECT actor, action, count(*) FROM audit GROUP BY actor, action"))
    conn.close()
    return {"memories": memories, "provenance": provenance, "ledger": ledger, "replays": replays,
            "vectors": vectors, "fts": fts, "audit": audit}


def _committed_chunks(db: Path) -> int:
    """How far a killed import got: committed chunks, or -1 before the schema existed."""
    if not db.exists():
        return -1
    try:
        conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    except apsw.Error:
        return -1
    try:
        return int(conn.execute("SELECT count(*) FROM replays").fetchall()[0][0])
    except (apsw.SQLError, apsw.BusyError, apsw.CantOpenError):
        return -1  # the schema is not there yet, or being written
    finally:
        conn.close()


def import_cmd(paths: list[Path]) -> list[str]:
    return [loreline_exe(), "import", "sessions", "--path", *map(str, paths)]


def test_sigkill_at_many_points_then_rerun_equals_an_uninterrupted_import(tmp_path: Path) -> None:
    paths = make_sessions(tmp_path / "sessions")
    baseline_home = tmp_path / "baseline"
    subprocess.run(import_cmd(paths), env=subprocess_env(baseline_home), check=True, capture_output=True)
    expected = dump(baseline_home / "loreline.db")
    assert len(expected["memories"]) > 40  # type: ignore[arg-type]
    total = len(expected["replays"])  # type: ignore[arg-type]

    partial_sizes = set()
    for point in range(KILL_POINTS):
        home = tmp_path / f"run{point}"
        proc = subprocess.Popen(import_cmd(paths), env=subprocess_env(home), stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        # spread the kills over the import by its progress, not by the clock (a loaded machine
        # would bunch them up): before the store exists, then after a growing share of chunks
        _wait_for_progress(proc, home / "loreline.db", -1 if point == 0 else total * point // KILL_POINTS)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        partial_sizes.add(_committed_chunks(home / "loreline.db"))
        rerun = subprocess.run(import_cmd(paths), env=subprocess_env(home), capture_output=True, text=True)
        assert rerun.returncode == 0, rerun.stderr
        assert dump(home / "loreline.db") == expected, f"kill point {point} left a different store"
    assert len(partial_sizes) >= 5, f"kills landed at too few distinct points: {sorted(partial_sizes)}"


def _wait_for_progress(proc: subprocess.Popen[bytes], db: Path, chunks: int, timeout: float = 120.0) -> None:
    """Return as soon as the import has committed at least `chunks` chunks (-1: right away)."""
    deadline = time.monotonic() + timeout
    while chunks >= 0 and proc.poll() is None and time.monotonic() < deadline:
        if _committed_chunks(db) >= chunks:
            return
        time.sleep(0.002)


def test_two_overlapping_imports_at_once_store_nothing_twice(tmp_path: Path) -> None:
    paths = make_sessions(tmp_path / "sessions", count=16)
    home = tmp_path / "home"
    first, second = paths[:12], paths[4:]
    procs = [subprocess.Popen(import_cmd(part), env=subprocess_env(home), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for part in (first, second)]
    results = [(p.wait(timeout=300), p.stdout.read(), p.stderr.read()) for p in procs]  # type: ignore[union-attr]
    for code, _, err in results:
        assert code == 0 and "locked" not in err.lower(), err
    sequential = tmp_path / "sequential"
    subprocess.run(import_cmd(paths), env=subprocess_env(sequential), check=True, capture_output=True)
    together, alone = dump(home / "loreline.db"), dump(sequential / "loreline.db")
    assert together["memories"] == alone["memories"]
    assert together["provenance"] == alone["provenance"]
    assert together["ledger"] == alone["ledger"]
    conn = apsw.Connection(str(home / "loreline.db"))
    dupes = conn.execute("SELECT project, content_hash, count(*) FROM memories GROUP BY project, content_hash "
                         "HAVING count(*) > 1").fetchall()
    assert dupes == []
    assert os.path.exists(home / "loreline.db")


OPEN_AT = """
import sys, time
from pathlib import Path
start = float(sys.argv[2])
while time.time() < start:
    pass
from loreline.store import Store
Store(Path(sys.argv[1])).close()
"""


def test_many_processes_opening_a_new_store_at_once_all_succeed(tmp_path: Path) -> None:
    """Sixteen processes create one store at the same instant, eight times over: switching a
    new file to WAL must not fail any of them with 'locked'."""
    import sys

    for attempt in range(8):
        db = tmp_path / f"fresh{attempt}" / "loreline.db"
        db.parent.mkdir()
        start = time.time() + 0.8
        procs = [subprocess.Popen([sys.executable, "-c", OPEN_AT, str(db), str(start)], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, text=True) for _ in range(16)]
        errors = [p.communicate(timeout=120)[1] for p in procs]
        assert [e for e in errors if e.strip()] == []
