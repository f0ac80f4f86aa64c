"""What every model client does around one tool call: stop after an outage, meter the call.

`MeteredCaller.call_tool` is the `ToolCaller` both model backends share. Once a call has
given up (the service was down or too slow after the bounded retries), every later call in
the same run is refused at once with `RateLimitedError`, so an import defers its remaining
sessions instead of waiting on each. Every call is checked against the daily cap before it
is made (`UsageMeter.before_call`) and its tokens recorded after (`UsageMeter.record`), also
when the answer then turns out unusable: those tokens were spent. A client supplies `SERVICE`
(how errors name it), `_answer` (make the call) and `_accept` (take the tool input out), and
passes its meter to `__init__`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, NoReturn

from ..errors import RateLimitedError
from ..models import Usage
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
            self.meter.before_call()
        answer, spent = self._answer(tool, system, user, max_tokens or self._max_output_tokens())
        if self.meter is not None:
            self.meter.record(spent)
        return self._accept(answer, tool), spent

    def _answer(self, tool: Mapping[str, Any], system: str, user: str, max_tokens: int) -> tuple[Any, Usage]:
        raise NotImplementedError

    def _accept(self, answer: Any, tool: Mapping[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def _max_output_tokens(self) -> int:
        raise NotImplementedError

    def _give_up(self, why: str) -> NoReturn:
        self._down = f"{self.SERVICE} was unavailable earlier in this run ({why})"
        raise RateLimitedError(f"{self.SERVICE} is unavailable ({why}); deferred: the next run retries")
