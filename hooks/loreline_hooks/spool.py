"""Writing one spool file per event, the spool's size cap, and the hook's bounded error log.

Invariants:
- A spool file appears whole or not at all: it is written under a dot-prefixed temp name
  (which the worker ignores) and renamed into place. Files are 0600 in a 0700 folder.
- Past the size cap the event is dropped and one byte is appended to the drop counter file,
  so `loreline status` can say how many were lost; nothing is dropped silently.
- The error log (`loreline.capture.errorlog`, which the warm recall process writes too) holds
  one line per failure (exception class and OS reason, never the input) and is kept under
  ~64 KB by rotating to one `.1` file.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from loreline import capture, home

TYPE_CHECKING = False  # importing typing costs the hook milliseconds
if TYPE_CHECKING:
    from typing import Any


def write(record: dict[str, Any], settings: capture.Settings) -> Path | None:
    """Write `record` as a new spool file; None when the spool is over its cap."""
    folder = home.ensure_private_dir(home.spool_dir())
    if over_cap(folder, settings.spool_max_bytes):
        count_drop()
        return None
    # "replace": a lone surrogate in a message becomes "?" instead of losing the whole event
    data = json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "replace")
    name = capture.spool_name(time.time_ns(), os.getpid(), os.urandom(4).hex())
    tmp = folder / (capture.TMP_PREFIX + name)
    fd = home.open_private(tmp, os.O_WRONLY | os.O_EXCL)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)
    target = folder / name
    os.replace(tmp, target)
    return target


def over_cap(folder: Path, cap_bytes: int) -> bool:
    """Whether the spool holds `cap_bytes` or more; sizes are summed only when the file
    count alone could reach the cap (a record is at most MAX_RECORD_BYTES)."""
    names = os.listdir(folder)
    if len(names) * capture.MAX_RECORD_BYTES < cap_bytes:
        return False
    total = 0
    with os.scandir(folder) as entries:
        for entry in entries:
            try:
                total += entry.stat(follow_symlinks=False).st_size
            except OSError:
                continue
    return total >= cap_bytes


def count_drop() -> None:
    path = capture.dropped_counter_path()
    fd = home.open_private(path, os.O_WRONLY | os.O_APPEND)
    try:
        os.write(fd, b".")
    finally:
        os.close(fd)


def log_error(event: str, err: BaseException) -> None:
    """Append one line about `err` to the hook error log (`loreline.capture.errorlog`, imported
    only when there is an error to log); never raises."""
    try:
        from loreline.capture.errorlog import log_error as append
    except Exception:
        return
    append(event, err)
