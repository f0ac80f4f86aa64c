"""Distillers turn a chunk into candidate memories. One module per backend.

Every backend satisfies `Distiller`; `pipeline` picks one and never looks inside it. A
backend that spends money on a model also satisfies `Metered`: the pipeline hands it a
`UsageMeter` (recording tokens, enforcing the spend gate: the unattended daily calls and
tokens, and a backend's cooldown after it reported its limit; `usage.Meter` is the one the
pipeline uses) and, on dry runs, asks it for an estimate instead of a call. A new backend
gets the gate by building its client on `caller.MeteredCaller`, which asks the meter before
each call (with the call's chars/4 estimate), records the tokens after, and reports a
`UsageLimitError` the client raised (`MeteredCaller._limit_reached`) to the meter.

This package knows neither the store nor the belief layer: which backend runs, with which
key and judge, is decided by `loreline.backends`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

from ..models import Candidate, Chunk, Limit, Usage


class Distiller(Protocol):
    name: str
    #: part of the replay key: a new policy re-reads what an older one already read
    policy: str

    def distill(self, chunk: Chunk) -> list[Candidate]: ...


class UsageMeter(Protocol):
    """What a paying backend reports its spending to."""

    def before_call(self, estimated_input_tokens: int = 0) -> None:
        """Refuse a call before spending: CapReachedError when today's calls or tokens (those
        spent plus this call's estimate) are used up, UsageLimitError while the backend cools down."""
        ...

    def record(self, usage: Usage) -> None:
        """Count one completed call (before its answer is used)."""
        ...

    def limited(self, limit: Limit) -> None:
        """The backend said its usage limit or a rate limit is reached (start its cooldown)."""
        ...


class ToolCaller(Protocol):
    """One forced tool call to a model: the answer is the tool's input (see `anthropic`).

    Calls are counted by `meter` when one is attached."""

    meter: UsageMeter | None

    def call_tool(self, tool: Mapping[str, Any], system: str, user: str, *,
                  max_tokens: int | None = None) -> tuple[dict[str, Any], Usage]: ...


@runtime_checkable
class Metered(Protocol):
    model: str

    def attach(self, meter: UsageMeter) -> None: ...

    def estimate(self, chunk: Chunk) -> int:
        """Input tokens one call for `chunk` would send (a chars/4 estimate; no call)."""
        ...
