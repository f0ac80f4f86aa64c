"""Which writing systems a text uses, so the word lists of other languages are searched only
when they could match.

Most kept text is ASCII and pays nothing here. For the rest the text is encoded once; the UTF-8
lead bytes tell accented Latin letters (0xC3), Cyrillic (0xD0, 0xD1) and CJK (0xE3-0xE9: kana,
ideographs) apart from text whose only non-ASCII characters are dashes, quotes, arrows or
check marks, which is treated as ASCII.
"""

from __future__ import annotations

from typing import NamedTuple


class Folded(NamedTuple):
    """A non-ASCII text lower-cased (same length as the text, so offsets match), and its scripts."""

    text: str
    latin: bool
    cyrillic: bool
    cjk: bool


_CJK_LEADS = (b"\xe3", b"\xe4", b"\xe5", b"\xe6", b"\xe7", b"\xe8", b"\xe9")


def fold(text: str) -> Folded | None:
    """None for ASCII text, for text with no accented Latin, Cyrillic or CJK letter, and for
    text whose lower-casing changes its length."""
    if text.isascii():
        return None
    encoded = text.encode("utf-8", "surrogatepass")
    latin = b"\xc3" in encoded
    cyrillic = b"\xd0" in encoded or b"\xd1" in encoded
    cjk = any(lead in encoded for lead in _CJK_LEADS)
    if not (latin or cyrillic or cjk):
        return None
    folded = text.lower()
    return Folded(folded, latin, cyrillic, cjk) if len(folded) == len(text) else None


def find_all(folded: Folded, words: tuple[str, ...], cyrillic: tuple[str, ...], cjk: tuple[str, ...]) -> list[tuple[int, int]]:
    """Where each word of the lists that can match this text occurs: (start, end) pairs."""
    hits: list[tuple[int, int]] = []
    lists = [words] + ([cyrillic] if folded.cyrillic else []) + ([cjk] if folded.cjk else [])
    for group in lists:
        for word in group:
            index = folded.text.find(word)
            while index != -1:
                hits.append((index, index + len(word)))
                index = folded.text.find(word, index + len(word))
    return hits
