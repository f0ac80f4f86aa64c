"""Streaming JSONL reading with physical line numbers and bounded memory.

A transcript is read in blocks of `BLOCK_BYTES` and split into physical lines. A line that
is not valid UTF-8, not valid JSON, not an object, or longer than `MAX_LINE_BYTES` is
skipped and counted, never fatal. Memory stays bounded by one block plus one line of at
most `MAX_LINE_BYTES`: the bytes of a longer line are discarded as they arrive. A last
line without a newline is only read when the caller asks for it: a file that is still
being written must not have its half-written tail consumed.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from typing import IO, Any

import orjson

from ..models import ParseStats
from ..records import record

MAX_LINE_BYTES = 8 * 1024 * 1024
BLOCK_BYTES = 1024 * 1024


@record(frozen=False)
class ReadPosition:
    """Where reading stopped: after `line` complete lines, at byte `offset`.

    A last line without a newline is read (it may be a finished file's last record) but
    never counted here: the watermark always sits on a line boundary, so a file that is
    still being written is re-read from that line next time.
    """

    line: int = 0
    offset: int = 0


class _Partial:
    """The start of a line that continues in the next block (or is dropped as too long)."""

    __slots__ = ("parts", "size", "oversized")

    def __init__(self) -> None:
        self.parts: list[bytes] = []
        self.size = 0
        self.oversized = False

    def add(self, piece: bytes) -> None:
        self.size += len(piece)
        if self.oversized:
            return
        if self.size > MAX_LINE_BYTES:
            self.oversized = True
            self.parts = []
        else:
            self.parts.append(piece)

    def take(self, last: bytes) -> tuple[bytes | None, int]:
        """The whole line ending with `last` (None when oversized) and its byte length."""
        self.add(last)
        content = None if self.oversized else b"".join(self.parts)
        size = self.size
        self.parts, self.size, self.oversized = [], 0, False
        return content, size


def _lines(handle: IO[bytes], include_partial_tail: bool) -> Iterator[tuple[bytes | memoryview | None, int, bool]]:
    """Physical lines as `(content or None when oversized, bytes incl. newline, has newline)`.

    Lines inside a block are zero-copy views of it; only a line spanning blocks is joined.
    """
    partial = _Partial()
    read = handle.read
    while True:
        block = read(BLOCK_BYTES)
        if not block:
            break
        view = memoryview(block)
        find = block.find
        start = 0
        end = find(b"\n")
        if end >= 0 and partial.size:
            content, size = partial.take(block[:end])
            yield content, size + 1, True
            start = end + 1
            end = find(b"\n", start)
        while end >= 0:
            yield view[start:end], end - start + 1, True
            start = end + 1
            end = find(b"\n", start)
        if start < len(block):
            partial.add(block[start:])
    if partial.size and include_partial_tail:
        content, size = partial.take(b"")
        yield content, size, False


def iter_records(
    handle: IO[bytes],
    stats: ParseStats,
    position: ReadPosition,
    *,
    include_partial_tail: bool = True,
    recent: deque[tuple[int, int]] | None = None,
) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield `(line_number, object)` for every JSON-object line from the handle's position.

    `position` is updated as lines are consumed, so a caller can record a watermark that
    ends at the last complete line. `recent`, when given, receives `(line, offset)` *before*
    each complete line (a bounded deque keeps the last N: where context re-reading starts).
    """
    loads = orjson.loads
    for content, size, newline in _lines(handle, include_partial_tail):
        lineno = position.line + 1
        if newline:
            if recent is not None:
                recent.append((position.line, position.offset))
            position.line = lineno
            position.offset += size
        stats.lines += 1
        if content is None:
            stats.drop("oversized-line")
            stats.bad_lines += 1
            continue
        try:
            record = loads(content)
        except orjson.JSONDecodeError:
            _bad(content, stats)
            continue
        if type(record) is dict:
            yield lineno, record
        else:
            stats.bad_lines += 1
            stats.drop("not-an-object")


def _bad(view: bytes | memoryview, stats: ParseStats) -> None:
    content = bytes(view)
    if not content.strip():
        stats.drop("blank-line")
        return
    stats.bad_lines += 1
    try:
        content.decode("utf-8")
    except UnicodeDecodeError:
        stats.drop("invalid-utf8")
        return
    stats.drop("invalid-json")
