"""The static embedder: a word-piece embedding table, mean-pooled, read from an installed package.

The model is the 256-dimension table that the `wordllama` wheel ships (`weights/*.safetensors`,
float16, one row per token of its `tokenizers/*.json` tokenizer). Loreline does not import
`wordllama` (its loader would try to download the tokenizer): it locates the package's folder,
parses the tokenizer with the `tokenizers` library and reads the table through a memory map,
decoding only the rows a text uses. So loading costs the tokenizer parse (tens of
milliseconds), a query costs well under a millisecond, and nothing is ever downloaded.

A sentence vector is the mean of its pieces' rows, normalised to unit length; a text with no
pieces is the zero vector (no neighbours). Long texts are cut to `MAX_PIECES` pieces.
"""

from __future__ import annotations

import importlib.util
import json
import math
import mmap
import struct
import threading
from array import array
from pathlib import Path
from typing import Any

from ..errors import ConfigError

PACKAGE = "wordllama"
WEIGHTS = "weights/l2_supercat_256.safetensors"
TOKENIZER = "tokenizers/l2_supercat_tokenizer_config.json"
TENSOR = "embedding.weight"
MAX_PIECES = 512


def model_dir() -> Path | None:
    """The installed package's folder, found without importing it (None when absent)."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations)))
    return folder if (folder / WEIGHTS).is_file() and (folder / TOKENIZER).is_file() else None


class StaticEmbedder:
    """Mean of static piece vectors; thread-safe, loads its files on first use."""

    def __init__(self, folder: Path | None = None) -> None:
        found = folder or model_dir()
        if found is None:
            raise ConfigError(f"the static embedding model is not installed (pip install {PACKAGE})")
        self.folder = found
        self.dim = 256
        self.fingerprint = f"static-wordllama-l2-supercat-{self.dim}-v1"
        self._lock = threading.Lock()
        self._table: _Table | None = None
        self._tokenizer: Any = None

    def embed(self, text: str) -> bytes:
        table, tokenizer = self._load()
        ids = tokenizer.encode(text, add_special_tokens=False).ids[:MAX_PIECES]
        total = [0.0] * self.dim
        for token in ids:
            for i, value in enumerate(table.row(token)):
                total[i] += value
        norm = math.sqrt(sum(v * v for v in total))
        if norm == 0.0:
            return bytes(4 * self.dim)
        return array("f", [v / norm for v in total]).tobytes()

    def _load(self) -> tuple[_Table, Any]:
        if self._table is None:
            with self._lock:
                if self._table is None:
                    from tokenizers import Tokenizer

                    self._tokenizer = Tokenizer.from_file(str(self.folder / TOKENIZER))
                    self._table = _Table(self.folder / WEIGHTS, self.dim)
        return self._table, self._tokenizer


class _Table:
    """One float16 matrix of a safetensors file, rows decoded on demand from a memory map."""

    def __init__(self, path: Path, dim: int) -> None:
        with path.open("rb") as handle:
            self._map = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        (header_len,) = struct.unpack_from("<Q", self._map, 0)
        header = json.loads(self._map[8 : 8 + header_len])
        entry = header[TENSOR]
        rows, cols = entry["shape"]
        if entry["dtype"] != "F16" or cols != dim:
            raise ConfigError(f"unexpected embedding table in {path}: {entry['dtype']} {entry['shape']}")
        self._start = 8 + header_len + int(entry["data_offsets"][0])
        self.rows, self._format, self._stride = int(rows), f"<{dim}e", 2 * dim

    def row(self, index: int) -> tuple[float, ...]:
        index = min(max(index, 0), self.rows - 1)
        return struct.unpack_from(self._format, self._map, self._start + index * self._stride)
