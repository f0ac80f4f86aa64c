"""Distillers turn a chunk into candidate memories. One module per backend.

Every backend satisfies `Distiller`; `pipeline` picks one and never looks inside it.
"""

from __future__ import annotations

from typing import Protocol

from ..models import Candidate, Chunk


class Distiller(Protocol):
    name: str
    #: part of the replay key: a new policy re-reads what an older one already read
    policy: str

    def distill(self, chunk: Chunk) -> list[Candidate]: ...
