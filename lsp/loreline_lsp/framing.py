"""Reading LSP's framed messages so that one badly framed message never wedges the stream.

A message is `Content-Length: N` (other headers allowed), a blank line, then N bytes of JSON.
A client that gets N wrong would otherwise stall the server: too small, and the rest of the body
is read as headers; too large, and the next message is swallowed while the server waits for
bytes that never come; missing, and the body is taken for a header line. Here the stream is
read into a buffer and the framing is checked against the JSON itself:

- a body that is not JSON at its declared length, but is a complete JSON value followed by the
  next header (or by nothing yet), is taken whole: a too-small length costs nothing;
- while a too-long body waits for more bytes, a complete JSON value followed by the next header
  (or by nothing, when the client waits for an answer) is taken at once;
- bytes before a `Content-Length` header are junk, unless they are a whole JSON message sent
  without headers, which is taken as it is;
- headers must end within `MAX_HEADER` bytes; past that the reader skips to the next
  `Content-Length`.

`next()` returns a body (bytes), `TOO_LARGE` with the declared size for a message over the size
limit (its bytes skipped), or None at the end of the input.
"""

from __future__ import annotations

import asyncio
import json
import re
from concurrent.futures import Executor
from typing import BinaryIO

_HEADER = re.compile(rb"content-length[ \t]*:[ \t]*(\d+)", re.I)
_HEADER_END = re.compile(rb"\r?\n\r?\n")
_CHUNK = 1 << 16
#: headers longer than this are not headers
MAX_HEADER = 8192
_DECODER = json.JSONDecoder()


class TooLarge:
    """A message over the size limit, skipped; `size` is what its header declared."""

    def __init__(self, size: int) -> None:
        self.size = size


class Framer:
    def __init__(self, stream: BinaryIO, executor: Executor | None, max_message: int) -> None:
        self._stream = stream
        self._executor = executor
        self._max = max_message
        self._buffer = bytearray()
        self._eof = False

    async def _fill(self) -> bool:
        """Read what is available (at least one byte); False at the end of the input."""
        if self._eof:
            return False
        read = getattr(self._stream, "read1", self._stream.read)
        chunk = await asyncio.get_running_loop().run_in_executor(self._executor, read, _CHUNK)
        if not chunk:
            self._eof = True
            return False
        self._buffer += chunk
        return True

    async def next(self) -> bytes | TooLarge | None:
        while True:
            found = self._take_headerless() or await self._headers()
            if found is None:
                return None
            if isinstance(found, bytes):
                return found
            length = found[0]
            if length > self._max:
                await self._skip(length)
                return TooLarge(length)
            body = await self._body(length)
            if body is not None:
                return body

    def _take_headerless(self) -> bytes | None:
        """A whole JSON object at the front of the buffer, sent without headers."""
        start = len(self._buffer) - len(self._buffer.lstrip())
        if start < len(self._buffer) and self._buffer[start:start + 1] == b"{":
            end = _complete_json(self._buffer, start)
            if end is not None:
                body = bytes(self._buffer[start:end])
                del self._buffer[:end]
                return body
        return None

    async def _headers(self) -> tuple[int] | bytes | None:
        """The next message's declared length (its headers consumed), a headerless message, or
        None at the end."""
        while True:
            match = _HEADER.search(self._buffer)
            if match is not None:
                end = _HEADER_END.search(self._buffer, match.end())
                if end is not None:
                    # what follows the last blank line before this header may be a message whose
                    # headers had no length, or none at all: keep it
                    junk = _HEADER_END.split(bytes(self._buffer[:match.start()]))[-1].strip()
                    headerless = _whole_json(junk)
                    if headerless is not None:
                        del self._buffer[:match.start()]
                        return headerless
                    length = int(match.group(1))
                    del self._buffer[:end.end()]  # junk before the header goes with it
                    return (length,)
                if len(self._buffer) - match.start() > MAX_HEADER:
                    del self._buffer[:match.end()]  # a header that never ends: look for the next one
                    continue
            elif len(self._buffer) > MAX_HEADER and self._buffer[:1] != b"{":
                keep = self._buffer[-64:]  # a header may be split across reads
                self._buffer[:] = keep
            headerless = self._take_headerless()
            if headerless is not None:
                return headerless
            if not await self._fill():
                return None

    async def _body(self, length: int) -> bytes | None:
        """The body of a message of the declared length, resynchronised when the length is
        wrong; None when it was consumed as junk."""
        while True:
            if len(self._buffer) >= length:
                body = bytes(self._buffer[:length])
                framed = body.rstrip()[-1:] == b"}" and _next_is_header(self._buffer, length)
                if framed or _whole_json(body) is not None:
                    del self._buffer[:length]
                    return body
                end = _complete_json(self._buffer, 0)
                if end is not None and _next_is_header(self._buffer, end):
                    return self._cut(end)  # the declared length was too small
                del self._buffer[:length]
                return body  # not JSON at any length: the protocol answers a parse error
            end = _complete_json(self._buffer, 0) if self._buffer.rstrip()[-1:] == b"}" else None
            if end is not None and _next_is_header(self._buffer, end):
                return self._cut(end)  # the declared length was too large
            if not await self._fill():
                return bytes(self._buffer) if self._buffer.strip() else None

    def _cut(self, end: int) -> bytes:
        body = bytes(self._buffer[:end])
        del self._buffer[:end]
        return body

    async def _skip(self, length: int) -> None:
        while len(self._buffer) < length:
            length -= len(self._buffer)
            self._buffer.clear()
            if not await self._fill():
                return
        del self._buffer[:length]


def _complete_json(buffer: bytearray, start: int) -> int | None:
    """The byte offset where a complete JSON object starting at `start` ends, or None."""
    text = bytes(buffer[start:]).decode("utf-8", errors="surrogateescape")
    stripped = len(text) - len(text.lstrip())
    try:
        _, end = _DECODER.raw_decode(text, stripped)
    except (ValueError, RecursionError):
        return None
    return start + len(text[:end].encode("utf-8", errors="surrogateescape"))


def _whole_json(body: bytes) -> bytes | None:
    if not body:
        return None
    try:
        json.loads(body)
    except (ValueError, RecursionError):
        return None
    return body


def _next_is_header(buffer: bytearray, end: int) -> bool:
    """Whether what follows a JSON value is the next message's header, or nothing yet."""
    rest = bytes(buffer[end:end + 64]).lstrip()
    return not rest or rest[:14].lower() == b"content-length"
