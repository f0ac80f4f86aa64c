"""The sentence embedder: a six-layer MiniLM transformer shipped with Loreline, run with numpy.

The model is all-MiniLM-L6-v2 (Apache-2.0; `data/NOTICE`), a 384-dimension sentence encoder,
stored in `data/minilm-l6.npz` by `scripts/make_minilm.py`: int8 matrices with one scale per
row, float32 biases and norms, about 22 MB. Nothing is downloaded, ever. The forward pass is
the standard BERT encoder (embeddings, six blocks of 12-head self-attention and a GELU
feed-forward layer, each followed by a residual LayerNorm), mean-pooled over the pieces and
normalised: the same vectors as the original model within int8 rounding.

Each text is embedded with the categories of the developer tools it names appended
(`concepts.note`), so "which package manager?" finds "we use pnpm". On this machine a short
query takes a few milliseconds; the weights load on first use (tens of milliseconds), never at
import, so nothing that only might embed pays for them.
"""

from __future__ import annotations

import math
import threading
from array import array
from pathlib import Path
from typing import Any

from . import concepts

DATA = Path(__file__).with_name("data")
WEIGHTS = DATA / "minilm-l6.npz"
VOCAB = DATA / "minilm-vocab.txt"
DIM = 384
HEADS = 12
LAYERS = 6
MAX_PIECES = 256  # the length the model was trained on
EPS = 1e-12


class MiniLMEmbedder:
    """Thread-safe; loads the weights and the vocabulary on first use."""

    def __init__(self) -> None:
        self.dim = DIM
        self.fingerprint = f"minilm-l6-int8-{DIM}-g{concepts.version()}"
        self._lock = threading.Lock()
        self._model: _Model | None = None

    def embed(self, text: str) -> bytes:
        model = self._load()
        ids = model.pieces(text, concepts.note(text))
        if len(ids) <= 2:
            return bytes(4 * self.dim)
        vector = model.forward(ids)
        return array("f", vector.tolist()).tobytes()

    def embed_many(self, texts: list[str]) -> list[bytes]:
        """`embed` of each text, in one pass through the model (the same vectors, faster than one
        call each: short texts cost little more together than alone)."""
        model = self._load()
        pieces = [model.pieces(text, concepts.note(text)) for text in texts]
        wanted = [i for i, ids in enumerate(pieces) if len(ids) > 2]
        out = [bytes(4 * self.dim)] * len(texts)
        if wanted:
            for i, vector in zip(wanted, model.forward_many([pieces[i] for i in wanted]), strict=True):
                out[i] = array("f", vector.tolist()).tobytes()
        return out

    def _load(self) -> _Model:
        if self._model is None:
            with self._lock:
                if self._model is None:
                    self._model = _Model()
        return self._model


class _Model:
    def __init__(self) -> None:
        import numpy as np  # with one BLAS thread (see `loreline/__init__.py`)

        from .wordpiece import WordPiece

        self.np = np
        self.tokenizer = WordPiece(VOCAB)
        with np.load(WEIGHTS) as raw:
            w = {name: raw[name] for name in raw.files}
        self.words_q = w["embeddings.word_embeddings.weight.q"]
        self.words_scale = w["embeddings.word_embeddings.weight.scale"]
        self.positions = _matrix(w, "embeddings.position_embeddings.weight")
        self.type0 = _matrix(w, "embeddings.token_type_embeddings.weight")[0]
        self.norm0 = (w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        self.blocks = [_block(w, f"encoder.layer.{i}.") for i in range(LAYERS)]

    def pieces(self, text: str, suffix: str) -> list[int]:
        tail = self.tokenizer.encode(suffix, MAX_PIECES)[1:] if suffix else []
        head = self.tokenizer.encode(text, MAX_PIECES - len(tail) + 1 if tail else MAX_PIECES)
        return head[:-1] + tail if tail else head

    def forward(self, ids: list[int]) -> Any:
        return self.forward_many([ids])[0]

    def forward_many(self, sequences: list[list[int]]) -> list[Any]:
        """The pooled, normalised vector of each sequence. The sequences run side by side as one:
        each keeps its own positions and attends only to itself (a block mask), so each vector is
        what a pass of that sequence alone gives."""
        np = self.np
        index = np.concatenate([np.asarray(ids, dtype=np.int64) for ids in sequences])
        count = len(index)
        x = self.words_q[index].astype(np.float32) * self.words_scale[index, None]
        x += self.positions[np.concatenate([np.arange(len(ids)) for ids in sequences])] + self.type0
        x = _layer_norm(np, x, *self.norm0)
        mask = None
        if len(sequences) > 1:
            which = np.repeat(np.arange(len(sequences)), [len(ids) for ids in sequences])
            mask = np.where(which[:, None] == which[None, :], 0.0, -1e9).astype(np.float32)
        size = DIM // HEADS
        for qkv_w, qkv_b, out_w, out_b, norm1, up_w, up_b, down_w, down_b, norm2 in self.blocks:
            qkv = x @ qkv_w + qkv_b
            q, k, v = (qkv[:, i * DIM:(i + 1) * DIM].reshape(count, HEADS, size).transpose(1, 0, 2)
                       for i in range(3))
            scores = q @ k.transpose(0, 2, 1) * (1.0 / math.sqrt(size))
            if mask is not None:
                scores += mask
            scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
            scores /= scores.sum(axis=-1, keepdims=True)
            context = (scores @ v).transpose(1, 0, 2).reshape(count, DIM)
            x = _layer_norm(np, x + context @ out_w + out_b, *norm1)
            hidden = x @ up_w + up_b
            hidden = 0.5 * hidden * (1.0 + np.tanh(0.7978845608 * (hidden + 0.044715 * hidden * hidden * hidden)))
            x = _layer_norm(np, x + hidden @ down_w + down_b, *norm2)
        out = []
        start = 0
        for ids in sequences:
            pooled = x[start:start + len(ids)].mean(axis=0)
            start += len(ids)
            norm = float(np.sqrt(pooled @ pooled))
            out.append(pooled / norm if norm else pooled)
        return out


def _matrix(w: dict[str, Any], name: str) -> Any:
    return (w[name + ".q"].astype("float32") * w[name + ".scale"][:, None]).astype("float32")


def _block(w: dict[str, Any], prefix: str) -> tuple[Any, ...]:
    """One encoder block's weights, matrices transposed for `x @ W` and Q, K, V side by side."""
    import numpy as np

    attention = prefix + "attention."
    parts = [attention + f"self.{name}" for name in ("query", "key", "value")]
    qkv_w = np.ascontiguousarray(np.concatenate([_matrix(w, p + ".weight") for p in parts]).T)
    qkv_b = np.concatenate([w[p + ".bias"] for p in parts])
    return (
        qkv_w, qkv_b,
        np.ascontiguousarray(_matrix(w, attention + "output.dense.weight").T), w[attention + "output.dense.bias"],
        (w[attention + "output.LayerNorm.weight"], w[attention + "output.LayerNorm.bias"]),
        np.ascontiguousarray(_matrix(w, prefix + "intermediate.dense.weight").T), w[prefix + "intermediate.dense.bias"],
        np.ascontiguousarray(_matrix(w, prefix + "output.dense.weight").T), w[prefix + "output.dense.bias"],
        (w[prefix + "output.LayerNorm.weight"], w[prefix + "output.LayerNorm.bias"]),
    )


def _layer_norm(np: Any, x: Any, weight: Any, bias: Any) -> Any:
    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    variance = (centred * centred).mean(axis=-1, keepdims=True)
    return centred / np.sqrt(variance + EPS) * weight + bias
