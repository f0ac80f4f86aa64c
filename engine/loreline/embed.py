"""Embedders: text → unit vectors for the vector index.

`HashingEmbedder` is the built-in default: deterministic, offline, no download. It hashes
word unigrams, word bigrams and character trigrams into a fixed number of signed buckets
(the hashing trick), weights them sub-linearly and normalises to unit length, so cosine
distance in `vec0` ranks texts by shared vocabulary and spelling. It is not semantic; a
local model can replace it behind the same protocol, and the store records the embedder's
fingerprint so vectors from different embedders never mix.
"""

from __future__ import annotations

import math
import re
import zlib
from array import array
from typing import Protocol

_WORD = re.compile(r"[a-z0-9_]+|[^\W\d_]+", re.IGNORECASE)


class Embedder(Protocol):
    fingerprint: str
    dim: int

    def embed(self, text: str) -> bytes:
        """A float32 vector of `dim` values as bytes, unit length (or all zero)."""
        ...


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


def default_embedder() -> Embedder:
    return HashingEmbedder()

