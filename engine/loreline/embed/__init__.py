"""Embedders: text → unit vectors for the vector index.

Every embedder follows one protocol (`Embedder`): a `fingerprint` naming the model and its
settings, a dimension, and `embed(text) -> bytes` (float32, unit length, or all zero when the
text has nothing to embed). The store is stamped with the fingerprint of the embedder that
wrote its vectors (`loreline.vectors`), so vectors from two embedders never mix.

- `hashing` (`HashingEmbedder`): the hashing trick over words, bigrams and character
  trigrams. Deterministic, no model; compares spelling, not meaning.
- `minilm` (`MiniLMEmbedder`, the default): a six-layer sentence transformer shipped inside
  Loreline (int8, about 22 MB) and run with numpy, each text embedded with the categories of
  the developer tools it names (`concepts`). Compares meaning: "which package manager?" finds
  "we use pnpm". A few milliseconds per query; loaded on first use, never downloaded.
- `static` (`StaticEmbedder`, optional): a static word-piece embedding table shipped inside
  an installed package (the `wordllama` wheel's 256-dimension model), read row by row from a
  memory map; the sentence vector is the mean of its pieces' vectors.

`embed.model` in the config picks one by name; docs/benchmarks.md compares them on the
retrieval eval. A store keeps the embedder that made its vectors until `loreline reembed`:
when the config does not name a model, a store stamped by another known embedder goes on
with that one (so an upgrade never breaks recall), and `loreline status` says a re-embed
would move it to the default. A `static` choice without the model installed is one clear
error line.
"""

from __future__ import annotations

import functools

TYPE_CHECKING = False  # the prompt hook reads the glossary through this package: typing costs it milliseconds
if TYPE_CHECKING:
    from typing import Protocol
else:
    Protocol = object

DEFAULT_MODEL = "minilm"
MODELS = ("minilm", "hashing", "static")

from .hashing import HashingEmbedder


class Embedder(Protocol):
    fingerprint: str
    dim: int

    def embed(self, text: str) -> bytes:
        """A float32 vector of `dim` values as bytes, unit length (or all zero)."""
        ...


class Stamped(Protocol):
    """Anything that knows which embedder made its vectors (a store: `meta("embedder")`)."""

    def meta(self, key: str) -> str | None: ...


__all__ = ["DEFAULT_MODEL", "Embedder", "HashingEmbedder", "default_embedder"]


def default_embedder(store: Stamped | None = None) -> Embedder:
    """The embedder to use, made once per process: the one `embed.model` names; when the config
    names none, the one that made `store`'s vectors if it is known, else `DEFAULT_MODEL`.
    Recall asks on every query: the config file is parsed again only when it changed."""
    from .. import home

    path = home.config_path()
    try:
        st = path.stat()
        stamp: tuple[int, int] = (st.st_mtime_ns, st.st_size)
    except OSError:
        stamp = (0, -1)
    name = _configured_model(str(path), stamp)
    if name is None:
        name = family(store.meta("embedder")) if store is not None else None
        name = name if name in MODELS else DEFAULT_MODEL
    return by_name(name)


def family(fingerprint: str | None) -> str | None:
    """The model name a fingerprint belongs to (`minilm-l6-…` → `minilm`)."""
    return fingerprint.split("-", 1)[0] if fingerprint else None


@functools.lru_cache(maxsize=8)
def _configured_model(path: str, stamp: tuple[int, int]) -> str | None:
    """The model the config file names, None when it names none."""
    from pathlib import Path

    from .. import config
    from ..errors import ConfigError

    try:
        loaded = config.load(Path(path))
    except ConfigError:
        return None  # a broken config file is reported where it is read for its own sake
    return loaded.get_str("embed.model") if loaded.source("embed.model") == "file" else None


@functools.lru_cache(maxsize=4)
def by_name(name: str) -> Embedder:
    if name == "static":
        from .static import StaticEmbedder

        return StaticEmbedder()
    if name == "minilm":
        from .minilm import MiniLMEmbedder

        return MiniLMEmbedder()
    return HashingEmbedder()
