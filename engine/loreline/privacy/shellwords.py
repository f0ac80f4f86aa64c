"""A command line read as shell words, cut into commands: what the command rules walk.

A word is whitespace-separated, its quotes kept on it (`"a b"` is one word) and taken off its
value by `unquote`. A line is cut into commands at `|`, `||`, `&&`, `;`, `&`, and after a word
that ends in `;`. Patterns compile on first use (`lazy_patterns`), so importing this costs
nothing on the prose path.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

Span = tuple[int, int, str, int]  # start, end, family, priority
Word = tuple[int, int, str]  # start, end, the word as written

SEPARATORS = frozenset("| || && ; &".split())
_WORD = r"""(?:[^\s"'`]|"(?:[^"\\\n]|\\.){0,400}"|'[^'\n]{0,400}'|`[^`\n]{0,400}`)+"""
_word_re: list[re.Pattern[str]] = []


def lazy_patterns(sources: dict[str, str]) -> Callable[[str], re.Pattern[str]]:
    """A lookup that compiles `sources[name]` the first time `name` is asked for."""
    compiled: dict[str, re.Pattern[str]] = {}

    def pattern(name: str) -> re.Pattern[str]:
        found = compiled.get(name)
        if found is None:
            found = compiled[name] = re.compile(sources[name])
        return found

    return pattern


def words(text: str, start: int, end: int) -> list[Word]:
    """The shell words of text[start:end]."""
    if not _word_re:
        _word_re.append(re.compile(_WORD))
    return [(m.start(), m.end(), m.group()) for m in _word_re[0].finditer(text, start, end)]


def segments(items: list[Word]) -> list[list[Word]]:
    """The words cut into commands at the separators (a trailing `;` ends a command too)."""
    segment: list[Word] = []
    found: list[list[Word]] = []
    for item in items:
        bare = item[2].rstrip(";")
        if item[2] in SEPARATORS:
            found.append(segment)
            segment = []
            continue
        segment.append(item if bare == item[2] else (item[0], item[0] + len(bare), bare))
        if bare != item[2]:
            found.append(segment)
            segment = []
    found.append(segment)
    return found


def basename(word: str) -> str:
    """The command a word names: quotes, `$(` and the path taken off, lower case."""
    bare = word.strip("'\"`()$").lower()
    return bare.rsplit("/", 1)[-1].rsplit("\\", 1)[-1]


def unquote(text: str, start: int, end: int) -> tuple[int, int]:
    """The value of a shell word without its quotes (and a JSON-escaped quote)."""
    if text.startswith('\\"', start) and text.endswith('\\"', start, end) and end - start >= 4:
        return start + 2, end - 2
    if end - start >= 2 and text[start] in "'\"`" and text[end - 1] == text[start]:
        return start + 1, end - 1
    if text[start:start + 1] in ("'", '"'):
        return start + 1, end
    if end > start and text[end - 1] in "'\"":
        return start, end - 1
    return start, end


__all__ = ["Span", "Word", "SEPARATORS", "lazy_patterns", "words", "segments", "basename", "unquote"]
