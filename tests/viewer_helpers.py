"""A running viewer (`python -m loreline_view`, a real process on loopback) over a world of the
editor suites, and raw HTTP to it."""

from __future__ import annotations

import http.client
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import subprocess_env
from tests.editor_helpers import World, make_world


@dataclass
class Running:
    proc: subprocess.Popen[str]
    port: int
    token: str

    @property
    def address(self) -> str:
        return f"http://127.0.0.1:{self.port}/?token={self.token}"

    def request(self, method: str, path: str, *, headers: dict[str, str] | None = None, body: str = "",
                host: str | None = None) -> tuple[int, dict[str, str], str]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        sent = {"Host": host or f"127.0.0.1:{self.port}", **(headers or {})}
        if body:
            sent.setdefault("Content-Type", "application/x-www-form-urlencoded")
        conn.request(method, path, body=body.encode() if body else None, headers=sent)
        answer = conn.getresponse()
        text = answer.read().decode("utf-8", errors="replace")
        found = {k.lower(): v for k, v in answer.getheaders()}
        conn.close()
        return answer.status, found, text

    def cookie(self) -> str:
        status, headers, _ = self.request("GET", f"/?token={self.token}")
        assert status == 303
        return headers["set-cookie"].split(";")[0]

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def start_viewer(home: Path, *extra: str, prefix: tuple[str, ...] = ()) -> Running:
    proc = subprocess.Popen([*prefix, sys.executable, "-m", "loreline_view", "--no-browser", *extra],
                            env=subprocess_env(home), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    deadline = time.monotonic() + 60
    line = ""
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        found = re.search(r"http://127\.0\.0\.1:(\d+)/\S*token=(\S+)", line)
        if found:
            running = Running(proc, int(found.group(1)), found.group(2))
            _wait_listening(running)
            return running
        if not line and proc.poll() is not None:
            break
    proc.kill()
    raise AssertionError(f"the viewer did not start: {line!r} {proc.stderr.read() if proc.stderr else ''}")


def _wait_listening(running: Running) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            running.request("GET", "/static/viewer.css")
            return
        except OSError:
            time.sleep(0.1)
    raise AssertionError("the viewer never answered")


@pytest.fixture
def world(tmp_path: Path, loreline_home: Path) -> World:
    """The editor suites' world: a git repository whose session was imported into the home."""
    return make_world(tmp_path, loreline_home)


@pytest.fixture
def viewer(world: World, loreline_home: Path) -> Iterator[Running]:
    """A running viewer over that world."""
    running = start_viewer(loreline_home)
    yield running
    running.stop()
