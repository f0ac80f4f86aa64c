"""Every file Loreline writes is 0600 and every folder it creates 0700, whatever the umask.

The real CLI, hook and worker run in subprocesses under a umask of 000 (where a plain
`open(..., "w")` makes a 0666 file) and touch everything they write: the config, the store
and its WAL, the spool, the capture-settings cache, the connect manifest, lock and backup,
the worker lock and the hook's error log. Then every path under the home is checked."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

from loreline.samples.builder import ClaudeSession, project_slug
from tests.capture_helpers import HOOK
from tests.conftest import loreline_exe, subprocess_env


def run(env: dict[str, str], *argv: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    result = subprocess.run(list(argv), input=stdin, capture_output=True, env=env, timeout=120, umask=0)
    assert result.returncode == 0, (argv, result.stderr)
    return result


def modes(root: Path) -> dict[str, str]:
    """Every path under `root` (and `root` itself) whose mode is not private."""
    wrong: dict[str, str] = {}
    for path in [root, *root.rglob("*")]:
        mode = stat.S_IMODE(path.lstat().st_mode)
        want = 0o700 if path.is_dir() else 0o600
        if mode != want:
            wrong[str(path.relative_to(root.parent))] = oct(mode)
    return wrong


def wait_for_worker(home: Path) -> None:
    """The hook starts a detached worker; wait until it has let go of the worker lock."""
    import fcntl

    lock = home / "worker.lock"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if lock.exists():
            fd = os.open(lock, os.O_RDONLY)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
            except OSError:
                pass
            finally:
                os.close(fd)
        time.sleep(0.1)
    raise AssertionError("the worker kept its lock for a minute")


def test_everything_loreline_writes_is_private_under_umask_000(tmp_path: Path) -> None:
    home = tmp_path / "made-by-loreline" / "nested" / "home"  # the parents are Loreline's to create too
    user = tmp_path / "user"
    settings = user / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text('{"model": "opus"}\n')
    work = tmp_path / "shop"
    work.mkdir()
    chat = ClaudeSession(str(work))
    chat.user("In this repo we use pnpm, never npm.")
    transcript = chat.write(user / ".claude" / "projects" / project_slug(chat.cwd) / f"{chat.session_id}.jsonl")
    os.utime(transcript, (time.time() - 3600, time.time() - 3600))
    env = subprocess_env(home, HOME=str(user))
    env.pop("CODEX_HOME", None)

    loreline = loreline_exe()
    run(env, loreline, "config", "set", "distill.backend", "rules")
    run(env, loreline, "import", "sessions")
    run(env, loreline, "connect", "claude-code")
    payload = {"session_id": chat.session_id, "transcript_path": str(transcript), "cwd": str(work),
               "hook_event_name": "SessionEnd", "reason": "exit"}
    run(env, str(HOOK), "SessionEnd", stdin=json.dumps(payload).encode())
    wait_for_worker(home)
    run(env, loreline, "worker", "--drain")
    run(env, loreline, "status")
    run(env, loreline, "config", "set", "distill.backend", "rules")

    names = {p.name for p in home.rglob("*")}
    for written in ("config.toml", "loreline.db", "worker.lock", "capture-settings.json", "connected.json",
                    "connect.lock", "spool", "state"):
        assert written in names, written
    assert modes(tmp_path / "made-by-loreline") == {}
    [backup] = home.rglob("backups/*")
    assert stat.S_IMODE(backup.stat().st_mode) == 0o600


def test_the_hook_error_log_is_private_under_umask_000(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    (home / "spool").write_text("a file where the spool folder should be")
    (home / "spool").chmod(0o600)
    env = subprocess_env(home)
    run(env, str(HOOK), "Stop", stdin=json.dumps({"session_id": "s", "hook_event_name": "Stop"}).encode())
    log = home / "state" / "hook-errors.log"
    assert log.read_text().count("\n") == 1
    assert modes(home) == {}


def test_a_store_opened_under_umask_000_has_private_wal_files(tmp_path: Path) -> None:
    """The WAL and its index exist only while the store is open: look at them then."""
    home = tmp_path / "home"
    script = ("import os, stat, sys\nfrom loreline.store import Store\n"
              "s = Store()\n"
              "with s.write():\n    s.set_meta('probe', '1')\n"
              "for suffix in ('', '-wal', '-shm'):\n"
              "    print(suffix, oct(stat.S_IMODE(os.stat(str(s.path) + suffix).st_mode)))\n")
    out = run(subprocess_env(home), sys.executable, "-c", script).stdout.decode()
    assert out.split("\n")[:3] == [" 0o600", "-wal 0o600", "-shm 0o600"]
    assert modes(home) == {}
