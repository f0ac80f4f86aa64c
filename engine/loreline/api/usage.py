"""What model calls cost, as lines for a person: a run's cost, an estimate, the daily cap."""

from __future__ import annotations

from ..usage import cap_message, cost_line, estimate_line

__all__ = ["cap_message", "cost_line", "estimate_line"]
