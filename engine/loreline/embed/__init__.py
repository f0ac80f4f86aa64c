"""Embedders: text → unit vectors for the vector index.

Every embedder follows one protocol (`Embedder`): a `fingerprint` naming the model and its
settings, a dimension, and `embed(text) -> bytes` (float32, unit length, or all zero when the
text has nothing to embed). The store is stamped with the fingerprint of the embedder that
wrote its vectors (`loreline.vectors`), so vectors from two embedders never mix.

- `hashing` (`HashingEmbedder`): the hashing trick over words, bigrams and character
  trigrams. Deterministic, no model; compares spelling, not meaning.
- `static` (`StaticEmbedder`, optional): a static word-piece embedding table shipped inside
  an installed package (the `wordllama` wheel's 256-dimension model), read row by row from a
  memory map; the sentence vector is the mean of its pieces' vectors. Knows that "package
  manager" and "pnpm" are related; loads in tens of milliseconds and never downloads anything.

`embed.model` in the config picks one by name (`hashing` by default: on the retrieval eval the
static table did not find more answers, see docs/benchmarks.md); a store's vectors are rebuilt
with `loreline reembed` after a change. A `static` choice without the model installed is one
clear error line.
"""

from __future__ import annotations

import functools
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
    """The configured embedder (`embed.model`), made once per process. Recall asks on every
    query: the config file is parsed again only when its size or time changed."""
    from .. import home

    path = home.config_path()
    try:
        st = path.stat()
        stamp: tuple[int, int] = (st.st_mtime_ns, st.st_size)
    except OSError:
        stamp = (0, -1)
    return by_name(_configured_model(str(path), stamp))


@functools.lru_cache(maxsize=8)
def _configured_model(path: str, stamp: tuple[int, int]) -> str:
    from pathlib import Path

    from .. import config
    from ..errors import ConfigError

    try:
        return config.load(Path(path)).get_str("embed.model")
    except ConfigError:
        return "hashing"  # a broken config file is reported where it is read for its own sake


@functools.lru_cache(maxsize=4)
def by_name(name: str) -> Embedder:
    if name == "static":
        from .static import StaticEmbedder

        return StaticEmbedder()
    return HashingEmbedder()
