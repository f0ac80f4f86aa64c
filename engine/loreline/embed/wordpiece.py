"""Word-piece tokenization for the bundled sentence model (uncased BERT rules).

The text is cleaned (control characters dropped, every kind of whitespace a space), Chinese,
Japanese and Korean ideographs are set apart, letters lower-cased with their accents removed,
and punctuation split off; each word is then cut into the longest pieces of the vocabulary
from its start, continuations marked `##`. A word with no such cut, or longer than
`MAX_WORD_CHARS`, is one unknown piece. The result matches the model's own tokenizer, which
tests check against the `tokenizers` library when it is installed.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path

MAX_WORD_CHARS = 100
CACHE_WORDS = 50_000
UNKNOWN = "[UNK]"
START = "[CLS]"
END = "[SEP]"

_CJK = ((0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F), (0x2B740, 0x2B81F),
        (0x2B820, 0x2CEAF), (0xF900, 0xFAFF), (0x2F800, 0x2FA1F))


class WordPiece:
    def __init__(self, vocab_file: Path) -> None:
        pieces = vocab_file.read_text(encoding="utf-8").split("\n")
        if pieces and pieces[-1] == "":
            pieces.pop()
        self.ids = {piece: index for index, piece in enumerate(pieces)}
        self.unknown = self.ids[UNKNOWN]
        self.start = self.ids[START]
        self.end = self.ids[END]
        self._cache: dict[str, tuple[int, ...]] = {}

    def encode(self, text: str, max_pieces: int) -> list[int]:
        """[CLS] pieces… [SEP], at most `max_pieces` ids in all."""
        out = [self.start]
        room = max_pieces - 1
        for word in words(text):
            for piece in self._pieces(word):
                if len(out) >= room:
                    out.append(self.end)
                    return out
                out.append(piece)
        out.append(self.end)
        return out

    def _pieces(self, word: str) -> tuple[int, ...]:
        cached = self._cache.get(word)
        if cached is None:
            if len(self._cache) >= CACHE_WORDS:
                self._cache.clear()
            cached = self._cache[word] = self._cut(word)
        return cached

    def _cut(self, word: str) -> tuple[int, ...]:
        if len(word) > MAX_WORD_CHARS:
            return (self.unknown,)
        out: list[int] = []
        start = 0
        while start < len(word):
            end = len(word)
            found = None
            while start < end:
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                found = self.ids.get(piece)
                if found is not None:
                    break
                end -= 1
            if found is None:
                return (self.unknown,)
            out.append(found)
            start = end
        return tuple(out)


def words(text: str) -> list[str]:
    """Cleaned, lower-cased, accent-free words with punctuation split off, in order."""
    spaced: list[str] = []
    for char in text:
        code = ord(char)
        if code == 0 or code == 0xFFFD:
            continue
        if _is_space(char):
            spaced.append(" ")
        elif _is_control(char):
            continue
        elif _is_cjk(code):
            spaced.append(f" {char} ")
        else:
            spaced.append(char)
    out: list[str] = []
    for token in "".join(spaced).split():
        token = _strip_accents(token.lower())
        current: list[str] = []
        for char in token:
            if _is_punctuation(char):
                if current:
                    out.append("".join(current))
                    current = []
                out.append(char)
            else:
                current.append(char)
        if current:
            out.append("".join(current))
    return out


def _strip_accents(token: str) -> str:
    if token.isascii():
        return token
    return "".join(c for c in unicodedata.normalize("NFD", token) if unicodedata.category(c) != "Mn")


def _is_space(char: str) -> bool:
    return char in " \t\n\r" or unicodedata.category(char) == "Zs"


def _is_control(char: str) -> bool:
    return unicodedata.category(char) in ("Cc", "Cf") and char not in "\t\n\r"


def _is_cjk(code: int) -> bool:
    return any(low <= code <= high for low, high in _CJK)


def _is_punctuation(char: str) -> bool:
    code = ord(char)
    if 33 <= code <= 47 or 58 <= code <= 64 or 91 <= code <= 96 or 123 <= code <= 126:
        return True
    return unicodedata.category(char).startswith("P")
