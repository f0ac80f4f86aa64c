"""The model brief: one forced `write_brief` call that writes a project's brief from its memories.

The call goes through the `distill.ToolCaller` every model call uses (retries, usage metering,
the unattended daily cap). The model sees the memories alone, numbered 1… in priority order
(`priority.rank`), with their kind, whether a person pinned them, in how many sessions they
were said, whether they corrected an earlier statement and whether the person asked for them to be
remembered; never a memory id, a time or a
path of the machine. So the user message is a function of the memories alone, and a recorded
answer (keyed by the prompt, the message, the schema and the model) replays.

Every line of the answer is checked: its citations are numbers it was given (mapped back to
the memories), at least one, and its claims occur in them (`claims.problem`). A line that fails
is dropped and counted by reason; an answer that is not a `write_brief` call at all raises
`ModelOutputError` (the caller writes the rules brief instead).
"""

from __future__ import annotations

import functools
from importlib import resources
from typing import TYPE_CHECKING, Any

from ..errors import ModelOutputError
from . import block, claims, priority
from .model import BY_MODEL, Line, Written
from .topics import topic

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..distill import ToolCaller
    from ..models import Memory

#: at most this many memories are sent (the first by priority)
MAX_NOTES = 150
#: and at most this many characters of them
MAX_NOTES_CHARS = 40_000
MAX_CITES = 12
MAX_FILES = 3
#: output tokens one answer may use
MAX_OUTPUT_TOKENS = 2048

WRITE_BRIEF: dict[str, Any] = {
    "name": "write_brief",
    "description": "Record the project brief: short lines grouped by topic, each citing the numbers of the "
                   "notes it rests on.",
    "input_schema": {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "sections": {
                "type": "array",
                "maxItems": len(block.TOPICS),
                "items": {
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {
                        "topic": {"type": "string", "enum": list(block.TOPIC_KEYS)},
                        "lines": {
                            "type": "array",
                            "maxItems": block.MAX_LINES,
                            "items": {
                                "type": "object",
                                "additionalProperties": False,
                                "properties": {
                                    "text": {"type": "string", "maxLength": block.MAX_LINE_CHARS},
                                    "memories": {"type": "array", "minItems": 1, "maxItems": MAX_CITES,
                                                 "items": {"type": "integer"},
                                                 "description": "the numbers (n) of the notes this line rests on"},
                                },
                                "required": ["text", "memories"],
                            },
                        },
                    },
                    "required": ["topic", "lines"],
                },
            },
        },
        "required": ["sections"],
    },
}


@functools.cache
def instructions() -> str:
    """The brief prompt, shipped as package data."""
    return resources.files("loreline.brief").joinpath("prompts/brief.md").read_text(encoding="utf-8")


def notes(memories: Sequence[Memory]) -> list[Memory]:
    """The memories the model is shown, in the order it sees them (numbered from 1)."""
    ranked = priority.rank(memories, {m.id: topic(m) for m in memories})
    shown: list[Memory] = []
    used = 0
    for memory in ranked[:MAX_NOTES]:
        used += len(memory.text)
        if used > MAX_NOTES_CHARS:
            break
        shown.append(memory)
    return shown


def user_message(shown: Sequence[Memory], max_tokens: int) -> str:
    """The notes as the model reads them: a deterministic function of the memories."""
    body = "\n".join(_note(n, m) for n, m in enumerate(shown, start=1))
    return (f"<notes>\n{body}\n</notes>\n\nCall write_brief with the brief of these notes: at most "
            f"{block.MAX_LINES} lines and about {max_tokens * 4} characters in all.")


def _note(n: int, memory: Memory) -> str:
    marks = [f'n="{n}"', f'kind="{memory.kind}"', f'sessions="{max(priority.sessions(memory), 1)}"']
    if memory.pinned:
        marks.append('pinned="yes"')
    if memory.replaces is not None:
        marks.append('corrects="yes"')
    if memory.asked:
        marks.append('asked="yes"')
    if memory.files:
        marks.append(f'files="{_escape(", ".join(memory.files[:MAX_FILES]))}"')
    return f"<note {' '.join(marks)}>{_escape(' '.join(memory.text.split()))}</note>"


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def write(client: ToolCaller, model: str, memories: Sequence[Memory], max_tokens: int) -> Written:
    """The model's brief of `memories`: the lines that pass the check, and what was dropped."""
    shown = notes(memories)
    answer, _ = client.call_tool(WRITE_BRIEF, instructions(), user_message(shown, max_tokens),
                                 max_tokens=MAX_OUTPUT_TOKENS)
    return parse(answer, shown, model)


def parse(answer: dict[str, Any], shown: Sequence[Memory], model: str) -> Written:
    """The `write_brief` input as checked lines (see the module's docstring)."""
    sections = answer.get("sections")
    if not isinstance(sections, list):
        raise ModelOutputError("write_brief input has no sections list")
    dropped: dict[str, int] = {}
    lines: list[Line] = []
    for section in sections:
        for text, cited, why in _lines(section, shown):
            if why is None:
                lines.append(Line(section["topic"], text, tuple(m.id for m in cited), BY_MODEL))
            else:
                reason = why.split(":", 1)[0]
                dropped[reason] = dropped.get(reason, 0) + 1
    return Written(tuple(lines), model, dropped)


def _lines(section: Any, shown: Sequence[Memory]) -> list[tuple[str, list[Memory], str | None]]:
    """Each line of a section: (text, the memories it cites, why it is dropped or None)."""
    raw = section.get("lines") if isinstance(section, dict) else None
    if not isinstance(raw, list):
        return [("", [], claims.SHAPE)]
    if section.get("topic") not in block.TOPIC_KEYS:
        return [("", [], claims.SHAPE)] * len(raw)
    return [_checked(item, shown) for item in raw]


def _checked(item: Any, shown: Sequence[Memory]) -> tuple[str, list[Memory], str | None]:
    text = item.get("text") if isinstance(item, dict) else None
    numbers = item.get("memories") if isinstance(item, dict) else None
    if not isinstance(text, str) or not text.strip() or len(text) > block.MAX_LINE_CHARS or \
            not isinstance(numbers, list):
        return ("", [], claims.SHAPE)
    text = " ".join(text.split())
    if not numbers:
        return (text, [], claims.NO_SOURCE)
    if any(isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= len(shown) for n in numbers):
        return (text, [], claims.UNKNOWN_SOURCE)
    cited = list({shown[n - 1].id: shown[n - 1] for n in numbers}.values())
    return (text, cited, claims.problem(text, cited))
