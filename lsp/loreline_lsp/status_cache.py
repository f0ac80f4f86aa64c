"""`loreline/status` without repeating slow work: editors ask on every active-editor change.

The engine's status reads the store, the capture spool, Loreline's config, the Claude Code and
Codex configs, and looks the API key up (the OS keyring, over D-Bus on Linux). None of that can
change without one of those files changing, so the answer is kept, keyed by the identity (size,
mtime, inode) of every file it depends on, the UTC day (today's model use) and a generation
that `loreline/setApiKey` bumps. A key stored by another process shows up at the next change
of any of those files (an import, a capture, a config edit) or a restart of the server.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

from loreline.api import StatusFacts
from loreline_lsp import service

Stamp = tuple[object, ...]


class StatusCache:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._generation = 0
        self._stamp: Stamp | None = None
        self._value: StatusFacts | None = None
        self._watched: list[Path] | None = None
        self.computed = 0

    def forget(self) -> None:
        """The key (or anything not visible in a file) changed: compute afresh next time."""
        with self._lock:
            self._generation += 1

    def get(self, svc: service.Service) -> StatusFacts:
        """The engine's status, recomputed only when something it reads changed. Runs off
        the event loop; concurrent callers wait for one computation instead of repeating it."""
        with self._lock:
            stamp = (self._generation, time.strftime("%Y-%m-%d", time.gmtime()), *self._identities(svc))
            if stamp != self._stamp or self._value is None:
                self._value = svc.status_facts()
                self._stamp = stamp
                self.computed += 1
            return self._value  # frozen: callers share it

    def _identities(self, svc: service.Service) -> list[object]:
        if self._watched is None:
            self._watched = svc.status_inputs()
        return [_identity(path) for path in self._watched]


def _identity(path: Path) -> object:
    try:
        st = path.stat()
    except OSError as err:
        return err.errno
    return (st.st_size, st.st_mtime_ns, st.st_ino)
