"""What model calls cost, as lines for a person: a run's cost, an estimate, the spend gate."""

from __future__ import annotations

from ..usage import (budget_message, cap_message, cooldown_message, cooldowns, cost_line, estimate_line,
                     today_summary)

__all__ = ["budget_message", "cap_message", "cooldown_message", "cooldowns", "cost_line", "estimate_line",
           "gate_problems", "today_summary"]

TYPE_CHECKING = False  # typing is left to the type checker
if TYPE_CHECKING:
    from typing import Any


def gate_problems(spent: dict[str, Any]) -> list[str]:
    """What stops background distillation right now (`usage.today_summary`), one line each:
    a cooldown, the daily cap, the token budget."""
    lines = [f"COOLDOWN: {held['line']}" for held in spent.get("cooldowns", [])]
    if spent["cap_reached"]:
        lines.append(cap_message(spent["unattended_calls"], spent["daily_unattended_cap"]))
    if spent.get("tokens_reached"):
        lines.append(budget_message(spent["unattended_tokens"], 0, spent["daily_unattended_tokens"]))
    return lines
