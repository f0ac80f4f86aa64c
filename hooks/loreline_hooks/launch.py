"""Starting a detached drain worker from a hook, unless one already holds the worker lock.

The check is a non-blocking try of the same `flock` the worker's `filelock` takes; it is
only a shortcut. Two hooks may both see no worker and both start one: the second worker
finds the lock taken and exits quietly, so the race costs one short-lived process.
"""

from __future__ import annotations

import os
import sys

from loreline import capture


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


def start_worker() -> bool:
    """Start `loreline worker --drain` in its own session, detached from the hook's pipes."""
    if worker_running():
        return False
    import subprocess

    subprocess.Popen(
        [sys.executable, "-m", "loreline.cli.main", "worker", "--drain"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        close_fds=True, start_new_session=True,
    )
    return True
