"""The hashing embedder: the hashing trick over words, word bigrams and character trigrams.

Deterministic and offline; it compares spelling, not meaning. Each feature is hashed into one
of `dim` signed buckets, weighted sub-linearly, and the vector normalised to unit length, so
cosine distance ranks texts by shared vocabulary.
"""

from __future__ import annotations

import math
import re
import zlib
from array import array

_WORD = re.compile(r"[a-z0-9_]+|[^\W\d_]+", re.IGNORECASE)


class HashingEmbedder:
    def __init__(self, dim: int = 256) -> None:
        self.dim = dim
        self.fingerprint = f"hashing-v1-{dim}"

    def embed(self, text: str) -> bytes:
        vector = [0.0] * self.dim
        for feature, weight in _features(text):
            bucket = zlib.crc32(feature.encode("utf-8"))
            sign = 1.0 if bucket & 0x80000000 else -1.0
            vector[bucket % self.dim] += sign * weight
        norm = math.sqrt(sum(v * v for v in vector))
        if norm > 0:
            vector = [v / norm for v in vector]
        return array("f", vector).tobytes()


def _features(text: str) -> list[tuple[str, float]]:
    words = [_stem(w.lower()) for w in _WORD.findall(text)]
    counts: dict[str, float] = {}
    for word in words:
        counts["w:" + word] = counts.get("w:" + word, 0.0) + 1.0
        padded = f" {word} "
        for i in range(len(padded) - 2):
            gram = "c:" + padded[i : i + 3]
            counts[gram] = counts.get(gram, 0.0) + 0.25
    for first, second in zip(words, words[1:]):
        key = f"b:{first} {second}"
        counts[key] = counts.get(key, 0.0) + 0.5
    return [(k, 1.0 + math.log(v) if v >= 1 else v) for k, v in counts.items()]


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word
