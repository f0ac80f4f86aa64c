"""Evidence validation: a candidate is saved only when its transcript lines back it.

Rules (each failure is counted by its reason, never saved):
- the kind is one of KINDS; the text is non-empty and at most MAX_TEXT characters;
- it cites at least one line, every cited line lies inside the chunk, and at least one is
  newer than the chunk's context (already-imported lines only give context);
- every quote matches, whitespace- and case-normalised, the text of the turn on its line;
- preferences and decisions need support from a person's line: an assistant proposal is
  not adoption, and an assistant recap is not evidence of a fact the user settled;
- neither the text nor a quote may still contain a secret.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from .models import KINDS, Candidate, Chunk

MAX_TEXT = 600
MAX_QUOTE = 1_000
USER_ONLY_KINDS = ("preference", "decision")

_WS = re.compile(r"\s+")
_QUOTE_CHARS = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})


def normalise(text: str) -> str:
    return _WS.sub(" ", text.translate(_QUOTE_CHARS)).strip().lower()


def validate(
    candidates: Iterable[Candidate],
    chunk: Chunk,
    *,
    has_secret: Callable[[str], bool],
) -> tuple[list[Candidate], list[str]]:
    """Split candidates into (accepted, rejection reasons)."""
    accepted: list[Candidate] = []
    reasons: list[str] = []
    for candidate in candidates:
        reason = check(candidate, chunk, has_secret)
        if reason is None:
            accepted.append(candidate)
        else:
            reasons.append(reason)
    return accepted, reasons


def check(candidate: Candidate, chunk: Chunk, has_secret: Callable[[str], bool]) -> str | None:
    """The reason a candidate is rejected, or None when it stands."""
    if candidate.kind not in KINDS:
        return "unknown-kind"
    text = candidate.text.strip()
    if not text:
        return "empty-text"
    if len(text) > MAX_TEXT:
        return "oversized-text"
    if not candidate.evidence:
        return "no-evidence"
    speakers: set[str] = set()
    for item in candidate.evidence:
        turn = chunk.turn_at(item.line)
        if turn is None:
            return "line-outside-chunk"
        quote = normalise(item.quote)
        if not quote or len(item.quote) > MAX_QUOTE or quote not in normalise(turn.text):
            return "quote-mismatch"
        speakers.add(turn.speaker)
    if all(item.line <= chunk.context_until for item in candidate.evidence):
        return "context-only"
    if candidate.kind in USER_ONLY_KINDS and "user" not in speakers:
        return "assistant-only-support"
    if has_secret(text) or any(has_secret(item.quote) for item in candidate.evidence):
        return "secret"
    return None
