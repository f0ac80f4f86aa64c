"""Small Markdown helpers shared by the native readers: frontmatter, statements, code fences."""

from __future__ import annotations

import hashlib
import os
import re
from datetime import UTC, datetime
from pathlib import Path

_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s")
_FENCE = re.compile(r"^\s*(```|~~~)")
_WS = re.compile(r"\s+")
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
MIN_CHARS = 12
MAX_CHARS = 600
EXCERPT_CHARS = 480


def read_text(path: Path) -> str:
    return path.read_bytes().decode("utf-8", errors="replace")


def digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def stamp(path: Path) -> tuple[int, int, str]:
    """(size, mtime_ns, mtime as an ISO time) of a file."""
    st = os.stat(path)
    iso = datetime.fromtimestamp(st.st_mtime, UTC).isoformat(timespec="seconds")
    return st.st_size, st.st_mtime_ns, iso


def frontmatter(lines: list[str]) -> tuple[dict[str, str], int]:
    """`key: value` pairs of a leading `---` block and the index of the first body line."""
    if not lines or lines[0].strip() != "---":
        return {}, 0
    fields: dict[str, str] = {}
    for index, line in enumerate(lines[1:], start=1):
        if line.strip() == "---":
            return fields, index + 1
        key, sep, value = line.partition(":")
        if sep and key.strip() and not key.startswith((" ", "\t")):
            fields[key.strip().lower()] = value.strip().strip("\"'")
    return {}, 0  # never closed: not frontmatter


def statements(lines: list[str], first: int = 0) -> list[tuple[int, int, str]]:
    """Bullets and paragraphs outside code fences, as (line_start, line_end, text), 1-based;
    a bullet's wrapped continuation lines join it."""
    out: list[tuple[int, int, str]] = []
    fenced = False
    current: list[str] = []
    start = 0
    for index in range(first, len(lines)):
        line = lines[index]
        if _FENCE.match(line):
            fenced = not fenced
            _flush(out, current, start)
            current = []
            continue
        if fenced or not line.strip() or _HEADING.match(line) or _BULLET.match(line):
            _flush(out, current, start)
            current = []
            if not fenced and _BULLET.match(line):
                current, start = [_BULLET.sub("", line)], index + 1
            continue
        if not current:
            start = index + 1
        current.append(line)
    _flush(out, current, start)
    return out


def _flush(out: list[tuple[int, int, str]], current: list[str], start: int) -> None:
    text = flat(_COMMENT.sub(" ", " ".join(current)))
    if len(text) >= MIN_CHARS:
        out.append((start, start + len(current) - 1, text))


def flat(text: str) -> str:
    return _WS.sub(" ", text).strip()


def bounded(text: str, limit: int = MAX_CHARS) -> str:
    text = flat(text)
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
