"""Session transcripts: the shared readers and discovery helpers; each assistant's format lives
in its package (`loreline.assistants.<name>.sessions`, described by its `SessionFormat`).

`parse()` is the one entry: handed the session formats (the registry's `formats()`; callers
above the adapters use `registry.parse`), it detects the format from the first parseable
lines (unless told), streams the file from a position, and returns the turns with the
positions the ledger needs to resume later. Every reader exposes `feed(lineno, record)` and
`finish()`. This package imports no assistant: what it reads with is what it is handed.

Detection: the first of the first `DETECT_RECORDS` parseable records that a detector
(`detectors(formats)`) recognises decides, trying detectors in their listed order (the
assistants' `detect_order`, then the registry's, then generic). The detectors are disjoint by construction
(each assistant's `looks_like` says how; generic lines are `role` + `content`), so the order
only matters for a record that is malformed enough to match two — tests keep them disjoint on
every fixture.
A file with parseable records none of which is recognised raises `UnknownFormatError`
naming the file; a file with no parseable record (0 bytes, only garbage) parses to zero
turns, its tool guessed from where it lives (`guess_tool`). A `.json` file is one document, not JSONL:
only a format with `is_document` reads one, and its "line" numbers are item positions.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO, Any, Protocol

from ..errors import TranscriptMissingError, UnknownFormatError
from ..models import ParseStats, Transcript, Turn
from ..records import record
from . import files
from .base import session_from_name
from .jsonl import ReadPosition, iter_records

DETECT_RECORDS = 30
GENERIC = "generic"
CONTEXT_LINES = 40


class Reader(Protocol):
    tool: str
    session_id: str | None
    cwd: str | None
    started_at: str | None

    def feed(self, lineno: int, record: dict[str, Any]) -> None: ...

    def finish(self) -> list[Turn]: ...


class SessionFormat(Protocol):
    """What the readers need of one assistant's session format: the parts of its
    `SessionFormat` (`loreline.assistants.base`, where each is described) read here. Defined
    by the readers, filled in by the assistants: this package imports none of them."""

    @property
    def reader(self) -> Callable[..., Any]: ...
    @property
    def looks_like(self) -> Callable[[dict[str, Any]], bool]: ...
    @property
    def named_like(self) -> Callable[[Path], bool] | None: ...
    @property
    def detect_order(self) -> int: ...
    @property
    def is_document(self) -> Callable[[bytes], bool] | None: ...
    @property
    def feed_document(self) -> Callable[..., int] | None: ...
    @property
    def rereads(self) -> bool: ...
    @property
    def project_root(self) -> Callable[[Path], str | None] | None: ...


#: every assistant's session format by name, in registry order (`registry.formats()` hands it over)
Formats = Mapping[str, SessionFormat]


def readers(formats: Formats) -> dict[str, Callable[..., Any]]:
    """Format name → reader class: the assistants' in registry order, then generic."""
    from . import generic  # here: a session that is not read (unchanged) needs no reader
    return {**{tool: f.reader for tool, f in formats.items()}, GENERIC: generic.GenericReader}


def detectors(formats: Formats) -> dict[str, Callable[[dict[str, Any]], bool]]:
    """Format name → `looks_like`, in the order detection tries them."""
    from . import generic
    ordered = sorted(formats.items(), key=lambda item: item[1].detect_order)
    return {**{tool: f.looks_like for tool, f in ordered}, GENERIC: generic.looks_like}


DOCUMENT_HEAD_BYTES = 4096


@record
class ParseResult:
    transcript: Transcript
    end: ReadPosition
    context_start: ReadPosition


def detect(path: Path, formats: Formats) -> str | None:
    """The format of a file from its first parseable records; None when it has none."""
    if path.suffix == ".json":
        return _detect_document(path, formats)
    stats = ParseStats()
    seen = 0
    tried = detectors(formats).items()
    with _open(path) as handle:
        for _, record in iter_records(handle, stats, ReadPosition()):
            for name, looks_like in tried:
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
    formats: Formats,
    *,
    tool: str | None = None,
    start: ReadPosition | None = None,
    include_partial_tail: bool = True,
) -> ParseResult:
    """Parse `path` from `start` (the beginning by default), reading it with the format
    `tool` names (else the one of `formats` detection finds, else generic).

    With `include_partial_tail=False` a last line without a newline is left for later, so
    the returned `end` always sits at a line boundary of a file still being written.
    """
    name = tool or detect(path, formats) or guess_tool(path, formats)
    make = readers(formats).get(name)
    if make is None:
        raise UnknownFormatError(f"{path}: no parser for format {name!r}")
    form = formats.get(name)
    stats = ParseStats()
    if form is not None and form.feed_document is not None and path.suffix == ".json":
        return _parse_document(path, name, form, stats)
    position = ReadPosition(start.line, start.offset) if start else ReadPosition()
    reader: Reader
    if form is not None and form.rereads:  # messages are re-appended when they change: read it all, keep the new ones
        reader = make(stats, since_line=position.line + 1 if start else 0)
        position = ReadPosition()
    else:
        reader = make(stats)
    recent: deque[tuple[int, int]] = deque(maxlen=CONTEXT_LINES)
    feed = reader.feed
    with _open(path) as handle:
        handle.seek(position.offset)
        for lineno, record in iter_records(
            handle, stats, position, include_partial_tail=include_partial_tail, recent=recent
        ):
            feed(lineno, record)
    if form is not None and form.project_root is not None and reader.cwd is None:
        reader.cwd = form.project_root(path)
    transcript = _transcript(path, name, reader, stats, position.line)
    context_start = ReadPosition(*recent[0]) if recent else ReadPosition(position.line, position.offset)
    return ParseResult(transcript, ReadPosition(position.line, position.offset), context_start)


def guess_tool(path: Path, formats: Formats) -> str:
    """The tool a file with no parseable record most likely came from (by where it lives)."""
    for name, form in formats.items():
        if form.named_like is not None and form.named_like(path):
            return name
    return next(name for name, form in formats.items() if form.named_like is None)


def _transcript(path: Path, name: str, reader: Reader, stats: ParseStats, lines: int) -> Transcript:
    return Transcript(
        path=str(path), tool=name,  # type: ignore[arg-type]
        session_id=reader.session_id or session_from_name(path),
        cwd=reader.cwd, turns=tuple(reader.finish()), stats=stats, lines_total=lines,
        started_at=reader.started_at,
    )


def _detect_document(path: Path, formats: Formats) -> str | None:
    with _open(path) as handle:
        head = handle.read(DOCUMENT_HEAD_BYTES)
    if not head.strip():
        return None
    for name, form in formats.items():
        if form.is_document is not None and form.is_document(head):
            return name
    raise UnknownFormatError(f"{path}: not a transcript format Loreline knows (a JSON document without a session)")


def _parse_document(path: Path, name: str, form: SessionFormat, stats: ParseStats) -> ParseResult:
    """A whole-file session document; the watermark is its item count and size."""
    reader = form.reader(stats)
    assert form.feed_document is not None
    with _open(path) as handle:
        size = os.fstat(handle.fileno()).st_size
        items = form.feed_document(handle, size, reader, stats) if size else 0
    transcript = _transcript(path, name, reader, stats, items)
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
