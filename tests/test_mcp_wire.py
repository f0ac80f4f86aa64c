"""`loreline mcp` answers every line a client sends, however malformed, and keeps serving.

Raw bytes over the real process's stdio: the cases were written from JSON-RPC 2.0's error
rules before the transport was, and each must get its answer within a few seconds.
"""

from __future__ import annotations

import json
import queue
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.capture_helpers import import_into_store, remembered_session
from tests.conftest import loreline_exe, subprocess_env

INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "raw", "version": "1"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


class Wire:
    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        self.proc = proc
        self.lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)

    def send(self, raw: bytes | dict[str, Any]) -> None:
        data = raw if isinstance(raw, bytes) else json.dumps(raw).encode()
        assert self.proc.stdin is not None
        self.proc.stdin.write(data if data.endswith(b"\n") else data + b"\n")
        self.proc.stdin.flush()

    def answer(self, timeout: float = 10.0) -> dict[str, Any]:
        try:
            return dict(json.loads(self.lines.get(timeout=timeout)))
        except queue.Empty:
            raise AssertionError("no answer") from None


@pytest.fixture
def wire(tmp_path: Path, loreline_home: Path) -> Iterator[Wire]:
    folder = tmp_path / "shop"
    folder.mkdir()
    _, path = remembered_session(folder, tmp_path / "sessions")
    import_into_store(path)
    proc = subprocess.Popen([loreline_exe(), "mcp"], cwd=folder, env=subprocess_env(loreline_home),
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    w = Wire(proc)
    w.send(INIT)
    assert w.answer(30)["id"] == 0
    w.send(INITIALIZED)
    yield w
    proc.kill()
    proc.wait()


def _recall(request_id: int, query: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
            "params": {"name": "recall", "arguments": {"query": query}}}


MALFORMED: list[tuple[str, bytes, Any, int]] = [
    ("batch array", json.dumps([_recall(1, "pnpm"), _recall(2, "npm")]).encode(), None, -32600),
    ("request without a method", b'{"jsonrpc": "2.0", "id": 7}', 7, -32600),
    ("params as a string", b'{"jsonrpc": "2.0", "id": 8, "method": "tools/list", "params": "all"}', 8, -32602),
    ("params as an array", b'{"jsonrpc": "2.0", "id": "a", "method": "tools/list", "params": [1]}', "a", -32602),
    ("50k-deep nesting", b'{"jsonrpc": "2.0", "id": 9, "method": "x", "params": {"a": ' + b"[" * 50000
     + b"]" * 50000 + b"}}", None, -32700),
    ("not JSON", b"hello there", None, -32700),
    ("a bare number", b"42", None, -32600),
    ("wrong version", b'{"jsonrpc": "1.0", "id": 10, "method": "tools/list"}', 10, -32600),
    ("method not a string", b'{"jsonrpc": "2.0", "id": 11, "method": 5}', 11, -32600),
    ("an id that is an object", b'{"jsonrpc": "2.0", "id": {"x": 1}, "method": "tools/list"}', None, -32600),
]


@pytest.mark.parametrize("name,raw,expected_id,code", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_each_malformed_line_is_answered_and_the_server_keeps_serving(wire: Wire, name: str, raw: bytes,
                                                                       expected_id: Any, code: int) -> None:
    wire.send(raw)
    answer = wire.answer()
    assert answer["jsonrpc"] == "2.0" and answer["id"] == expected_id, answer
    assert answer["error"]["code"] == code and answer["error"]["message"], answer
    wire.send(_recall(100, "which package manager, pnpm or npm?"))
    after = wire.answer(30)
    assert after["id"] == 100 and "pnpm" in after["result"]["content"][0]["text"]


@pytest.mark.parametrize("tool,arguments", [
    ("recall", {"query": "pnpm \ud800 or npm"}),
    ("remember", {"text": "we deploy \udfff on fridays", "kind": "decision", "reason": "asked"}),
])
def test_lone_surrogates_in_arguments_still_get_an_answer(wire: Wire, tool: str, arguments: dict[str, str]) -> None:
    raw = json.dumps({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
                      "params": {"name": tool, "arguments": arguments}}).encode()
    assert b"\\ud800" in raw or b"\\udfff" in raw
    wire.send(raw)
    answer = wire.answer(30)
    assert answer["id"] == 5 and "result" in answer, answer
    assert not answer["result"].get("isError"), answer  # served, the surrogate read as U+FFFD


def test_an_over_long_line_is_refused_without_reading_it_whole(wire: Wire) -> None:
    wire.send(b'{"jsonrpc": "2.0", "id": 3, "method": "x", "params": {"q": "' + b"a" * (5 * 1024 * 1024) + b'"}}')
    answer = wire.answer(30)
    assert answer["error"]["code"] == -32600 and "too long" in answer["error"]["message"]
    wire.send({"jsonrpc": "2.0", "id": 4, "method": "tools/list"})
    assert wire.answer(30)["id"] == 4


def test_stray_output_of_the_process_never_reaches_the_wire(wire: Wire) -> None:
    """Everything on stdout parses as JSON-RPC: a burst of requests and errors interleaved."""
    for n in range(20):
        wire.send(_recall(200 + n, "pnpm") if n % 2 else b"{broken")
    answers = [wire.answer(30) for _ in range(20)]
    assert sorted(a["id"] for a in answers if a["id"] is not None) == [200 + n for n in range(1, 20, 2)]
    assert sum(1 for a in answers if a["id"] is None and a["error"]["code"] == -32700) == 10
