"""Throughput: the import's read path against bare JSON decoding, and redaction alone.

The floor is the cheapest possible read of the same files: every line read in binary and
passed to `orjson.loads`, nothing else. The measured path is what `pipeline.import_one`
does before the distiller: `registry.parse` (streaming, per-line decode, turn building),
`pipeline.clean_turns` (sanitize + redact every kept text) and `chunk.chunk`. Both are
timed in the same run over the same main session files (the page cache is warmed first),
file by file in alternating order, so load from anything else on the machine falls on both
sides alike; the ratio is taken within that run.
"""

from __future__ import annotations

from pathlib import Path

import orjson

from loreline.assistants import registry
from loreline.chunk import chunk
from loreline.pipeline import clean_turns
from loreline.privacy.redact import redact
from loreline.privacy.sanitize import sanitize

from .registry import Context, Row, mb, median, timed

BUDGET_RATIO = 0.5


def orjson_floor(paths: list[Path]) -> int:
    """Read every line of every file and decode it; returns the lines decoded."""
    decoded = 0
    for path in paths:
        with open(path, "rb") as handle:
            for line in handle:
                if len(line) > 1:
                    orjson.loads(line)
                    decoded += 1
    return decoded


def read_path(paths: list[Path]) -> int:
    """parse → sanitize + redact → chunk for every file; returns the chunks made."""
    made = 0
    for path in paths:
        parsed = registry.parse(path, tool="claude-code").transcript
        turns = clean_turns(parsed.turns)
        made += len(chunk(turns, session_id=parsed.session_id, path=str(path)))
    return made


def paired(paths: list[Path], run: int) -> tuple[float, float]:
    """Seconds of (floor, read path) over all files, timed file by file in alternating order."""
    floor_s = path_s = 0.0
    for index, path in enumerate(paths):
        one = [path]
        if (index + run) % 2 == 0:
            floor_s += timed(lambda: orjson_floor(one))
            path_s += timed(lambda: read_path(one))
        else:
            path_s += timed(lambda: read_path(one))
            floor_s += timed(lambda: orjson_floor(one))
    return floor_s, path_s


def kept_texts(paths: list[Path]) -> list[str]:
    """The text of every kept turn (before sanitizing), as the parser returns it."""
    return [turn.text for path in paths for turn in registry.parse(path, tool="claude-code").transcript.turns]


def pipeline_vs_orjson(ctx: Context) -> list[Row]:
    tree = ctx.main_tree()
    paths = list(tree.sessions)
    orjson_floor(paths)  # warm the page cache and the allocator
    ratios, floor_rates, path_rates = [], [], []
    for run in range(ctx.runs):
        floor_s, path_s = paired(paths, run)
        ratios.append(floor_s / path_s)
        floor_rates.append(mb(tree.main_bytes) / floor_s)
        path_rates.append(mb(tree.main_bytes) / path_s)
    ratio, rate, floor = median(ratios), median(path_rates), median(floor_rates)
    return [Row(
        "parse + sanitize + redact + chunk", f"{ratio:.3f}× orjson.loads ({rate:.0f} vs {floor:.0f} MB/s)",
        ratio, "× orjson.loads", f"≥ {BUDGET_RATIO}× orjson.loads", ratio >= BUDGET_RATIO, ctx.runs,
        {"ratio_runs": ratios, "mb_per_s": rate, "floor_mb_per_s": floor, "raw_mb": mb(tree.main_bytes),
         "sessions": len(paths)},
        f"over {mb(tree.main_bytes):.0f} MB of raw main-session bytes ({len(paths)} sessions)",
    )]


def redaction(ctx: Context) -> list[Row]:
    tree = ctx.main_tree()
    paths = list(tree.sessions)
    texts = kept_texts(paths)
    size = mb(sum(len(t.encode("utf-8")) for t in texts))
    floor = median([mb(tree.main_bytes) / timed(lambda: orjson_floor(paths)) for _ in range(ctx.runs)])
    rows = []
    for name, fn in (("redact alone", redact), ("sanitize alone", sanitize)):
        rate = median([size / timed(lambda: [fn(t) for t in texts]) for _ in range(ctx.runs)])
        rows.append(Row(
            f"{name} (kept text)", f"{rate:.0f} MB/s (parse floor {floor:.0f} MB/s)", rate, "MB/s", "—", None,
            ctx.runs, {"mb_per_s": rate, "floor_mb_per_s": floor, "kept_mb": size, "texts": len(texts)},
            f"{size:.1f} MB of kept text = {100 * size / max(mb(tree.main_bytes), 1e-9):.1f}% of the raw bytes",
        ))
    return rows
