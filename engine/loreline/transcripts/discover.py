"""Finding session files on disk, newest first, with every left-out file accounted for.

Which tools exist, where each keeps its home and which files are its sessions is the
assistants' knowledge: each assistant's `find_sessions` (in `assistants/<name>/discovery.py`)
lists its files with `found_file` and reports folders it cannot list with `unlistable`; the
registry (`loreline.assistants.registry.discover_all`) gathers them across assistants and this
module applies the window (`apply_window`).

Every tool goes through the same window: a file modified in the last few minutes is
probably still being written and waits for the next run; files outside `--days` or beyond
the `--sessions` cap (newest first, across all tools asked for) are left out, with the
reason. Nothing is dropped silently. A file named like a session that cannot be read (a
dangling or looping symbolic link, a named pipe, a socket, a folder, a file without read
permission) is dated by the link or entry itself and handed on like any other: the import
reports it as that one file's failure (`files.unreadable` gives the reason) and the rest
import. A folder that cannot be listed is left out with its reason.
"""

from __future__ import annotations

import errno
import os
import re
import time
from collections.abc import Callable, Mapping
from pathlib import Path

from ..names import DEFAULT_DAYS, DEFAULT_SESSIONS
from ..records import field, record

SESSION_NAME = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.jsonl$", re.I)
SETTLE_SECONDS = 300
SUBAGENT = "subagent sidecar, not a session"
OWN_RUN = "Loreline's own distillation run (claude-code backend), not a session"


@record
class Found:
    path: Path
    tool: str
    mtime: float
    size: int


@record(frozen=False)
class Discovery:
    sessions: list[Found] = field(default_factory=list)
    left_out: list[tuple[str, str]] = field(default_factory=list)

    def in_import_order(self) -> list[tuple[Path, str | None]]:
        """Oldest first, so a later session's words are applied after an earlier one's."""
        return [(f.path, f.tool) for f in sorted(self.sessions, key=lambda f: f.mtime)]


@record
class Window:
    """Which discovered sessions are taken: age, count, and how long a file must be still."""

    days: float = DEFAULT_DAYS
    max_sessions: int = DEFAULT_SESSIONS
    now: float | None = None
    settle_seconds: float = SETTLE_SECONDS


def unlistable(root: Path, result: Discovery, depth: int = 8) -> None:
    """Report each folder under `root` (down to `depth` levels) that cannot be listed: glob
    skips those silently, and the sessions inside would be missed without a word."""
    def report(err: OSError) -> None:
        if err.errno != errno.ENOENT:
            result.left_out.append((str(err.filename), f"cannot list this folder: {err.strerror or err}"))

    for top, folders, _ in os.walk(root, onerror=report):
        if len(Path(top).relative_to(root).parts) >= depth:
            folders.clear()


def found_file(path: Path, tool: str) -> Found:
    """A candidate with its date. A file that cannot be read (a dangling link, a loop, a pipe,
    a folder named like a session) keeps its own date and goes on to the import, which
    reports it as that one file's failure, with the reason."""
    try:
        stat = path.stat()
    except OSError:
        try:
            stat = path.lstat()
        except OSError:  # gone since the folder was listed: dated now, so it waits for the next run
            return Found(path, tool, time.time(), 0)
    return Found(path, tool, stat.st_mtime, stat.st_size)


def apply_window(candidates: list[Found], result: Discovery, window: Window,
                 finished: Mapping[str, Callable[[Found, float, float], bool]]) -> None:
    """Keep the newest sessions inside the window; account for the rest. `finished` says, by
    tool, whether a session is done (each assistant's own rule)."""
    now = time.time() if window.now is None else window.now
    oldest = now - window.days * 86_400
    ready: list[Found] = []
    for found in sorted(candidates, key=lambda f: f.mtime, reverse=True):
        if found.mtime < oldest:
            result.left_out.append((str(found.path), f"older than {window.days:g} days (--days)"))
        elif not finished[found.tool](found, now, window.settle_seconds):
            result.left_out.append((str(found.path), "modified in the last 5 minutes; still being written, next run"))
        else:
            ready.append(found)
    result.sessions = ready[:window.max_sessions]
    for found in ready[window.max_sessions:]:
        result.left_out.append((str(found.path), f"beyond the cap of {window.max_sessions} sessions (--sessions)"))
