"""Build `commands.jsonl`: command lines from public material, their secrets labelled, in halves.

Each `lines*.tsv` (one command line a row: label, form, source, text) marks each secret between
`⟦` and `⟧`; every marked value is a fake of the original's shape (see SOURCES.md). This
script removes the marks and records, per row, the exact secret substrings and their spans.

Each row says which `round` of collection it came from, the `half` it was in when collected,
and its `split` now: `tune` (rules may be adjusted looking at it) or `test` (held out).

* Round 1 (`lines.tsv`): a row's half was `round 1 test` when the first byte of
  sha256("loreline-commands-2026" + source) is odd, else `round 1 tune` (every line from one
  file or one tldr page in one half). Its test half was seen while rules were being fixed, so
  it is tuning material now: `round 1 test, now tuning`, split `tune`.
* Round 2 (`lines_round2.tsv`): new sources only, collected held out and measured once; seen
  since, so it is tuning material now: `round 2 test, now tuning`, split `tune`.
* Round 3 (`lines_round3.tsv`, when present): new sources only, every row held out (`test`).

    .venv/bin/python tests/corpus/redaction/commands/build.py   # rewrites commands.jsonl
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCES = ((1, HERE / "lines.tsv"), (2, HERE / "lines_round2.tsv"), (3, HERE / "lines_round3.tsv"))
OUT = HERE / "commands.jsonl"
SEED = "loreline-commands-2026"
_MARK = re.compile("⟦(.*?)⟧")


R1_TUNE, R1_SEEN, R2_SEEN, R3_TEST = "round 1 tune", "round 1 test, now tuning", "round 2 test, now tuning", "round 3 test"


def half_of(round_: int, source: str) -> str:
    """The half a row was collected in; round 1 split by a hash of its source."""
    if round_ == 2:
        return R2_SEEN
    if round_ == 3:
        return R3_TEST
    return R1_SEEN if hashlib.sha256((SEED + source).encode()).digest()[0] & 1 else R1_TUNE


def split_of(half: str) -> str:
    """What the rules may look at now: only round 3 is held out."""
    return "test" if half == R3_TEST else "tune"


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
    for round_, path in SOURCES:
        if not path.exists():
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line or line.startswith("#"):
                continue
            label, form, source, marked = line.split("\t", 3)
            text, spans, secrets = parse(marked)
            if (label == "pos") != bool(secrets):
                raise ValueError(f"a positive needs a marked secret, a negative none: {line}")
            half = half_of(round_, source)
            rows.append({"label": label, "form": form, "source": source, "text": text, "spans": spans,
                         "secrets": secrets, "round": round_, "half": half, "split": split_of(half)})
    return rows


if __name__ == "__main__":
    built = build()
    OUT.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in built), encoding="utf-8")
    print(f"{len(built)} rows -> {OUT}")
