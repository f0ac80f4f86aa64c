"""What hover and code lens show: the word under the cursor, and memories as markdown."""

from __future__ import annotations

import re

from loreline.models import Memory

_SYMBOL = re.compile(r"[A-Za-z0-9_$][A-Za-z0-9_$.\-]*")


def word_at(line: str, character: int) -> str | None:
    """The identifier-like word covering `character` (dots and dashes allowed inside)."""
    for match in _SYMBOL.finditer(line):
        if match.start() <= character <= match.end():
            return match.group().strip(".-") or None
    return None


def markdown(memories: list[Memory]) -> str:
    return "\n\n---\n\n".join(_one(m) for m in memories)


def _one(m: Memory) -> str:
    seen = "confirmed" if m.confirmed_at and m.confirmed_at >= m.last_seen else "last seen"
    head = f"**Loreline** · {m.kind} · {seen} {m.last_seen[:10]}" + (" · pinned" if m.pinned else "")
    parts = [head, "", m.text]
    if m.stale:
        parts += ["", f"⚠ *may be stale: {m.stale}*"]
    for p in m.provenance[:2]:
        span = f"{p.line_start}" if p.line_start == p.line_end else f"{p.line_start}-{p.line_end}"
        parts += ["", f"*{p.tool} · session `{p.session_label}` · {(p.observed_at or '')[:10]} · lines {span}*",
                  "> " + p.excerpt.replace("\n", " ")[:300]]
    if len(m.provenance) > 2:
        parts += ["", f"*… and {len(m.provenance) - 2} more sources*"]
    return "\n".join(parts)


def line_of(text: str, number: int) -> str:
    """Line `number` (0-based) of `text` without splitting all of it ("" past the end)."""
    if number < 0:
        return ""
    start = 0
    for _ in range(number):
        start = text.find("\n", start) + 1
        if start == 0:
            return ""
    end = text.find("\n", start)
    return text[start:] if end < 0 else text[start:end]
