"""The warm recall process under load: a burst of 64 clients at once is answered in full, and a
client that connects and says nothing never delays another (real process, real Unix socket)."""

from __future__ import annotations

import json
import socket
import subprocess
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from loreline import __version__
from loreline.api import project_of
from loreline_hooks import warm
from tests.capture_helpers import wait_for
from tests.test_warm_recall import BY_MEANING, PNPM, _start, project  # noqa: F401 - a fixture

pytestmark = pytest.mark.slow


@pytest.fixture
def server(loreline_home: Path, project: tuple[Path, dict[str, Any]]) -> Iterator[subprocess.Popen[bytes]]:  # noqa: F811
    proc = _start(loreline_home)
    wait_for(warm.listening, 60, "the warm process to listen")
    yield proc
    proc.kill()
    proc.wait()


def _question(project_key: str, n: int) -> bytes:
    return json.dumps({"v": 1, "loreline": __version__, "project": project_key, "prompt": f"{BY_MEANING} ({n})",
                       "limit": 3}).encode() + b"\n"


def _ask(request: bytes, timeout: float = 30) -> dict[str, Any]:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
        client.settimeout(timeout)
        client.connect(warm.socket_path())
        client.sendall(request)
        data = b""
        while not data.endswith(b"\n") and (chunk := client.recv(65536)):
            data += chunk
    return dict(json.loads(data))


def test_a_burst_of_64_clients_is_answered_in_full(server: subprocess.Popen[bytes],
                                                   project: tuple[Path, dict[str, Any]]) -> None:  # noqa: F811
    key = project_of(project[1]["cwd"])
    with ThreadPoolExecutor(max_workers=64) as pool:
        answers = list(pool.map(lambda n: _ask(_question(key, n)), range(64)))
    assert len(answers) == 64 and all(a["ok"] and a["meaning"] for a in answers), answers[:3]
    assert all(any(note[2] == PNPM for note in a["notes"]) for a in answers)


def test_a_silent_client_never_delays_another(server: subprocess.Popen[bytes],
                                              project: tuple[Path, dict[str, Any]]) -> None:  # noqa: F811
    key = project_of(project[1]["cwd"])
    _ask(_question(key, 0))  # warm
    silent = [socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) for _ in range(4)]
    try:
        for s in silent:
            s.connect(warm.socket_path())  # and say nothing
        started = time.monotonic()
        answer = _ask(_question(key, 1))
        elapsed = time.monotonic() - started
    finally:
        for s in silent:
            s.close()
    assert answer["ok"] and any(note[2] == PNPM for note in answer["notes"])
    # the process reads for up to 2 s before giving up on a silent client; serially, four of
    # them would hold this question for 8 s
    assert elapsed < 4.0, elapsed
