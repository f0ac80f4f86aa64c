"""A fake Anthropic Messages API: a real HTTP server on 127.0.0.1 for the real SDK to talk to.

It speaks `POST /v1/messages` (non-streaming), answers from a queue of scripted replies
(any tool name, any input; error statuses with their headers; slow answers that trip a
client timeout), and records every request so tests can assert on what was sent. When
the queue is empty it answers with `default` (by default: a 400 saying nothing was
scripted, so a test that makes an unplanned call fails loudly).

Usage in a test module:

    from tests.fake_anthropic import FakeAnthropic, fake_anthropic  # noqa: F401  (fixture)

    def test_x(fake_anthropic: FakeAnthropic) -> None:
        fake_anthropic.enqueue(FakeAnthropic.tool("record_memories", {"memories": []}))
        ... point the client at fake_anthropic.url (ANTHROPIC_BASE_URL) ...
        assert fake_anthropic.requests[0].body["tool_choice"] == {...}
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

_ids = itertools.count(1)


@dataclass(frozen=True)
class Reply:
    status: int = 200
    body: dict[str, Any] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    #: seconds to wait before answering (longer than the client's timeout → a timeout)
    delay: float = 0.0


@dataclass(frozen=True)
class Recorded:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    raw: bytes

    @property
    def api_key(self) -> str | None:
        """The key the client sent (`x-api-key`, or a Bearer token as newer SDKs send it)."""
        if "x-api-key" in self.headers:
            return self.headers["x-api-key"]
        auth = self.headers.get("authorization", "")
        return auth[len("Bearer "):] if auth.startswith("Bearer ") else None

    @property
    def system_text(self) -> str:
        system = self.body.get("system")
        if isinstance(system, str):
            return system
        return "".join(block.get("text", "") for block in system or [])

    @property
    def user_text(self) -> str:
        parts: list[str] = []
        for message in self.body.get("messages", []):
            content = message.get("content")
            if isinstance(content, str):
                parts.append(content)
            else:
                parts.extend(block.get("text", "") for block in content or [])
        return "\n".join(parts)


Responder = Callable[[Recorded], Reply]


class FakeAnthropic:
    def __init__(self) -> None:
        self.requests: list[Recorded] = []
        self.default: Reply | Responder = self.error(400, "invalid_request_error", "fake server: no reply scripted")
        self._queue: deque[Reply | Responder] = deque()
        self._warm: set[str] = set()
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="fake-anthropic", daemon=True)

    # -- life cycle -------------------------------------------------------------------------
    def start(self) -> FakeAnthropic:
        self._thread.start()
        return self

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    # -- scripting --------------------------------------------------------------------------
    def enqueue(self, *replies: Reply | Responder) -> None:
        with self._lock:
            self._queue.extend(replies)

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._queue)

    @staticmethod
    def tool(name: str, tool_input: dict[str, Any], *, delay: float = 0.0) -> Reply:
        """A forced-tool answer. Its usage is filled in from the request: chars/4 tokens, with
        the system block written to the cache on first sight and read from it afterwards."""
        content = [{"type": "tool_use", "id": f"toolu_fake{next(_ids)}", "name": name, "input": tool_input}]
        return Reply(body=FakeAnthropic.message("claude-fake", content, None), delay=delay)

    @staticmethod
    def text(text: str) -> Reply:
        """An answer with prose instead of the forced tool (a contract violation)."""
        return Reply(body=FakeAnthropic.message("claude-fake", [{"type": "text", "text": text}],
                                                {"input_tokens": 10, "output_tokens": 5}, stop_reason="end_turn"))

    @staticmethod
    def message(model: str, content: list[dict[str, Any]], usage: dict[str, int] | None,
                stop_reason: str = "tool_use") -> dict[str, Any]:
        return {"id": f"msg_fake{next(_ids)}", "type": "message", "role": "assistant", "model": model,
                "content": content, "stop_reason": stop_reason, "stop_sequence": None, "usage": usage}

    @staticmethod
    def error(status: int, kind: str, message: str = "scripted error", headers: dict[str, str] | None = None,
              delay: float = 0.0) -> Reply:
        body = {"type": "error", "error": {"type": kind, "message": message}}
        return Reply(status, body, headers or {}, delay)

    @classmethod
    def rate_limited(cls, retry_after: str | None = None) -> Reply:
        return cls.error(429, "rate_limit_error", "rate limited", {"retry-after": retry_after} if retry_after else {})

    @classmethod
    def overloaded(cls) -> Reply:
        return cls.error(529, "overloaded_error", "Overloaded")

    @classmethod
    def slow(cls, seconds: float, name: str = "record_memories") -> Reply:
        """A good answer that arrives after `seconds` (a client with a shorter timeout gives up)."""
        return cls.tool(name, {"memories": []}, delay=seconds)

    # -- serving ----------------------------------------------------------------------------
    def _next(self, recorded: Recorded) -> Reply:
        with self._lock:
            self.requests.append(recorded)
            item = self._queue.popleft() if self._queue else self.default
        reply = item(recorded) if callable(item) else item
        if reply.body is not None and reply.body.get("type") == "message" and reply.body.get("usage") is None:
            body = dict(reply.body, model=recorded.body.get("model", "claude-fake"), usage=self._usage(recorded))
            reply = Reply(reply.status, body, reply.headers, reply.delay)
        return reply

    def _usage(self, req: Recorded) -> dict[str, int]:
        system = req.body.get("system") or []
        cached = isinstance(system, list) and any(isinstance(b, dict) and b.get("cache_control") for b in system)
        system_tokens = (len(req.system_text) + len(json.dumps(req.body.get("tools", [])))) // 4
        with self._lock:
            warm = req.system_text in self._warm
            if cached:
                self._warm.add(req.system_text)
        return {
            "input_tokens": len(req.user_text) // 4 + (0 if cached else system_tokens),
            "output_tokens": 40,
            "cache_creation_input_tokens": system_tokens if cached and not warm else 0,
            "cache_read_input_tokens": system_tokens if cached and warm else 0,
        }

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                raw = self.rfile.read(int(self.headers.get("content-length", "0")))
                if self.path.rstrip("/") != "/v1/messages":
                    self._send(Reply(404, {"type": "error", "error": {"type": "not_found_error",
                                                                        "message": self.path}}))
                    return
                body = json.loads(raw or b"{}")
                headers = {k.lower(): v for k, v in self.headers.items()}
                self._send(fake._next(Recorded(self.path, headers, body, raw)))

            def _send(self, reply: Reply) -> None:
                if reply.delay:
                    time.sleep(reply.delay)
                payload = json.dumps(reply.body or {}).encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(payload)))
                    self.send_header("request-id", f"req_fake{next(_ids)}")
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test): nothing to answer

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                pass

        return Handler


TEST_KEY = "sk-ant-api03-TESTKEY-0123456789abcdefXYZW"


def model_client(fake: FakeAnthropic, *, key: str = TEST_KEY, **settings: Any) -> Any:
    """Loreline's real ModelClient pointed at `fake` (the SDK's own retries and backoff).
    Settings override the test defaults."""
    from loreline.distill.anthropic import ModelClient, Settings

    base: dict[str, Any] = {"base_url": fake.url, "timeout_seconds": 5.0, "max_retries": 2,
                            "retry_max_seconds": 5.0}
    base.update(settings)
    return ModelClient(Settings(**base), key, "ANTHROPIC_API_KEY")


@pytest.fixture
def fake_anthropic() -> Iterator[FakeAnthropic]:
    server = FakeAnthropic().start()
    try:
        yield server
    finally:
        server.close()
