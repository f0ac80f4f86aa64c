"""The statements of a person's turn, for the offline `rules` distiller.

A prompt is split into the sentences its author wrote: fenced code, blockquotes (`> …`),
pasted logs, anything after "the docs say:" and blocks an editor or the harness injected
(`<ide_selection>`, `<system-reminder>`, `<task-notification>`, …) are not the person's statement
and are left out; a hard-wrapped paragraph (Codex prompts, text pasted from a terminal) is joined back
into one line before splitting, so a sentence wrapped over four lines is one statement.

Every statement returned is the text of the turn with only whitespace changed (runs of
spaces and newlines become one space), so it still matches the turn once whitespace is
normalised — which is how evidence validation compares a quote with its line.
"""

from __future__ import annotations

import re

_FENCES = ("```", "~~~")
_LIST_ITEM = re.compile(r"^\s*(?:[-*•+]|\d{1,2}[.)]|[a-z][.)])\s+")
_LOG_LINE = re.compile(r"^\s*(?:\S+\s+\|\s|\[?\d{4}-\d\d-\d\d[ T]\d\d:|at \S+ \(|\$ |❯ |>>> |Traceback |File \")")
_QUOTE_INTRO = re.compile(
    r"(?:\b(?:the docs?|documentation|the readme|the error|the output|it) (?:says?|said|reads?)|"
    r"\bhere(?:'s| is) (?:the|an?) (?:error|output|log|example|snippet)|\bfor example)\s*:\s*$",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=\S)")
_ABBREVIATION = re.compile(r"(?:\b(?:e\.g|i\.e|etc|vs|cf|approx|z\.b|bzw|p\.ej|ej)\.|\b[A-Za-z]\.|[\s\"(]\d{1,2}\.)$",
                           re.IGNORECASE)  # "8. Collapsed Sections" inside a sentence is a number, not an end
#: an abbreviation match is at most 7 characters ("approx."), so only a piece's tail is searched
#: (`\b` still sees the character before it): a search from the start costs a try at every position
_ABBREVIATION_TAIL = 16
#: text an editor, a tool or the harness put into the turn: not the person's words
_TAGGED = re.compile(r"<(ide_opened_file|ide_selection|system-reminder|bash-notification|task-notification|"
                     r"pasted_content|bash-stdout|bash-stderr|local-command-stdout)\b[^>]*>.*?(?:</\1>|\Z)", re.S)


def statements(text: str) -> list[str]:
    """The person's own sentences in `text`, each one line, whitespace collapsed."""
    out: list[str] = []
    if "<" in text:
        text = _TAGGED.sub("\n\n", text)
    for paragraph in _paragraphs(text):
        out.extend(_split(paragraph))
    return out


def _paragraphs(text: str) -> list[str]:
    """Own-text paragraphs: wrapped lines joined, list items kept apart, pasted parts dropped."""
    paragraphs: list[str] = []
    current: list[str] = []
    fenced = pasted = False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith(_FENCES):  # what `^\s*(```|~~~)` matches: `strip` knows the same whitespace
            fenced = not fenced
            _flush(current, paragraphs)
            continue
        if fenced or stripped.startswith(">") or _LOG_LINE.match(line):
            _flush(current, paragraphs)
            continue
        if not stripped:
            _flush(current, paragraphs)
            pasted = False
            continue
        if pasted:
            continue
        if _LIST_ITEM.match(line) or stripped.startswith("#"):
            _flush(current, paragraphs)
        current.append(stripped)
        if stripped.endswith(":") and _QUOTE_INTRO.search(stripped):  # every intro ends the line with a colon
            current[-1] = ""
            _flush(current, paragraphs)
            pasted = True
    _flush(current, paragraphs)
    return paragraphs


def _flush(current: list[str], paragraphs: list[str]) -> None:
    if not current:
        return
    joined = " ".join(part for part in current if part)
    if joined:
        paragraphs.append(_LIST_ITEM.sub("", joined, count=1).strip())
    current.clear()


def _split(paragraph: str) -> list[str]:
    pieces: list[str] = []
    carry = ""
    for piece in _SENTENCE_END.split(paragraph):
        piece = carry + piece if not carry else f"{carry} {piece}"
        if _ABBREVIATION.search(piece, max(0, len(piece) - _ABBREVIATION_TAIL)):
            carry = piece
            continue
        carry = ""
        if piece.strip():
            pieces.append(_collapse(piece))
    if carry.strip():
        pieces.append(_collapse(carry))
    return pieces


def _collapse(text: str) -> str:
    """Runs of whitespace made one space, ends trimmed (`str.split` knows the same whitespace as `\\s`)."""
    return " ".join(text.split())
