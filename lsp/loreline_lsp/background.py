"""Work the server does on its own while an editor is open.

- `StoreWatcher` notices commits by any process (SQLite's `PRAGMA data_version` changes when
  another connection commits) and tells the client with `loreline/didChange`.
- `WorkerThread` drains the capture queue now and then; the worker's own file lock keeps it to
  one drainer across every process on the machine.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable

log = logging.getLogger(__name__)


class StoreWatcher:
    def __init__(self, version: Callable[[], int], interval: float, notify: Callable[[str], None]) -> None:
        self.version = version
        self.interval = interval
        self.notify = notify
        self._last = self._version()
        self._task: asyncio.Task[None] | None = None

    def _version(self) -> int:
        return self.version()

    def start(self) -> None:
        self._task = asyncio.get_event_loop().create_task(self._run())

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()

    def check(self) -> bool:
        """True (and a notification sent) when another connection committed since last time."""
        current = self._version()
        if current == self._last:
            return False
        self._last = current
        self.notify("store")
        return True

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            try:
                self.check()
            except Exception:  # the watcher must never take the server down
                log.exception("store watcher failed")


class WorkerThread:
    """Hosts the capture worker while the editor is open. `Worker.serve` holds the worker lock
    for as long as it runs; when another process holds it, this thread tries again later."""

    def __init__(self, interval: float, serve: Callable[[Callable[[], bool]], object]) -> None:
        self.interval = interval
        self.serve = serve
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="loreline-worker", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.serve(self._stop.is_set)
            except Exception:
                log.exception("background worker failed")
            self._stop.wait(self.interval)
