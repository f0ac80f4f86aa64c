"""Whether a memory carries what a person had to say again: three judges of one repeat.

- **key words** (`carries`): the memory holds every phrase of one of the label's `key`
  alternatives. Loose: a memory that only shares the topic often passes. Kept for comparison.
- **at the claim** (`carries_claim`): the label states the repeat as a `claim` with the `facts` a
  memory must carry, each fact a list of alternative phrases; one memory carries the claim only
  when it holds an alternative of *every* fact. Deterministic, so CI computes it.
- **a model judge** (`ClaimJudge`): one request per repeat through any `ToolCaller` (a model
  backend, or recorded answers: `--judge recorded:DIR`): the claim and the numbered notes, and the
  model names the notes that state the claim so that an assistant would have acted without being
  told. Only the claim and the notes are sent (no labels' phrases, no other request).

Matching is case-insensitive over text with its whitespace collapsed and code quotes dropped.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from loreline.distill import ToolCaller
from loreline.errors import ModelOutputError

PROMPT = Path(__file__).with_name("prompts") / "claim_judge.md"
JUDGE_TOOL: dict[str, Any] = {
    "name": "judge_claim",
    "description": "Record which numbered notes, each on its own, carry the claim.",
    "input_schema": {
        "type": "object",
        "properties": {
            "carried_by": {"type": "array", "items": {"type": "integer"},
                           "description": "numbers of the notes that each state the whole claim; empty if none"},
            "reason": {"type": "string"},
        },
        "required": ["carried_by", "reason"],
    },
}
_QUOTES = re.compile(r"[`\"'“”‘’]")


def normal(text: str) -> str:
    return " ".join(_QUOTES.sub("", text).lower().split())


def carries(memory: str, key: Sequence[Sequence[str]]) -> bool:
    """Key words: every phrase of one alternative is in the memory."""
    text = memory.lower()
    return any(all(phrase.lower() in text for phrase in alternative) for alternative in key)


def carries_claim(memory: str, facts: Sequence[Sequence[str]]) -> bool:
    """At the claim: the memory holds an alternative of every required fact."""
    if not facts:
        return False
    text = normal(memory)
    return all(any(normal(phrase) in text for phrase in fact) for fact in facts)


def user_message(claim: str, notes: Sequence[str]) -> str:
    listed = "\n".join(f"{i}. {note}" for i, note in enumerate(notes, start=1))
    return (f"<claim>{claim}</claim>\n\n<notes>\n{listed}\n</notes>\n\n"
            "Call judge_claim with the numbers of the notes that each, on its own, state the claim.")


class ClaimJudge:
    """The model judge: which of the notes carry the claim (verdicts recorded like any answer)."""

    def __init__(self, client: ToolCaller) -> None:
        self.client = client
        self.prompt = PROMPT.read_text(encoding="utf-8")
        self.unanswered = 0

    def carried_by(self, claim: str, notes: Sequence[str]) -> list[int] | None:
        """The 0-based indexes of the notes that carry the claim; None when the judge gave no
        usable answer (counted in `unanswered`, never read as a verdict)."""
        if not notes:
            return []
        try:
            answer, _ = self.client.call_tool(JUDGE_TOOL, self.prompt, user_message(claim, notes), max_tokens=300)
        except ModelOutputError:
            self.unanswered += 1
            return None
        picked = answer.get("carried_by")
        if not isinstance(picked, list):
            self.unanswered += 1
            return None
        return [n - 1 for n in picked if isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= len(notes)]


def make_judge(backend: str) -> ClaimJudge:
    """A model judge through `backend` (built as an import builds it: a key, a login, or
    `recorded:DIR`)."""
    from loreline import backends
    from loreline.distill.anthropic import ToolDistiller

    distiller = backends.choose(backend).distiller
    if not isinstance(distiller, ToolDistiller):
        raise ValueError(f"--judge needs a model backend or recorded:DIR, not {backend!r}")
    return ClaimJudge(distiller.client)
