"""The registry of assistants Loreline works with: one module, one `Assistant` each.

    from loreline import assistants
    assistants.ALL                 # every assistant, in the order users see them
    assistants.get("codex")        # one by name (KeyError with the known names)
    assistants.names()             # ("claude-code", "codex", "cursor", "gemini")

Adding an assistant is adding one module here (its `ASSISTANT`), a line in `ALL`, and its
tests and fixtures; see docs/assistants.md.
"""

from __future__ import annotations

from .base import Applied, Assistant, Connector, settled
from . import claude_code, codex, cursor, gemini

ALL: tuple[Assistant, ...] = (claude_code.ASSISTANT, codex.ASSISTANT, cursor.ASSISTANT, gemini.ASSISTANT)
_BY_NAME = {assistant.name: assistant for assistant in ALL}

__all__ = ["ALL", "Applied", "Assistant", "Connector", "get", "names", "connectable", "settled"]


def names() -> tuple[str, ...]:
    return tuple(_BY_NAME)


def get(name: str) -> Assistant:
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(f"unknown assistant {name!r} (known: {', '.join(_BY_NAME)})") from None


def connectable() -> tuple[Assistant, ...]:
    """The assistants `loreline connect` can install capture into."""
    return tuple(assistant for assistant in ALL if assistant.connector is not None)
