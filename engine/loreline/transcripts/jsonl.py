"""Streaming JSONL reading with physical line numbers and bounded memory.

A transcript is read one line at a time in binary mode. A line that is not valid UTF-8,
not valid JSON, not an object, or longer than `MAX_LINE_BYTES` is skipped and counted,
never fatal. A last line without a newline is only read when the caller asks for it:
a file that is still being written must not have its half-written tail consumed.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any

import orjson

from ..models import ParseStats

MAX_LINE_BYTES = 8 * 1024 * 1024
_READ_LIMIT = 1024 * 1024


@dataclass(slots=True)
class ReadPosition:
    """Where reading stopped: after `line` complete lines, at byte `offset`.

    A last line without a newline is read (it may be a finished file's last record) but
    never counted here: the watermark always sits on a line boundary, so a file that is
    still being written is re-read from that line next time.
    """

    line: int = 0
    offset: int = 0


def _read_line(handle: IO[bytes], stats: ParseStats) -> tuple[bytes | None, int, bool]:
    """Read one physical line: (content or None when oversized, bytes consumed, has newline)."""
    parts: list[bytes] = []
    size = 0
    oversized = False
    while True:
        piece = handle.readline(_READ_LIMIT)
        if not piece:
            break
        size += len(piece)
        if not oversized:
            parts.append(piece)
            if size > MAX_LINE_BYTES:
                oversized = True
                parts.clear()
        if piece.endswith(b"\n"):
            return (None if oversized else b"".join(parts)), size, True
    if oversized:
        stats.drop("oversized-line")
        return None, size, False
    return b"".join(parts), size, False


def iter_records(
    handle: IO[bytes],
    stats: ParseStats,
    position: ReadPosition,
    *,
    include_partial_tail: bool = True,
    recent: deque[ReadPosition] | None = None,
) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield `(line_number, object)` for every JSON-object line from the handle's position.

    `position` is updated as lines are consumed, so a caller can record a watermark that
    ends at the last complete line. `recent`, when given, receives the position *before*
    each complete line (a bounded deque keeps the last N: where context re-reading starts).
    """
    while True:
        before = ReadPosition(position.line, position.offset)
        content, size, newline = _read_line(handle, stats)
        if size == 0:
            return
        if not newline and not include_partial_tail:
            return
        lineno = position.line + 1
        if newline:
            position.line = lineno
            position.offset += size
            if recent is not None:
                recent.append(before)
        stats.lines += 1
        if content is None:
            if newline:
                stats.drop("oversized-line")
            stats.bad_lines += 1
            continue
        record = _decode(content, stats)
        if record is not None:
            yield lineno, record


def _decode(content: bytes, stats: ParseStats) -> dict[str, Any] | None:
    stripped = content.strip()
    if not stripped:
        stats.drop("blank-line")
        return None
    try:
        value = orjson.loads(stripped)
    except orjson.JSONDecodeError:
        stats.bad_lines += 1
        stats.drop("invalid-json" if _is_utf8(stripped) else "invalid-utf8")
        return None
    if not isinstance(value, dict):
        stats.bad_lines += 1
        stats.drop("not-an-object")
        return None
    return value


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
