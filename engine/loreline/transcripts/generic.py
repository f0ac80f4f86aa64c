"""A generic chat log: one `{"role", "content"}` object per line.

`role` `user` and `assistant` are kept; `system` and `tool` (and anything else) are dropped
as `role:<role>`. `content` is a string or a list of Anthropic-style blocks: `text` is
kept, `tool_use` inputs are read for the files they name, other blocks are dropped as
`block:<type>`. Optional per-line fields: `timestamp` (ISO-8601 string), `cwd` (the
project folder; the first one wins) and `session_id`. Each line is one whole message, so
two assistant lines in a row are two turns.
"""

from __future__ import annotations

from typing import Any

from ..models import ParseStats
from .base import ReaderBase, content_blocks, strip_injected


def looks_like(record: dict[str, Any]) -> bool:
    """A `{"role", "content"}` line without the `type`/`message` keys other formats carry."""
    return (isinstance(record.get("role"), str) and "content" in record
            and "type" not in record and "message" not in record)


class GenericReader(ReaderBase):
    tool = "generic"

    def __init__(self, stats: ParseStats) -> None:
        super().__init__(stats)

    def feed(self, lineno: int, record: dict[str, Any]) -> None:
        self._note_identity(record)
        role = record.get("role")
        if role not in ("user", "assistant"):
            self.stats.drop(f"role:{role}" if isinstance(role, str) else "role:unknown")
            return
        content = record.get("content")
        stamp = record.get("timestamp") if isinstance(record.get("timestamp"), str) else None
        parts = content_blocks(content, self.stats)
        texts, files = parts if parts is not None else ([], [])
        text = strip_injected("\n\n".join(texts), self.stats) if texts else ""
        if role == "user":
            if text:
                self.builder.add("user", text, lineno, stamp)
        else:
            self.builder.add_assistant(text, lineno, stamp, files, merge=False)

    def _note_identity(self, record: dict[str, Any]) -> None:
        if self.cwd is None and isinstance(record.get("cwd"), str) and record["cwd"]:
            self.cwd = record["cwd"]
        if self.session_id is None and isinstance(record.get("session_id"), str) and record["session_id"]:
            self.session_id = record["session_id"]
        if self.started_at is None and isinstance(record.get("timestamp"), str):
            self.started_at = record["timestamp"]
