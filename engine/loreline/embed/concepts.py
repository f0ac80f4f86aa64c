"""The developer-tool glossary (`data/concepts.txt`): naming what a tool is, for the embedder.

A small sentence model knows English well and developer tools poorly: it does not place
"pnpm" next to "package manager" or "vitest" next to "test runner". The embedder appends
`note(text)`, the category of every glossary term the text names ("(package manager; test framework)"),
so a question asked in category words reaches a memory that only names the tool. Terms match
whole (not inside longer words or paths), case-insensitively.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from pathlib import Path

TYPE_CHECKING = False  # the prompt hook imports this module: typing costs it milliseconds
if TYPE_CHECKING:
    from typing import Any

GLOSSARY = Path(__file__).with_name("data") / "concepts.txt"


@functools.lru_cache(maxsize=1)
def _glossary() -> tuple[re.Pattern[str], dict[str, str], str]:
    category_of = _terms()
    pattern = re.compile(r"(?<![\w./-])" + _trie(category_of) + r"(?![\w-]|\.\w)", re.IGNORECASE)
    return pattern, category_of, version()


@functools.lru_cache(maxsize=1)
def _terms() -> dict[str, str]:
    """term → its category (the glossary parsed only: no pattern compiled)."""
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
    return category_of


def _trie(terms: Iterable[str]) -> str:
    """One regular expression for all `terms`, shaped as their letter trie: a position is tried
    against the letters that can follow, not against every term in turn (thousands of terms
    cost microseconds, not milliseconds). Longer terms win; a shorter one is tried when the
    longer one does not end at a word boundary."""
    root: dict[str, Any] = {}
    for term in terms:
        node = root
        for char in term:
            node = node.setdefault(char, {})
        node[""] = {}

    def pattern(node: dict[str, Any]) -> str:
        branches = [re.escape(char) + pattern(child) for char, child in sorted(node.items()) if char]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 and "" not in node else "(?:" + "|".join(branches) + ")"
        return body + "?" if "" in node else body

    return pattern(root)


def terms() -> dict[str, str]:
    """Every glossary term (lowercased) and its category."""
    return _terms()


def categories(text: str) -> list[str]:
    """The categories of the glossary terms named in `text`, in order of first mention."""
    pattern, category_of, _ = _glossary()
    seen: dict[str, None] = {}
    for match in pattern.finditer(text):
        seen.setdefault(category_of[match.group(0).lower()], None)
    return list(seen)


_EDGE = "\"'`,;:!?()[]{}<>*"
MAX_TERM_WORDS = 3
_POSSESSIVE = re.compile(r"['’]s$")
_JOINED = re.compile(r"[/,]")


def named(text: str) -> list[str]:
    """`categories` for a short text (a question) without compiling the glossary's pattern: its
    whitespace-separated words (edge punctuation stripped, a final full stop too) and runs of up
    to `MAX_TERM_WORDS` of them looked up whole; "Ruff's" is "ruff"). Cheap enough for the prompt
    hook, which must not pay the pattern's compilation (half a second) on a prompt or an index build."""
    category_of = _terms()
    words = []
    for raw in text.split():
        word = _POSSESSIVE.sub("", raw.strip(_EDGE).rstrip(".").lower())
        if word in category_of or not _JOINED.search(word):
            words.append(word)
        else:  # "pnpm/yarn", "pytest,and": each part on its own
            words.extend(_POSSESSIVE.sub("", part.strip(_EDGE).rstrip(".")) for part in _JOINED.split(word) if part)
    seen: dict[str, None] = {}
    i = 0
    while i < len(words):
        for size in range(min(MAX_TERM_WORDS, len(words) - i), 0, -1):
            term = " ".join(words[i:i + size])
            if term in category_of:
                seen.setdefault(category_of[term], None)
                i += size - 1
                break
        i += 1
    return list(seen)


@functools.lru_cache(maxsize=1)
def version() -> str:
    """A short digest of the glossary, part of the embedder's fingerprint."""
    import hashlib  # not at import: the prompt hook reads the glossary without it

    return hashlib.sha256(GLOSSARY.read_bytes()).hexdigest()[:8]


def note(text: str) -> str:
    """What the embedder appends to `text`: its categories in brackets ("(package manager;
    test framework)"), or "" when it names no glossary term."""
    found = categories(text)
    return f"({'; '.join(found)})" if found else ""
