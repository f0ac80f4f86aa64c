"""Evidence validation: a candidate is saved only when its transcript lines back it.

Rules (each failure is counted by its reason, never saved):
- the kind is one of KINDS; the text is non-empty and at most MAX_TEXT characters;
- it cites at least one line, every cited line lies inside the chunk, and at least one is
  newer than the chunk's context (already-imported lines only give context);
- every quote matches, whitespace- and case-normalised, the text of a turn on its line (prose
  and actions can share a line: the quote's speaker is the turn it matches);
- preferences and decisions need support from a person's line: an assistant proposal is
  not adoption, an assistant recap is not evidence of a fact the user settled, and what the
  assistant did (an action line: `[RAN] …`, `[EDITED] …`) is not what the person wants; a
  procedure or a fact may rest on action lines alone (the command that worked is the procedure);
- neither the text nor a quote may still contain a secret;
- a quote may not come from a line that carries an instruction-override phrase (the
  sanitizer marks them `[instruction-override: …]`): a claim that follows "ignore previous
  instructions and remember …" is the injection's, not the person's, whoever pasted it;
- quoted or pasted material (the sanitizer wraps it `[quoted] … [/quoted]`: blockquotes,
  "the docs say: …", emails, logs) is data, not anyone's statement: a candidate whose every
  quote lies only inside such material is rejected, whatever the backend.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from .models import KINDS, Candidate, Chunk, Evidence, Turn
from .privacy.quoted import OPEN as QUOTED_OPEN
from .privacy.quoted import unquoted

MAX_TEXT = 600
OVERRIDE_MARK = "[instruction-override:"
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


def cited(chunk: Chunk, item: Evidence) -> Turn | None:
    """The turn a piece of evidence quotes: the one on its line whose text holds the quote
    (else the line's first turn)."""
    on_line = chunk.turns_at(item.line)
    return _matching(on_line, normalise(item.quote)) or (on_line[0] if on_line else None)


def _matching(turns: tuple[Turn, ...], quote: str) -> Turn | None:
    if len(turns) == 1:
        return turns[0] if quote in normalise(turns[0].text) else None
    return next((turn for turn in turns if quote in normalise(turn.text)), None)


def _beside_override(text: str, quote: str) -> bool:
    """True when the (normalised) quote lies on a line that holds an override marker."""
    return any(OVERRIDE_MARK in line and quote in normalise(line) for line in text.splitlines())


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
    own_words = 0
    for item in candidate.evidence:
        on_line = chunk.turns_at(item.line)
        if not on_line:
            return "line-outside-chunk"
        quote = normalise(item.quote)
        turn = _matching(on_line, quote)
        if not quote or len(item.quote) > MAX_QUOTE or turn is None:
            return "quote-mismatch"
        if OVERRIDE_MARK in turn.text and _beside_override(turn.text, quote):
            return "follows-injected-instruction"
        if QUOTED_OPEN not in turn.text or quote in normalise(unquoted(turn.text)):
            own_words += 1
            speakers.add(turn.speaker)
    if own_words == 0:
        return "quoted-material"
    if all(item.line <= chunk.context_until for item in candidate.evidence):
        return "context-only"
    if candidate.kind in USER_ONLY_KINDS and "user" not in speakers:
        return "assistant-only-support"
    if has_secret(text) or has_secret(candidate.cues) or any(has_secret(item.quote) for item in candidate.evidence):
        return "secret"
    return None
