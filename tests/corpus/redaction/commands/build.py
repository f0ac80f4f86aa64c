"""Build `commands.jsonl`: command lines from public material, their secrets labelled, split in two.

`lines.tsv` (one command line a row: label, form, source, text) marks each secret between
`⟦` and `⟧`; every marked value is a fake of the original's shape (see SOURCES.md). This
script removes the marks and records, per row, the exact secret substrings and their spans.

A row's `split` is `test` when the first byte of sha256("loreline-commands-2026" + source) is
odd, else `tune`: every line from one file (or one tldr page) sits in one half. The split was
written and committed before any rule was written; rules are tuned on `tune` only.

    .venv/bin/python tests/corpus/redaction/commands/build.py   # rewrites commands.jsonl
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "lines.tsv"
OUT = HERE / "commands.jsonl"
SEED = "loreline-commands-2026"
_MARK = re.compile("⟦(.*?)⟧")


def split_of(source: str) -> str:
    return "test" if hashlib.sha256((SEED + source).encode()).digest()[0] & 1 else "tune"


def parse(marked: str) -> tuple[str, list[list[int]], list[str]]:
    """The text without marks, the [start, end) of each secret in it, and the secrets."""
    pieces: list[str] = []
    spans: list[list[int]] = []
    size = last = 0
    for match in _MARK.finditer(marked):
        before = marked[last:match.start()]
        pieces.append(before)
        size += len(before)
        spans.append([size, size + len(match.group(1))])
        pieces.append(match.group(1))
        size += len(match.group(1))
        last = match.end()
    pieces.append(marked[last:])
    text = "".join(pieces)
    return text, spans, [text[a:b] for a, b in spans]


def build() -> list[dict[str, object]]:
    rows = []
    for line in SOURCE.read_text(encoding="utf-8").splitlines():
        if not line or line.startswith("#"):
            continue
        label, form, source, marked = line.split("\t", 3)
        text, spans, secrets = parse(marked)
        if (label == "pos") != bool(secrets):
            raise ValueError(f"a positive needs a marked secret, a negative none: {line}")
        rows.append({"label": label, "form": form, "source": source, "text": text, "spans": spans,
                     "secrets": secrets, "split": split_of(source)})
    return rows


if __name__ == "__main__":
    built = build()
    OUT.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in built), encoding="utf-8")
    print(f"{len(built)} rows -> {OUT}")
