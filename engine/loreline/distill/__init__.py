"""Distillers turn a chunk into candidate memories. One module per backend.

Every backend satisfies `Distiller`; `pipeline` picks one and never looks inside it. A
backend that spends money on a model also satisfies `Metered`: the pipeline hands it a
usage meter (recording tokens, enforcing the unattended daily cap) and, on dry runs, asks
it for an estimate instead of a call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

from ..models import Candidate, Chunk

if TYPE_CHECKING:
    from ..usage import Meter


class Distiller(Protocol):
    name: str
    #: part of the replay key: a new policy re-reads what an older one already read
    policy: str

    def distill(self, chunk: Chunk) -> list[Candidate]: ...


@runtime_checkable
class Metered(Protocol):
    model: str

    def attach(self, meter: Meter) -> None: ...

    def estimate(self, chunk: Chunk) -> int:
        """Input tokens one call for `chunk` would send (a chars/4 estimate; no call)."""
        ...
