"""What every model client does around one tool call: stop after an outage, meter the call.

`MeteredCaller.call_tool` is the `ToolCaller` every model backend shares. Once a call has
given up (the service was down or too slow after the bounded retries, or said its limit is
reached), every later call in the same run is refused at once with `RateLimitedError`, so an
import defers its remaining sessions instead of waiting on each. Every call is checked
against the spend gate before it is made (`UsageMeter.before_call`, with the call's chars/4
estimate) and its tokens recorded after (`UsageMeter.record`), also when the answer then
turns out unusable: those tokens were spent. A client that reads a usage limit or rate limit
in an answer calls `_limit_reached(limit)`: the meter starts the backend's cooldown
(`UsageMeter.limited`) and the call raises UsageLimitError. A client supplies `SERVICE` (how
errors name it), `_answer` (make the call) and `_accept` (take the tool input out), and
passes its meter to `__init__`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, ClassVar, NoReturn

from ..errors import RateLimitedError, UsageLimitError
from ..models import Limit, Usage
from ..records import replace
from . import UsageMeter


class MeteredCaller:
    SERVICE: ClassVar[str] = "the model"

    def __init__(self, meter: UsageMeter | None) -> None:
        self.meter = meter
        self._down: str | None = None  # why the service gave up earlier in this run

    def call_tool(self, tool: Mapping[str, Any], system: str, user: str, *,
                  max_tokens: int | None = None) -> tuple[dict[str, Any], Usage]:
        """Ask the model to answer by calling `tool`; returns the tool input and the tokens spent."""
        if self._down is not None:
            raise RateLimitedError(f"not tried: {self._down}")
        if self.meter is not None:
            self.meter.before_call(estimate(tool, system, user))
        try:
            answer, spent = self._answer(tool, system, user, max_tokens or self._max_output_tokens())
        except UsageLimitError as err:
            if self.meter is not None and isinstance(err.limit, Limit):
                self.meter.limited(err.limit)
            raise
        if self.meter is not None:
            self.meter.record(spent)
        return self._accept(answer, tool), spent

    def _answer(self, tool: Mapping[str, Any], system: str, user: str, max_tokens: int) -> tuple[Any, Usage]:
        raise NotImplementedError

    def _accept(self, answer: Any, tool: Mapping[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def _max_output_tokens(self) -> int:
        raise NotImplementedError

    def _limit_reached(self, limit: Limit) -> NoReturn:
        """The service said its usage limit or a rate limit is reached: no more calls this run,
        and (through the meter) none in the background until it lifts."""
        limit = replace(limit, by=limit.by or self.SERVICE)
        self._down = f"{self.SERVICE} reported its {limit.kind} earlier in this run ({limit.said})"
        raise UsageLimitError(f"{self.SERVICE} reported its {limit.kind} ({limit.said}); deferred: "
                              "background runs wait until it lifts", limit)

    def _give_up(self, why: str) -> NoReturn:
        self._down = f"{self.SERVICE} was unavailable earlier in this run ({why})"
        raise RateLimitedError(f"{self.SERVICE} is unavailable ({why}); deferred: the next run retries")


def estimate(tool: Mapping[str, Any], system: str, user: str) -> int:
    """Input tokens one call sends, by characters / 4: the instructions, the tool and the data."""
    return (len(system) + len(json.dumps(tool, separators=(",", ":"))) + len(user)) // 4
