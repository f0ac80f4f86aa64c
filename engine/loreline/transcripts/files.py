"""Why a path cannot be read as a transcript: one short reason, or None when it can.

A session folder can hold anything a file system can: dangling symbolic links (a session
moved or deleted behind a link), link loops, named pipes, sockets, devices, directories whose
names end in `.jsonl`, files another user owns. Each is that one file's failure, with its
reason; nothing here raises. Checks are by `stat` (which follows links) and `access` only:
no file is opened, so a named pipe never blocks.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

_KINDS = (
    (stat.S_ISDIR, "a directory, not a transcript file"),
    (stat.S_ISFIFO, "a named pipe (FIFO), not a transcript file"),
    (stat.S_ISSOCK, "a socket, not a transcript file"),
    (stat.S_ISCHR, "a device, not a transcript file"),
    (stat.S_ISBLK, "a device, not a transcript file"),
)


def unreadable(path: Path) -> str | None:
    """The reason `path` cannot be read as a transcript file; None when it is a readable file."""
    try:
        mode = os.stat(path).st_mode
    except OSError as err:
        return _stat_failure(path, err)
    if not stat.S_ISREG(mode):
        return _kind(mode)
    if not os.access(path, os.R_OK):
        return "permission denied"
    return None


def not_a_file(path: Path) -> str | None:
    """What `path` is when it exists but is no regular file (opening a named pipe would wait
    for a writer forever); None otherwise, including when it does not exist."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    return None if stat.S_ISREG(mode) else _kind(mode)


def _kind(mode: int) -> str:
    return next((reason for test, reason in _KINDS if test(mode)), "not a regular file")


def _stat_failure(path: Path, err: OSError) -> str:
    if err.errno == errno.ELOOP:
        return "a symbolic link loop"
    if err.errno == errno.ENOENT:
        return _dangling(path) or "no such file"
    if err.errno == errno.EACCES:
        return "permission denied"
    return f"cannot read: {err.strerror or err}"


def _dangling(path: Path) -> str | None:
    try:
        target = os.readlink(path)
    except OSError:
        return None  # not a link itself (a folder on the way is missing)
    return f"a dangling symbolic link (its target {target} does not exist)"
