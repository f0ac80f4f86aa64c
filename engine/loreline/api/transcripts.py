"""One session file read as the importer reads it (`loreline transcript`, `loreline redact`):
its cleaned turns, the chunks sent to a model, and the redaction applied before."""

from __future__ import annotations

from ..chunk import account, chunk, left_out, render
from ..pipeline import clean_turns
from ..privacy.display import printable
from ..privacy.identifiers import stored
from ..privacy.redact import redact_counts
from ..privacy.sanitize import sanitize_counts
from ..assistants.registry import READERS, parse

__all__ = ["READERS", "account", "chunk", "clean_turns", "left_out", "parse", "printable", "redact_counts", "render",
           "sanitize_counts", "stored"]
