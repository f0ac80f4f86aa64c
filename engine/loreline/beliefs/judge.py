"""The model judge of the belief pipeline: `classify_relation` and `judge_conflict`.

Both are tool calls through the same client as the distiller (`distill.ToolCaller`: the
anthropic backend's `ModelClient` or the claude-code backend's `CodeClient`; retries, usage
metering and the daily cap included). Everything sent is already sanitized and redacted:
memory texts and provenance excerpts are stored that way. An answer outside the contract
raises `ModelOutputError`; the caller treats the pair as unclassified.
"""

from __future__ import annotations

import functools
from importlib import resources
from typing import TYPE_CHECKING, Any

from . import RELATIONS, VERDICTS, Context
from ..errors import ModelOutputError
from ..models import Candidate, Memory

if TYPE_CHECKING:
    from ..distill import ToolCaller

CLASSIFY_TOOL: dict[str, Any] = {
    "name": "classify_relation",
    "description": "Record how the new note relates to the existing note.",
    "input_schema": {
        "type": "object",
        "properties": {"relation": {"type": "string", "enum": list(RELATIONS)}, "reason": {"type": "string"}},
        "required": ["relation", "reason"],
    },
}
CLASSIFY_MANY_TOOL: dict[str, Any] = {
    "name": "classify_relations",
    "description": "Record how each numbered pair's new note relates to its existing note.",
    "input_schema": {
        "type": "object",
        "properties": {
            "relations": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"pair": {"type": "integer"},
                                   "relation": {"type": "string", "enum": list(RELATIONS)},
                                   "reason": {"type": "string"}},
                    "required": ["pair", "relation", "reason"],
                },
            },
        },
        "required": ["relations"],
    },
}
#: pairs classified in one call at most (a chunk with more makes more calls)
MANY = 40
JUDGE_TOOL: dict[str, Any] = {
    "name": "judge_conflict",
    "description": "Record which of two contradicting notes holds now.",
    "input_schema": {
        "type": "object",
        "properties": {"verdict": {"type": "string", "enum": list(VERDICTS)}, "reason": {"type": "string"}},
        "required": ["verdict", "reason"],
    },
}


@functools.cache
def _prompt(name: str) -> str:
    return resources.files("loreline.distill").joinpath(f"prompts/{name}.md").read_text(encoding="utf-8")


def _note(label: str, kind: str, text: str, excerpt: str, when: str | None) -> str:
    return (f"<{label} kind=\"{kind}\" said=\"{when or 'unknown'}\">\n<note>{text}</note>\n"
            f"<excerpt>{excerpt}</excerpt>\n</{label}>")


def _existing(memory: Memory) -> str:
    source = memory.provenance[-1] if memory.provenance else None
    return _note("existing", memory.kind, memory.text, source.excerpt if source else "",
                 memory.observed_at or (source.observed_at if source else None))


def _new(candidate: Candidate, ctx: Context) -> str:
    return _note("new", candidate.kind, candidate.text, ctx.provenance.excerpt, ctx.provenance.observed_at)


class ModelJudge:
    def __init__(self, client: ToolCaller) -> None:
        self.client = client

    def classify(self, candidate: Candidate, ctx: Context, existing: Memory) -> tuple[str, str]:
        answer, _ = self.client.call_tool(CLASSIFY_TOOL, _prompt("classify"),
                                          f"{_existing(existing)}\n\n{_new(candidate, ctx)}", max_tokens=300)
        return _pick(answer, "relation", RELATIONS)

    def classify_many(self, pairs: list[tuple[Candidate, Context, Memory]]) -> dict[int, tuple[str, str]]:
        """Every pair's (relation, reason) from one call per `MANY` pairs, keyed by the pair's
        place; a pair the answer leaves out, or names twice, stays unclassified."""
        found: dict[int, tuple[str, str]] = {}
        for start in range(0, len(pairs), MANY):
            batch = pairs[start:start + MANY]
            user = "\n\n".join(f'<pair n="{n}">\n{_existing(m)}\n{_new(c, ctx)}\n</pair>'
                                for n, (c, ctx, m) in enumerate(batch, start=1))
            answer, _ = self.client.call_tool(CLASSIFY_MANY_TOOL, _prompt("classify_many"), user,
                                              max_tokens=120 * len(batch) + 200)
            found.update({start + n - 1: value for n, value in _relations(answer, len(batch)).items()})
        return found

    def judge(self, candidate: Candidate, ctx: Context, existing: Memory) -> tuple[str, str]:
        answer, _ = self.client.call_tool(JUDGE_TOOL, _prompt("judge"),
                                          f"{_existing(existing)}\n\n{_new(candidate, ctx)}", max_tokens=300)
        return _pick(answer, "verdict", VERDICTS)


def _relations(answer: dict[str, Any], count: int) -> dict[int, tuple[str, str]]:
    items = answer.get("relations")
    if not isinstance(items, list):
        raise ModelOutputError("classify_relations input has no relations list")
    seen: dict[int, tuple[str, str]] = {}
    twice: set[int] = set()
    for item in items:
        if not isinstance(item, dict):
            continue
        n = item.get("pair")
        if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= count or item.get("relation") not in RELATIONS:
            continue
        if n in seen:
            twice.add(n)
        reason = item.get("reason")
        seen[n] = (str(item["relation"]), reason.strip()[:500] if isinstance(reason, str) else "")
    return {n: v for n, v in seen.items() if n not in twice}


def _pick(answer: dict[str, Any], field: str, allowed: tuple[str, ...]) -> tuple[str, str]:
    value = answer.get(field)
    if value not in allowed:
        raise ModelOutputError(f"the model answered {field}={value!r}, not one of {', '.join(allowed)}")
    reason = answer.get("reason")
    return str(value), (reason.strip()[:500] if isinstance(reason, str) else "")
