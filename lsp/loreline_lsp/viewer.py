"""The local viewer for an editor: the language server starts `python -m loreline_view` once
(on loopback, for the same Loreline home), keeps it for its own lifetime, and gives the client
the address of a memory's page to open in the browser ("Open in the viewer")."""

from __future__ import annotations

import re
import subprocess
import sys
import threading
from urllib.parse import urlsplit, urlunsplit

from loreline.errors import LorelineError

_ADDRESS = re.compile(r"(http://127\.0\.0\.1:\d+)/\S*\?token=(\S+)")
START_SECONDS = 30.0


class ViewerProcess:
    def __init__(self) -> None:
        self._proc: subprocess.Popen[str] | None = None
        self._base = ""
        self._token = ""
        self._lock = threading.Lock()

    def page(self, path: str) -> str:
        """The address of one of the viewer's pages, with this run's token."""
        with self._lock:
            if self._proc is None or self._proc.poll() is not None:
                self._start()
        scheme, netloc, _, _, _ = urlsplit(self._base)
        return urlunsplit((scheme, netloc, path, f"token={self._token}", ""))

    def _start(self) -> None:
        # -P: a `loreline_view/` in the editor's folder must never run as the viewer
        proc = subprocess.Popen([sys.executable, "-P", "-m", "loreline_view", "--no-browser"], text=True,
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                start_new_session=True)
        line = _first_line(proc)
        found = _ADDRESS.search(line)
        if not found:
            proc.kill()
            raise LorelineError("the viewer did not start: " + (line.strip() or "no address printed"))
        self._proc, self._base, self._token = proc, found.group(1), found.group(2)

    def stop(self) -> None:
        with self._lock:
            if self._proc is not None and self._proc.poll() is None:
                self._proc.terminate()
                try:
                    self._proc.wait(5)
                except subprocess.TimeoutExpired:
                    self._proc.kill()
            self._proc = None


def _first_line(proc: subprocess.Popen[str]) -> str:
    """The viewer's first line (its address), waited for at most START_SECONDS."""
    got: list[str] = []
    reader = threading.Thread(target=lambda: got.append(proc.stdout.readline() if proc.stdout else ""), daemon=True)
    reader.start()
    reader.join(START_SECONDS)
    return got[0] if got else ""
