"""Embedders: text → unit vectors for the vector index.

Every embedder follows one protocol (`Embedder`): a `fingerprint` naming the model and its
settings, a dimension, and `embed(text) -> bytes` (float32, unit length, or all zero when the
text has nothing to embed). The store is stamped with the fingerprint of the embedder that
wrote its vectors (`loreline.vectors`), so vectors from two embedders never mix.

- `hashing` (`HashingEmbedder`): the hashing trick over words, bigrams and character
  trigrams. Deterministic, no model; compares spelling, not meaning.
- `static` (`StaticEmbedder`, the default): a static word-piece embedding table shipped inside
  an installed package (the `wordllama` wheel's 256-dimension model), read row by row from a
  memory map; the sentence vector is the mean of its pieces' vectors. Knows that "package
  manager" and "pnpm" are related; loads in tens of milliseconds and never downloads anything.

`embed.model` in the config picks one by name; `default_embedder()` answers the configured
one and falls back to `hashing` (with a reason `why_fallback()` reports) when the static
model's files are missing.
"""

from __future__ import annotations

from typing import Protocol

from .hashing import HashingEmbedder


class Embedder(Protocol):
    fingerprint: str
    dim: int

    def embed(self, text: str) -> bytes:
        """A float32 vector of `dim` values as bytes, unit length (or all zero)."""
        ...


__all__ = ["Embedder", "HashingEmbedder", "default_embedder"]


def default_embedder() -> Embedder:
    return HashingEmbedder()
