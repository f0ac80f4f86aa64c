"""Starting a detached drain worker from a hook, unless one already holds the worker lock.

The check is a non-blocking try of the same `flock` the worker's `filelock` takes; it is
only a shortcut. Two hooks may both see no worker and both start one: the second worker
finds the lock taken and exits quietly, so the race costs one short-lived process.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

from loreline import capture, home


def worker_running() -> bool:
    """True when a process holds the worker lock right now (False where flock is missing)."""
    try:
        import fcntl
    except ImportError:
        return False
    try:
        fd = os.open(capture.worker_lock_path(), os.O_RDWR)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)


#: the assistant's own credentials and endpoint: a hook runs with Claude Code's environment,
#: and background capture must never spend the assistant's key (or go through its gateway)
#: without the person asking; Loreline's key lives in the OS keyring (`loreline auth set`)
ASSISTANT_CREDENTIALS = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "OPENAI_API_KEY",
                         "GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GEMINI_BASE_URL")


def worker_env(environ: Mapping[str, str]) -> dict[str, str]:
    return {k: v for k, v in environ.items() if k not in ASSISTANT_CREDENTIALS}


def start_worker() -> bool:
    """Start `loreline worker --drain` in its own session, detached from the hook's pipes.

    `-P` and a working directory of Loreline's own keep the project the session runs in off
    `sys.path`: a `loreline/` or `json.py` in a repository must not run in the worker."""
    if worker_running():
        return False
    import subprocess

    subprocess.Popen(
        [sys.executable, "-P", "-m", "loreline.cli.main", "worker", "--drain"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        close_fds=True, start_new_session=True, cwd=home.ensure_private_dir(home.data_dir()),
        env=worker_env(os.environ),
    )
    return True
