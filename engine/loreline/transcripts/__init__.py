"""Session transcripts: discovery and parsing, one module per format.

`parse()` is the one entry: it detects the format from the first parseable lines (unless
told), streams the file from a position, and returns the turns with the positions the
ledger needs to resume later. Every reader exposes `feed(lineno, record)` and `finish()`.

Detection: the first of the first `DETECT_RECORDS` parseable records that a detector in
`DETECTORS` recognises decides, trying detectors in their listed order. The detectors are
disjoint by construction (Claude Code lines carry a string `type` and no `payload`; Codex
lines carry a `payload` or a bare ResponseItem/legacy shape; a Gemini CLI session opens with
its metadata (`sessionId` + `projectHash`, no `type`) or a `$set` line; Cursor lines are exactly
`role` + `message`; generic lines are `role` + `content`), so the order only matters for a
record that is malformed enough to match two — tests keep them disjoint on every fixture.
A file with parseable records none of which is recognised raises `UnknownFormatError`
naming the file; a file with no parseable record (0 bytes, only garbage) parses to zero
turns, its tool guessed from where it lives (`guess_tool`). A `.json` file is one document, not JSONL: only the Codex TypeScript-CLI session
document is known, and its "line" numbers are item positions.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Protocol

from ..errors import TranscriptMissingError, UnknownFormatError
from ..models import ParseStats, Transcript, Turn
from . import claude_code, codex, cursor, files, gemini, generic
from .base import session_from_name
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


READERS: dict[str, type] = {
    "claude-code": claude_code.ClaudeCodeReader,
    "codex": codex.CodexReader,
    "cursor": cursor.CursorReader,
    "gemini": gemini.GeminiReader,
    "generic": generic.GenericReader,
}
DETECTORS: dict[str, Callable[[dict[str, Any]], bool]] = {
    "gemini": gemini.looks_like,
    "claude-code": claude_code.looks_like,
    "codex": codex.looks_like,
    "cursor": cursor.looks_like,
    "generic": generic.looks_like,
}
DOCUMENT_HEAD_BYTES = 4096


@dataclass(frozen=True, slots=True)
class ParseResult:
    transcript: Transcript
    end: ReadPosition
    context_start: ReadPosition


def detect(path: Path) -> str | None:
    """The format of a file from its first parseable records; None when it has none."""
    if path.suffix == ".json":
        return _detect_document(path)
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
    name = tool or detect(path) or guess_tool(path)
    if name not in READERS:
        raise UnknownFormatError(f"{path}: no parser for format {name!r}")
    stats = ParseStats()
    if name == "codex" and path.suffix == ".json":
        return _parse_document(path, codex.CodexReader(stats), stats)
    position = ReadPosition(start.line, start.offset) if start else ReadPosition()
    reader: Reader
    if name == "gemini":  # messages are re-appended when they change: read it all, keep the new ones
        reader = gemini.GeminiReader(stats, since_line=position.line + 1 if start else 0)
        position = ReadPosition()
    else:
        reader = READERS[name](stats)
    recent: deque[tuple[int, int]] = deque(maxlen=CONTEXT_LINES)
    feed = reader.feed
    with _open(path) as handle:
        handle.seek(position.offset)
        for lineno, record in iter_records(
            handle, stats, position, include_partial_tail=include_partial_tail, recent=recent
        ):
            feed(lineno, record)
    if name == "gemini" and reader.cwd is None:
        reader.cwd = gemini.project_root(path)
    transcript = _transcript(path, name, reader, stats, position.line)
    context_start = ReadPosition(*recent[0]) if recent else ReadPosition(position.line, position.offset)
    return ParseResult(transcript, ReadPosition(position.line, position.offset), context_start)


def guess_tool(path: Path) -> str:
    """The tool a file with no parseable record most likely came from (by where it lives)."""
    if path.suffix == ".json" or path.name.startswith("rollout-"):
        return "codex"
    if "agent-transcripts" in path.parts:
        return "cursor"
    if path.name.startswith("session-") and "chats" in path.parts:
        return "gemini"
    return "claude-code"


def _transcript(path: Path, name: str, reader: Reader, stats: ParseStats, lines: int) -> Transcript:
    return Transcript(
        path=str(path), tool=name,  # type: ignore[arg-type]
        session_id=reader.session_id or session_from_name(path),
        cwd=reader.cwd, turns=tuple(reader.finish()), stats=stats, lines_total=lines,
        started_at=reader.started_at,
    )


def _detect_document(path: Path) -> str | None:
    with _open(path) as handle:
        head = handle.read(DOCUMENT_HEAD_BYTES)
    if not head.strip():
        return None
    if codex.is_document(head):
        return "codex"
    raise UnknownFormatError(f"{path}: not a transcript format Loreline knows (a JSON document without a session)")


def _parse_document(path: Path, reader: codex.CodexReader, stats: ParseStats) -> ParseResult:
    """A whole-file session document; the watermark is its item count and size."""
    with _open(path) as handle:
        size = os.fstat(handle.fileno()).st_size
        items = codex.feed_document(handle, size, reader, stats) if size else 0
    transcript = _transcript(path, "codex", reader, stats, items)
    return ParseResult(transcript, ReadPosition(items, size), ReadPosition())


def _open(path: Path) -> IO[bytes]:
    kind = files.not_a_file(path)  # before `open`, which would wait forever on a named pipe
    if kind is not None:
        raise TranscriptMissingError(f"not a file: {path} ({kind})")
    try:
        return open(path, "rb")
    except FileNotFoundError:
        raise TranscriptMissingError(f"no such transcript: {path}") from None
    except IsADirectoryError:
        raise TranscriptMissingError(f"not a file: {path}") from None
    except PermissionError:
        raise TranscriptMissingError(f"cannot read transcript (permission denied): {path}") from None
