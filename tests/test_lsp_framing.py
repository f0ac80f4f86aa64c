"""One mis-framed message never wedges the language server: it reads on and answers the next.

The cases (a Content-Length too small, too large, missing; no headers; junk; a header that never
ends) go to the real server over stdio as raw bytes, and to the reader itself over an in-memory
stream."""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from loreline_lsp.framing import MAX_HEADER, Framer, TooLarge
from tests.lsp_raw import RawServer
from tests.test_lsp_robust import server_env


def _request(msg_id: int, method: str = "loreline/status") -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": {}}).encode()


def _framed(body: bytes, length: int | None = None) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % (len(body) if length is None else length) + body


MISFRAMED = {
    "length too small": lambda: _framed(_request(50), 10),
    "length too large": lambda: _framed(_request(50), 400),
    "length missing": lambda: b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n" + _request(50),
    "no headers at all": lambda: _request(50),
    "junk between messages": lambda: b"\x00\xffnot a header at all\r\n\r\n",
    "a header that never ends": lambda: b"X-Padding: " + b"x" * (MAX_HEADER * 2),
    "a body that is not JSON": lambda: _framed(b"{this is not json}"),
}


def _read_all(data: bytes, limit: int = 1 << 20) -> list[bytes | TooLarge]:
    async def run() -> list[bytes | TooLarge]:
        framer = Framer(io.BufferedReader(io.BytesIO(data)), None, limit)  # type: ignore[arg-type]
        found: list[bytes | TooLarge] = []
        while (message := await framer.next()) is not None:
            found.append(message)
        return found
    return asyncio.run(run())


@pytest.mark.parametrize("case", sorted(MISFRAMED))
def test_the_reader_finds_the_next_message_after_a_misframed_one(case: str) -> None:
    found = _read_all(MISFRAMED[case]() + _framed(_request(51)))
    bodies = [json.loads(m) for m in found if isinstance(m, bytes) and m.startswith(b"{\"")]
    assert bodies and bodies[-1]["id"] == 51, found
    if case.startswith(("length", "no headers")):  # the mis-framed request itself is recovered whole
        assert [b["id"] for b in bodies] == [50, 51], found


def test_well_framed_messages_come_through_unchanged() -> None:
    bodies = [_request(n) for n in range(5)] + [json.dumps({"jsonrpc": "2.0", "method": "x", "params": {
        "text": "é}{\r\n\r\nContent-Length: 3" * 100}}).encode()]
    assert _read_all(b"".join(_framed(b) for b in bodies)) == bodies


def test_a_message_over_the_limit_is_skipped_and_reported() -> None:
    found = _read_all(_framed(b"{" + b" " * 5000 + b"}") + _framed(_request(2)), limit=1000)
    assert isinstance(found[0], TooLarge) and found[0].size == 5002 and json.loads(found[1])["id"] == 2


@pytest.fixture
def raw(tmp_path: Path, loreline_home: Path) -> Iterator[RawServer]:
    server = RawServer(server_env(loreline_home), tmp_path / "server.log")
    server.initialize(tmp_path)
    yield server
    server.close()


@pytest.mark.parametrize("case", sorted(MISFRAMED))
def test_the_server_answers_the_next_request_after_a_misframed_message(raw: RawServer, case: str) -> None:
    raw.send_unframed(MISFRAMED[case]())
    answer = raw.call("loreline/status", {}, timeout=30)
    assert "result" in answer, answer


def test_a_request_sent_with_too_long_a_length_is_answered_while_the_client_waits(raw: RawServer) -> None:
    raw.send_unframed(_framed(_request(77), 4000))
    assert "result" in raw.response(77, timeout=30)
