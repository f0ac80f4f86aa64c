"""The local viewer against a store of 10,000 memories in one project (the language server
bench's store): a real `python -m loreline_view` process on loopback, plain HTTP.

- first page: the project's memories page (filters, the first 200 memories), cookie in hand;
- recall as you type: the fragment the page asks for on each keystroke, a query per prefix of
  a few questions ("w", "wh", "whi", …), as the browser would send them.
"""

from __future__ import annotations

import http.client
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import quote

from . import lsp_bench
from .registry import Context, Row, median

QUESTIONS = ("which package manager", "how do we run migrations", "openssl on macos")


def _start(home: Path) -> tuple[subprocess.Popen[str], int, str]:
    proc = subprocess.Popen([sys.executable, "-m", "loreline_view", "--no-browser"], text=True,
                            env={**os.environ, "LORELINE_HOME": str(home)}, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    assert proc.stdout is not None
    found = re.search(r":(\d+)/\S*token=(\S+)", proc.stdout.readline())
    if not found:
        proc.kill()
        raise RuntimeError("the viewer did not start")
    return proc, int(found.group(1)), found.group(2)


def _get(port: int, path: str, cookie: str = "") -> tuple[float, int, dict[str, str]]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    began = time.perf_counter()
    conn.request("GET", path, headers={"Host": f"127.0.0.1:{port}", **({"Cookie": cookie} if cookie else {})})
    answer = conn.getresponse()
    answer.read()
    took = 1000 * (time.perf_counter() - began)
    headers = {k.lower(): v for k, v in answer.getheaders()}
    conn.close()
    return took, answer.status, headers


def _wait(port: int) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            _get(port, "/static/viewer.css")
            return
        except OSError:
            time.sleep(0.05)


def _run(home: Path, project: Path) -> tuple[float, list[float]]:
    proc, port, token = _start(home)
    try:
        _wait(port)
        _, status, headers = _get(port, f"/?token={token}")
        cookie = headers["set-cookie"].split(";")[0]
        first, status, _ = _get(port, f"/project?key={quote(str(project))}", cookie)
        assert status == 200, status
        keystrokes = []
        for question in QUESTIONS:
            for n in range(1, len(question) + 1):
                took, status, _ = _get(port, f"/recall?key={quote(str(project))}&q={quote(question[:n])}", cookie)
                assert status == 200, status
                keystrokes.append(took)
        return first, keystrokes
    finally:
        proc.terminate()
        proc.wait(10)


def viewer_timings(ctx: Context) -> list[Row]:
    home, project = lsp_bench.shared_store(ctx)
    with ctx.step("timing the viewer"):
        runs = [_run(home, project) for _ in range(ctx.runs)]
    first = median([r[0] for r in runs])
    keys = median([median(r[1]) for r in runs])
    worst = median([max(r[1]) for r in runs])
    return [
        Row("viewer: a project's first page (10,000 memories)", f"{first:.0f} ms", first, "ms", "≤ 300 ms",
            first <= 300, ctx.runs),
        Row("viewer: recall as you type, per keystroke", f"{keys:.1f} ms median, {worst:.0f} ms slowest", keys, "ms",
            "≤ 100 ms", keys <= 100, ctx.runs),
    ]
