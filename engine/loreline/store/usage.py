"""The `usage` table: model calls and tokens per day, backend, model and attended-ness.

`loreline.usage` owns the rules (prices, the unattended daily cap); this module only counts.
"""

from __future__ import annotations

from ..models import Usage
from . import Store


def calls_on(store: Store, day: str, *, attended: bool) -> int:
    value = store.scalar("SELECT sum(calls) FROM usage WHERE day = ? AND attended = ?", (day, int(attended)))
    return int(value or 0)


def tokens_on(store: Store, day: str, *, attended: bool) -> int:
    """Every token the day's calls moved: input, cache reads and writes, and output."""
    value = store.scalar("SELECT sum(input_tokens + cache_read_tokens + cache_creation_tokens + output_tokens) "
                         "FROM usage WHERE day = ? AND attended = ?", (day, int(attended)))
    return int(value or 0)


def spent_on(store: Store, day: str) -> Usage:
    row = store.one(
        "SELECT sum(calls), sum(input_tokens), sum(cache_read_tokens), sum(cache_creation_tokens), "
        "sum(output_tokens) FROM usage WHERE day = ?", (day,))
    return Usage(*(int(v or 0) for v in row)) if row else Usage()


def add(store: Store, day: str, backend: str, model: str, attended: bool, spent: Usage) -> None:
    """Add one run's spend to the day's row (inside the caller's transaction)."""
    store.conn.execute(
        "INSERT INTO usage(day, backend, model, attended, calls, input_tokens, cache_read_tokens, "
        "cache_creation_tokens, output_tokens) VALUES(?,?,?,?,?,?,?,?,?) "
        "ON CONFLICT(day, backend, model, attended) DO UPDATE SET calls = calls + excluded.calls, "
        "input_tokens = input_tokens + excluded.input_tokens, "
        "cache_read_tokens = cache_read_tokens + excluded.cache_read_tokens, "
        "cache_creation_tokens = cache_creation_tokens + excluded.cache_creation_tokens, "
        "output_tokens = output_tokens + excluded.output_tokens",
        (day, backend, model, int(attended), spent.calls, spent.input_tokens, spent.cache_read_tokens,
         spent.cache_creation_tokens, spent.output_tokens),
    )
