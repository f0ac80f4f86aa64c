"""The registry of assistants Loreline works with: one module, one `Assistant` each.

    from loreline import assistants
    assistants.ALL                 # every assistant, in the order users see them
    assistants.get("codex")        # one by name (KeyError with the known names)
    assistants.names()             # ("claude-code", "codex", "cursor", "gemini")

Adding an assistant is adding one module here (its `ASSISTANT`), a line in `ALL`, and its
tests and fixtures; see docs/assistants.md.
"""

from __future__ import annotations

from .base import Applied, Assistant, Connector, LoginBackend, ProjectMemory, SessionFormat, settled
from . import claude_code, codex, cursor, gemini

ALL: tuple[Assistant, ...] = (claude_code.ASSISTANT, codex.ASSISTANT, cursor.ASSISTANT, gemini.ASSISTANT)
_BY_NAME = {assistant.name: assistant for assistant in ALL}

__all__ = ["ALL", "Applied", "Assistant", "Connector", "LoginBackend", "ProjectMemory", "SessionFormat", "login_backends", "get", "names", "connectable", "settled"]


def names() -> tuple[str, ...]:
    return tuple(_BY_NAME)


def get(name: str) -> Assistant:
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(f"unknown assistant {name!r} (known: {', '.join(_BY_NAME)})") from None


def login_backends() -> tuple[str, ...]:
    """The distillation backends that use an assistant's own login, in registry order."""
    return tuple(a.distill_backend for a in ALL if a.distill_backend is not None)


def connectable() -> tuple[Assistant, ...]:
    """The assistants `loreline connect` can install capture into."""
    return tuple(assistant for assistant in ALL if assistant.connector is not None)
