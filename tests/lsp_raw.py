"""A raw JSON-RPC client for the real language server over stdio: it sends any bytes (broken
JSON, wrong ids, lone surrogates) and records every message the server writes, answering the
server's own requests (`window/workDoneProgress/create` …) with `null` as an editor would."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO, Any

ERROR_CODES = {"ParseError": -32700, "InvalidRequest": -32600, "MethodNotFound": -32601, "InvalidParams": -32602,
               "InternalError": -32603, "ServerNotInitialized": -32002, "RequestFailed": -32803,
               "RequestCancelled": -32800}


def frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class RawServer:
    def __init__(self, env: dict[str, str], log: Path) -> None:
        self._log = log.open("wb")
        self.proc = subprocess.Popen([sys.executable, "-m", "loreline_lsp"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self._log, env=env)
        self.received: list[dict[str, Any]] = []
        self._changed = threading.Condition()
        self._write_lock = threading.Lock()
        self._next = 0
        self._reader = threading.Thread(target=self._read_all, daemon=True)
        self._reader.start()

    # -- sending ---------------------------------------------------------------------------

    def send_bytes(self, body: bytes) -> None:
        stdin: IO[bytes] = self.proc.stdin  # type: ignore[assignment]
        with self._write_lock:
            stdin.write(frame(body))
            stdin.flush()

    def send_unframed(self, data: bytes) -> None:
        """Bytes exactly as given: a wrong or missing header, junk, half a message."""
        stdin: IO[bytes] = self.proc.stdin  # type: ignore[assignment]
        with self._write_lock:
            stdin.write(data)
            stdin.flush()

    def send(self, message: Any) -> None:
        self.send_bytes(json.dumps(message).encode())

    def new_id(self) -> int:
        self._next += 1
        return self._next

    def notify(self, method: str, params: Any = None) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def call(self, method: str, params: Any = None, timeout: float = 20) -> dict[str, Any]:
        """The whole response (`result` or `error`) to a request with a fresh id."""
        msg_id = self.new_id()
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": msg_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return self.response(msg_id, timeout)

    def initialize(self, root: Path, options: dict[str, Any] | None = None) -> dict[str, Any]:
        answer = self.call("initialize", {"processId": os.getpid(), "rootUri": root.as_uri(), "capabilities": {},
                                          "initializationOptions": {"backgroundWorker": False, **(options or {})}})
        self.notify("initialized", {})
        return answer

    # -- receiving -------------------------------------------------------------------------

    def responses(self, msg_id: Any) -> list[dict[str, Any]]:
        with self._changed:
            return [m for m in self.received if "method" not in m and m.get("id") == msg_id]

    def response(self, msg_id: Any, timeout: float = 20) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                found = [m for m in self.received if "method" not in m and m.get("id") == msg_id]
                if found:
                    return found[0]
                left = deadline - time.monotonic()
                if left <= 0 or self.proc.poll() is not None:
                    raise AssertionError(f"no answer to request {msg_id!r} (server {'exited' if self.proc.poll() is not None else 'silent'})")
                self._changed.wait(left)

    def _read_all(self) -> None:
        stdout: IO[bytes] = self.proc.stdout  # type: ignore[assignment]
        while True:
            length = 0
            while True:
                line = stdout.readline()
                if not line:
                    with self._changed:
                        self._changed.notify_all()
                    return
                if line in (b"\r\n", b"\n"):
                    break
                name, _, value = line.decode("ascii").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            message = json.loads(stdout.read(length))
            if "method" in message and "id" in message:
                self.send({"jsonrpc": "2.0", "id": message["id"], "result": None})
            with self._changed:
                self.received.append(message)
                self._changed.notify_all()

    def close(self) -> int:
        """Shut down politely when possible; the exit code."""
        if self.proc.poll() is None:
            try:
                self.call("shutdown", timeout=10)
                self.notify("exit")
                self.proc.wait(timeout=10)
            except (AssertionError, OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
        self._log.close()
        return self.proc.returncode


def error_of(answer: dict[str, Any]) -> dict[str, Any]:
    assert "error" in answer, f"expected an error, got {str(answer)[:300]}"
    error: dict[str, Any] = answer["error"]
    return error


def assert_one_line_error(answer: dict[str, Any], code: str) -> str:
    """The error's message, after checking its code, that it is one line and has no traceback."""
    error = error_of(answer)
    assert error["code"] == ERROR_CODES[code], error
    assert "data" not in error or error["data"] is None, error
    message: str = error["message"]
    assert "\n" not in message and "Traceback" not in message and 0 < len(message) <= 300, message
    return message
