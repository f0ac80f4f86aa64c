"""What model calls cost: per-day token counts, the spend gate, and a price estimate.

Invariants:
- every completed model call is recorded in `usage` (one row per local day, backend,
  model, attended/unattended) in its own small transaction, before its answer is used;
- attended work (a person ran a command) is never stopped here, only counted; unattended
  work (the worker, hooks) stops at whichever comes first of `limits.daily_unattended_calls`
  calls and `limits.daily_unattended_tokens` tokens per local day: `Meter.before_call` raises
  CapReachedError *before* spending (the tokens checked are those spent so far plus the
  call's own chars/4 estimate), and the caller defers the job to the next day;
- a login or API that says its usage limit or a rate limit is reached starts a cooldown of
  that backend (`capture.cooldown`, until the time it named, else `DEFAULT_COOLDOWN_SECONDS`),
  whoever made the call; unattended calls of that backend are refused with UsageLimitError
  until it lifts, and a call of it that succeeds lifts it early;
- dollar figures are estimates from the list prices below, labelled as such.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime

from .capture import cooldown
from .errors import CapReachedError, UsageLimitError
from .models import Limit, Usage
from .records import record
from .store import Store
from .store import usage as table

CAP_KEY = "limits.daily_unattended_calls"
TOKENS_KEY = "limits.daily_unattended_tokens"
#: a limit that names no reset time pauses its backend this long
DEFAULT_COOLDOWN_SECONDS = 30 * 60
#: and none pauses it longer than this, whatever it said
MAX_COOLDOWN_SECONDS = 7 * 24 * 3600
#: added to a reset time a limit named (the CLIs name it to the minute)
COOLDOWN_MARGIN_SECONDS = 60
CAP_REACHED = "DAILY CAP REACHED"
BUDGET_REACHED = "DAILY TOKEN BUDGET REACHED"


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


def tokens_on(store: Store, day: str, *, attended: bool) -> int:
    return table.tokens_on(store, day, attended=attended)


def cap_message(used: int, cap: int) -> str:
    return (f"{CAP_REACHED}: {used}/{cap} unattended model calls today; capture is paused until "
            f"tomorrow (raise {CAP_KEY})")


def budget_message(used: int, asked: int, budget: int) -> str:
    ask = f" and the next call needs ≈ {asked:,}" if asked and used < budget else ""
    return (f"{BUDGET_REACHED}: {used:,} of {budget:,} unattended tokens used today{ask}; capture is paused "
            f"until tomorrow (raise {TOKENS_KEY})")


def cooldown_message(backend: str, entry: dict[str, object]) -> str:
    return f"COOLDOWN: {cooldown.line(backend, entry)}"


class Meter:
    """Counts one run's model calls into the store and enforces the spend gate: the unattended
    calls and tokens a day, and the cooldown of a backend whose limit was reached."""

    def __init__(self, store: Store, *, backend: str, model: str, attended: bool, daily_cap: int | None = None,
                 daily_tokens: int | None = None) -> None:
        self.store = store
        self.backend = backend
        self.model = model
        self.attended = attended
        self.daily_cap = daily_cap if daily_cap is not None else _configured(CAP_KEY)
        self.daily_tokens = daily_tokens if daily_tokens is not None else _configured(TOKENS_KEY)
        self.total = Usage()

    def before_call(self, estimated_input_tokens: int = 0) -> None:
        """Refuse an unattended call before spending: UsageLimitError while the backend cools
        down, CapReachedError when today's calls are used up or the call would go past today's
        tokens."""
        if self.attended:
            return
        held = cooldown.of(self.backend)
        if held is not None:
            raise UsageLimitError(cooldown_message(self.backend, held),
                                  Limit(str(held.get("kind") or "usage limit"), str(held.get("said") or ""),
                                        float(held["until"]), str(held.get("by") or "")))
        day = today()
        used = calls_on(self.store, day, attended=False)
        if used >= self.daily_cap:
            raise CapReachedError(cap_message(used, self.daily_cap))
        spent = tokens_on(self.store, day, attended=False)
        if spent + max(0, estimated_input_tokens) > self.daily_tokens:
            raise CapReachedError(budget_message(spent, estimated_input_tokens, self.daily_tokens))

    def record(self, usage: Usage) -> None:
        self.total = self.total + usage
        with self.store.write():
            table.add(self.store, today(), self.backend, self.model, self.attended, usage)
        cooldown.lift(self.backend)  # it answered: whatever limit it reported has lifted

    def limited(self, limit: Limit) -> None:
        """The backend said its limit is reached: every unattended run of it waits until the
        time it named (at most MAX_COOLDOWN_SECONDS), or DEFAULT_COOLDOWN_SECONDS."""
        cooldown.save(self.backend, cooldown_entry(limit))


def cooldown_entry(limit: Limit, now: float | None = None) -> dict[str, object]:
    moment = time.time() if now is None else now
    stated = limit.until is not None and limit.until > moment
    until = (limit.until + COOLDOWN_MARGIN_SECONDS if stated and limit.until is not None
             else moment + DEFAULT_COOLDOWN_SECONDS)
    return {"kind": limit.kind, "by": limit.by, "said": limit.said[:300], "since": round(moment, 3),
            "until": round(min(until, moment + MAX_COOLDOWN_SECONDS), 3), "stated": stated}


def _configured(key: str) -> int:
    from . import config

    return config.load().get_int(key)


def cost_line(model: str, usage: Usage) -> str:
    """The end-of-import line: calls, tokens by kind, and an estimated price."""
    dollars = cost(model, usage)
    price = f"≈ ${dollars:.4f} (estimate at list prices)" if dollars is not None else f"no price known for {model}"
    return (f"Model use: {usage.calls} calls to {model} · input {usage.input_tokens:,} tokens"
            f" + cache read {usage.cache_read_tokens:,} + cache write {usage.cache_creation_tokens:,}"
            f" · output {usage.output_tokens:,} · {price}")


def estimate_line(model: str, chunks: int, input_tokens: int, sessions: int | None = None) -> str:
    """The dry-run line: what an import would send (sessions, calls, tokens), with no call made."""
    dollars = cost(model, Usage(input_tokens=input_tokens))
    price = f", ≈ ${dollars:.4f} of input" if dollars is not None else ""
    of = f" from {sessions} session{'' if sessions == 1 else 's'}" if sessions is not None else ""
    return (f"Would send {chunks} chunks ≈ {input_tokens:,} input tokens to {model}: {chunks} model "
            f"call{'' if chunks == 1 else 's'}{of} (chars/4 estimate{price}, output extra); no model call was made.")


def today_summary(store: Store, daily_cap: int | None = None) -> dict[str, object]:
    """Today's model use against the gate, and the cooldowns that hold, for `loreline status`
    (and the editor's status item, the viewer)."""
    day = today()
    cap = daily_cap if daily_cap is not None else _configured(CAP_KEY)
    budget = _configured(TOKENS_KEY)
    unattended = calls_on(store, day, attended=False)
    background_tokens = tokens_on(store, day, attended=False)
    spent = spent_on(store, day)
    return {"day": day, "attended_calls": calls_on(store, day, attended=True), "unattended_calls": unattended,
            "daily_unattended_cap": cap, "cap_reached": unattended >= cap,
            "unattended_tokens": background_tokens, "daily_unattended_tokens": budget,
            "tokens_reached": background_tokens >= budget,
            "input_tokens": spent.input_tokens + spent.cache_read_tokens + spent.cache_creation_tokens,
            "output_tokens": spent.output_tokens, "cooldowns": cooldowns()}


def cooldowns() -> list[dict[str, object]]:
    """The cooldowns that hold now: backend, who said it, what, until when (UTC), and one line."""
    found = []
    for backend, entry in sorted(cooldown.active().items()):
        until = datetime.fromtimestamp(float(entry["until"]), UTC).isoformat(timespec="seconds")
        found.append({"backend": backend, "kind": entry.get("kind"), "by": entry.get("by"), "said": entry.get("said"),
                      "until": until, "stated": bool(entry.get("stated")), "line": cooldown.line(backend, entry)})
    return found
