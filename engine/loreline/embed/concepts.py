"""The developer-tool glossary (`data/concepts.txt`): naming what a tool is, for the embedder.

A small sentence model knows English well and developer tools poorly: it does not place
"pnpm" next to "package manager" or "vitest" next to "test runner". `expand(text)` appends
the category of every glossary term the text names ("… (package manager; test framework)"),
so a question asked in category words reaches a memory that only names the tool. Terms match
whole (not inside longer words or paths), case-insensitively.
"""

from __future__ import annotations

import functools
import hashlib
import re
from pathlib import Path

GLOSSARY = Path(__file__).with_name("data") / "concepts.txt"


@functools.lru_cache(maxsize=1)
def _glossary() -> tuple[re.Pattern[str], dict[str, str], str]:
    raw = GLOSSARY.read_text(encoding="utf-8")
    category_of: dict[str, str] = {}
    for line in raw.splitlines():
        if not line.strip() or line.startswith("#") or "|" not in line:
            continue
        words, terms = line.split("|", 1)
        category = words.split(",")[0].strip()
        for term in terms.split(","):
            term = term.strip().lower()
            if term:
                category_of.setdefault(term, category)
    ordered = sorted(category_of, key=len, reverse=True)  # longest first: "spring boot" before "spring"
    pattern = re.compile(r"(?<![\w./-])(?:" + "|".join(map(re.escape, ordered)) + r")(?![\w-]|\.\w)", re.IGNORECASE)
    return pattern, category_of, hashlib.sha256(raw.encode()).hexdigest()[:8]


def version() -> str:
    """A short digest of the glossary, part of the embedder's fingerprint."""
    return _glossary()[2]


def categories(text: str) -> list[str]:
    """The categories of the glossary terms named in `text`, in order of first mention."""
    pattern, category_of, _ = _glossary()
    seen: dict[str, None] = {}
    for match in pattern.finditer(text):
        seen.setdefault(category_of[match.group(0).lower()], None)
    return list(seen)


def expand(text: str) -> str:
    found = categories(text)
    return f"{text} ({'; '.join(found)})" if found else text
