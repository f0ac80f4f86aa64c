"""What model calls cost: per-day token counts, the daily cap, and a price estimate.

Invariants:
- every completed model call is recorded in `usage` (one row per local day, backend,
  model, attended/unattended) in its own small transaction, before its answer is used;
- attended work (a person ran a command) is never capped; unattended work (the worker,
  hooks) stops at `limits.daily_unattended_calls` per local day: `Meter.before_call`
  raises CapReachedError *before* spending, and the caller defers the job;
- dollar figures are estimates from the list prices below, labelled as such.
"""

from __future__ import annotations

from datetime import datetime

from .errors import CapReachedError
from .models import Usage
from .records import record
from .store import Store
from .store import usage as table

CAP_KEY = "limits.daily_unattended_calls"


@record
class Price:
    """US dollars per million tokens (cache writes at the 5-minute rate)."""

    input: float
    output: float
    cache_write: float
    cache_read: float


#: list prices by model-name prefix, longest prefix first wins
PRICES: dict[str, Price] = {
    "claude-haiku-4-5": Price(1.00, 5.00, 1.25, 0.10),
    "claude-sonnet-4": Price(3.00, 15.00, 3.75, 0.30),
    "claude-opus-4-5": Price(5.00, 25.00, 6.25, 0.50),
    "claude-opus-4-6": Price(5.00, 25.00, 6.25, 0.50),
    "claude-opus-4": Price(15.00, 75.00, 18.75, 1.50),
    "claude-3-5-haiku": Price(0.80, 4.00, 1.00, 0.08),
    "claude-3-haiku": Price(0.25, 1.25, 0.30, 0.03),
}


def price_of(model: str) -> Price | None:
    for prefix in sorted(PRICES, key=len, reverse=True):
        if model.startswith(prefix):
            return PRICES[prefix]
    return None


def cost(model: str, usage: Usage) -> float | None:
    """Estimated dollars for `usage` on `model`, or None when its price is unknown."""
    price = price_of(model)
    if price is None:
        return None
    return (usage.input_tokens * price.input + usage.output_tokens * price.output
            + usage.cache_creation_tokens * price.cache_write + usage.cache_read_tokens * price.cache_read) / 1e6


def today() -> str:
    """The local calendar day: a person's "tomorrow" is when the cap resets."""
    return datetime.now().astimezone().date().isoformat()


def calls_on(store: Store, day: str, *, attended: bool) -> int:
    return table.calls_on(store, day, attended=attended)


def spent_on(store: Store, day: str) -> Usage:
    return table.spent_on(store, day)


def cap_message(used: int, cap: int) -> str:
    return (f"DAILY CAP REACHED: {used}/{cap} unattended model calls today; capture is paused until "
            f"tomorrow (raise {CAP_KEY})")


class Meter:
    """Counts one run's model calls into the store and enforces the unattended cap."""

    def __init__(self, store: Store, *, backend: str, model: str, attended: bool, daily_cap: int | None = None) -> None:
        self.store = store
        self.backend = backend
        self.model = model
        self.attended = attended
        self.daily_cap = daily_cap if daily_cap is not None else _configured_cap()
        self.total = Usage()

    def before_call(self) -> None:
        """Raise CapReachedError when unattended work has used up today's calls."""
        if self.attended:
            return
        used = calls_on(self.store, today(), attended=False)
        if used >= self.daily_cap:
            raise CapReachedError(cap_message(used, self.daily_cap))

    def record(self, usage: Usage) -> None:
        self.total = self.total + usage
        with self.store.write():
            table.add(self.store, today(), self.backend, self.model, self.attended, usage)


def _configured_cap() -> int:
    from . import config

    return config.load().get_int(CAP_KEY)


def cost_line(model: str, usage: Usage) -> str:
    """The end-of-import line: calls, tokens by kind, and an estimated price."""
    dollars = cost(model, usage)
    price = f"≈ ${dollars:.4f} (estimate at list prices)" if dollars is not None else f"no price known for {model}"
    return (f"Model use: {usage.calls} calls to {model} · input {usage.input_tokens:,} tokens"
            f" + cache read {usage.cache_read_tokens:,} + cache write {usage.cache_creation_tokens:,}"
            f" · output {usage.output_tokens:,} · {price}")


def estimate_line(model: str, chunks: int, input_tokens: int) -> str:
    """The dry-run line: what an import would send, with no call made."""
    dollars = cost(model, Usage(input_tokens=input_tokens))
    price = f", ≈ ${dollars:.4f} of input" if dollars is not None else ""
    return (f"Would send {chunks} chunks ≈ {input_tokens:,} input tokens to {model} (chars/4 estimate{price}, "
            "output extra); no model call was made.")


def today_summary(store: Store, daily_cap: int | None = None) -> dict[str, object]:
    """Today's model use and the cap, for `loreline status` (and the editor's status item)."""
    day = today()
    cap = daily_cap if daily_cap is not None else _configured_cap()
    unattended = calls_on(store, day, attended=False)
    spent = spent_on(store, day)
    return {"day": day, "attended_calls": calls_on(store, day, attended=True), "unattended_calls": unattended,
            "daily_unattended_cap": cap, "cap_reached": unattended >= cap,
            "input_tokens": spent.input_tokens + spent.cache_read_tokens + spent.cache_creation_tokens,
            "output_tokens": spent.output_tokens}
