"""Session transcripts: discovery and parsing, one module per format.

`parse()` is the one entry: it detects the format from the first parseable lines (unless
told), streams the file from a position, and returns the turns with the positions the
ledger needs to resume later. Every reader exposes `feed(lineno, record)` and `finish()`.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Protocol

from ..errors import TranscriptMissingError, UnknownFormatError
from ..models import ParseStats, Transcript, Turn
from . import claude_code
from .jsonl import ReadPosition, iter_records

DETECT_RECORDS = 30
CONTEXT_LINES = 40


class Reader(Protocol):
    tool: str
    session_id: str | None
    cwd: str | None
    started_at: str | None

    def feed(self, lineno: int, record: dict[str, Any]) -> None: ...

    def finish(self) -> list[Turn]: ...


class Format(Protocol):
    def looks_like(self, record: dict[str, Any]) -> bool: ...


READERS: dict[str, type] = {"claude-code": claude_code.ClaudeCodeReader}
DETECTORS: dict[str, Any] = {"claude-code": claude_code.looks_like}


@dataclass(frozen=True, slots=True)
class ParseResult:
    transcript: Transcript
    end: ReadPosition
    context_start: ReadPosition


def detect(path: Path) -> str | None:
    """The format of a file from its first parseable records; None when it has none."""
    stats = ParseStats()
    seen = 0
    with _open(path) as handle:
        for _, record in iter_records(handle, stats, ReadPosition()):
            for name, looks_like in DETECTORS.items():
                if looks_like(record):
                    return name
            seen += 1
            if seen >= DETECT_RECORDS:
                break
    if seen == 0:
        return None
    raise UnknownFormatError(f"{path}: not a transcript format Loreline knows (looked at {seen} lines)")


def parse(
    path: Path,
    *,
    tool: str | None = None,
    start: ReadPosition | None = None,
    include_partial_tail: bool = True,
) -> ParseResult:
    """Parse `path` from `start` (the beginning by default).

    With `include_partial_tail=False` a last line without a newline is left for later, so
    the returned `end` always sits at a line boundary of a file still being written.
    """
    name = tool or detect(path) or "claude-code"
    if name not in READERS:
        raise UnknownFormatError(f"{path}: no parser for format {name!r}")
    stats = ParseStats()
    reader: Reader = READERS[name](stats)
    position = ReadPosition(start.line, start.offset) if start else ReadPosition()
    recent: deque[ReadPosition] = deque(maxlen=CONTEXT_LINES)
    with _open(path) as handle:
        handle.seek(position.offset)
        for lineno, record in iter_records(
            handle, stats, position, include_partial_tail=include_partial_tail, recent=recent
        ):
            reader.feed(lineno, record)
    turns = tuple(reader.finish())
    transcript = Transcript(
        path=str(path), tool=name,  # type: ignore[arg-type]
        session_id=reader.session_id or _session_from_name(path),
        cwd=reader.cwd, turns=turns, stats=stats, lines_total=position.line,
        started_at=reader.started_at,
    )
    context_start = recent[0] if recent else ReadPosition(position.line, position.offset)
    return ParseResult(transcript, ReadPosition(position.line, position.offset), context_start)


def _open(path: Path) -> IO[bytes]:
    try:
        return open(path, "rb")
    except FileNotFoundError:
        raise TranscriptMissingError(f"no such transcript: {path}") from None
    except IsADirectoryError:
        raise TranscriptMissingError(f"not a file: {path}") from None
    except PermissionError:
        raise TranscriptMissingError(f"cannot read transcript (permission denied): {path}") from None


def _session_from_name(path: Path) -> str:
    return path.name.removesuffix(".jsonl")
