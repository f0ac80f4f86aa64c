"""Store reads off the event loop: a few threads, each with its own store connection.

SQLite (WAL) lets connections read side by side and apsw releases the GIL while a statement
runs, so a slow recall or status never holds up a hover, and the event loop keeps reading
messages (cancellations included) whatever the store is doing.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from loreline_lsp import service

log = logging.getLogger(__name__)
T = TypeVar("T")
THREADS = 4


class Readers:
    def __init__(self, threads: int = THREADS, name: str = "loreline-read") -> None:
        self._pool = ThreadPoolExecutor(threads, thread_name_prefix=name)
        self._local = threading.local()
        self._opened: list[service.Service] = []
        self._lock = threading.Lock()

    async def run(self, work: Callable[[service.Service], T]) -> T:
        """`work` with this thread's service, on a reader thread."""
        return await asyncio.get_running_loop().run_in_executor(self._pool, self._call, work)

    def _call(self, work: Callable[[service.Service], T]) -> T:
        svc: service.Service | None = getattr(self._local, "service", None)
        if svc is None:
            svc = service.Service.open()  # a damaged store fails here, and is tried again next time
            with self._lock:
                self._opened.append(svc)
            self._local.service = svc
        return work(svc)

    def close(self) -> None:
        """Stop taking work; a read still running (a keyring that never answers) is not waited
        for, and its connection is left to the process's exit."""
        self._pool.shutdown(wait=False, cancel_futures=True)
        with self._lock:
            for svc in self._opened:
                try:
                    svc.close()
                except Exception:  # in use by a read that is still running
                    log.warning("a store connection was still in use at shutdown")
            self._opened.clear()
