"""Retrieval cues written by a model for a memory that has none (`write_cues`, one call each).

A model backend writes a memory's cues while distilling it (the `questions` and `topics` of
`record_memories`). Memories made otherwise (the offline rules, a person's `loreline remember`,
an import from elsewhere) have only the glossary's topic words; `loreline reembed --cues` asks
the configured model for theirs, one short call per memory, through the same `ToolCaller` as
every model call (usage metered; recorded answers replay it). Only the memory's kind and text
are sent: they are stored redacted.
"""

from __future__ import annotations

import functools
from importlib import resources
from typing import Any

from ..errors import ModelOutputError
from . import ToolCaller
from .anthropic import MAX_CUE_CHARS, MAX_CUE_QUESTIONS, MAX_CUE_TOPICS, cues

CUES_TOOL: dict[str, Any] = {
    "name": "write_cues",
    "description": "Record the questions this note answers and its topic words.",
    "input_schema": {
        "type": "object",
        "properties": {
            "questions": {"type": "array", "maxItems": MAX_CUE_QUESTIONS, "items": {"type": "string",
                                                                                   "maxLength": MAX_CUE_CHARS}},
            "topics": {"type": "array", "maxItems": MAX_CUE_TOPICS, "items": {"type": "string",
                                                                             "maxLength": MAX_CUE_CHARS}},
        },
        "required": ["questions", "topics"],
    },
}


@functools.cache
def instructions() -> str:
    return resources.files("loreline.distill").joinpath("prompts/cues.md").read_text(encoding="utf-8")


def user_message(kind: str, text: str) -> str:
    return f'<note kind="{kind}">{text}</note>\n\nCall write_cues with the questions and topic words for this note.'


def write(client: ToolCaller, kind: str, text: str) -> str:
    """The cue text (questions a line each, then the topic words) a model writes for a memory."""
    answer, _ = client.call_tool(CUES_TOOL, instructions(), user_message(kind, text), max_tokens=400)
    written = cues(answer.get("questions"), answer.get("topics"))
    if not written:
        raise ModelOutputError("the model wrote no usable cues")
    return written
