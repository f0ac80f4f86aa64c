"""What the MCP tools do, over the engine, for one project; answers are compact text.

Every method takes plain values already checked by the server and returns the text the
model reads. A memory of another project is "not found" (its existence is not revealed);
`remember` refuses when the session opted out (`LORELINE_OFF=1`); every error is a
`DeskError` with one line for the model.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from loreline.api import Loreline
from loreline.brief.block import body
from loreline.capture import opted_out
from loreline.errors import LorelineError, NotFoundError
from loreline.models import KINDS, Memory, Provenance

T = TypeVar("T")

MAX_QUERY = 2_000
MAX_TEXT = 1_000
MAX_REASON = 500
MAX_LIMIT = 50
EXCERPT = 200


class DeskError(Exception):
    """A refusal the model should read: one line, no traceback."""


@dataclass(slots=True)
class Desk:
    lore: Loreline
    project: str

    def recall(self, query: str, limit: int) -> str:
        query = _bounded(query.strip(), MAX_QUERY, "query")
        if not query:
            raise DeskError("query is empty")
        hits = _engine(lambda: self.lore.recall(self.project, query, limit=_limit(limit)))
        if not hits:
            return "No memory matches."
        return "\n".join(line(hit.memory) for hit in hits)

    def brief(self) -> str:
        """The project brief each session starts with, as the SessionStart hook gives it."""
        view = _engine(lambda: self.lore.brief(self.project))
        if view is None or not view.brief.lines:
            return "No brief for this project yet; `list_memories` and `recall` find its memories."
        b = view.brief
        head = (f"Project brief, version {b.version} (written by {b.writer}): each line ends with the memories it "
                "rests on; `show_memory` gives their sources, `recall` finds what the brief leaves out.")
        return "\n".join([head, *body([line.row() for line in b.lines])])

    def list_memories(self, kind: str | None, limit: int) -> str:
        if kind is not None and kind not in KINDS:
            raise DeskError(f"kind must be one of {', '.join(KINDS)}")
        page = _engine(lambda: self.lore.memories(self.project, kind=kind, limit=_limit(limit)))
        if not page.items:
            return "No memories for this project yet."
        more = page.total - len(page.items)
        tail = [f"({more} more; ask with a larger limit or a kind)"] if more > 0 else []
        return "\n".join([line(m) for m in page.items] + tail)

    def show_memory(self, memory_id: int) -> str:
        memory = self._own(memory_id, for_model=True)
        sources = [source(p) for p in memory.provenance] or ["(no recorded source)"]
        head = line(memory)
        files = [f"files: {', '.join(memory.files)}"] if memory.files else []
        return "\n".join([head, *files, "sources:", *sources])

    def remember(self, text: str, kind: str, reason: str) -> str:
        if opted_out():  # the server itself is paused then (`server.PausedServer`); kept as a guard
            raise DeskError("Loreline is off for this session (LORELINE_OFF=1); nothing was stored")
        if kind not in KINDS:
            raise DeskError(f"kind must be one of {', '.join(KINDS)}")
        text = _bounded(text.strip(), MAX_TEXT, "text")
        reason = _bounded(reason.strip(), MAX_REASON, "reason")
        if not text or not reason:
            raise DeskError("text and reason are both required")
        kept = _engine(lambda: self.lore.remember(self.project, text, kind, reason=reason, actor="assistant"))
        if kept.status == "held":
            return f"Stored as #{kept.id}, unconfirmed until a person reviews it."
        return f"Already known as #{kept.id} ({kept.status}); recorded this request as one more source."

    def forget(self, memory_id: int) -> str:
        self._own(memory_id)
        gone = _engine(lambda: self.lore.forget(memory_id)).ids
        return f"Forgot #{memory_id}" + (f" and {len(gone) - 1} earlier version(s)." if len(gone) > 1 else ".")

    def _own(self, memory_id: int, for_model: bool = False) -> Memory:
        try:
            memory = self.lore.memory_for_model(memory_id) if for_model else self.lore.memory(memory_id)
        except NotFoundError:
            memory = None
        except LorelineError as err:
            raise DeskError(str(err)) from None
        if memory is None or memory.project != self.project:
            raise DeskError(f"no memory #{memory_id} in this project")
        return memory


def line(m: Memory) -> str:
    """One memory in one line: id, kind, date, status when not active, text."""
    date = (m.observed_at or m.created_at or "")[:10]
    status = "" if m.status == "active" else f", {m.status}"
    pinned = ", pinned" if m.pinned else ""
    return f"#{m.id} {m.kind} ({date}{status}{pinned}) {m.text}"


def source(p: Provenance) -> str:
    excerpt = p.excerpt if len(p.excerpt) <= EXCERPT else p.excerpt[:EXCERPT] + "…"
    where = f"lines {p.line_start}-{p.line_end}" if p.line_end > p.line_start else f"line {p.line_start}"
    return f"- {p.tool} session {p.session_label} {where} ({(p.observed_at or '')[:10]}): {excerpt}"


def _limit(limit: int) -> int:
    if limit < 1 or limit > MAX_LIMIT:
        raise DeskError(f"limit must be between 1 and {MAX_LIMIT}")
    return limit


def _bounded(value: str, most: int, name: str) -> str:
    if len(value) > most:
        raise DeskError(f"{name} is longer than {most:,} characters")
    return value


def _engine(call: Callable[[], T]) -> T:
    try:
        return call()
    except LorelineError as err:
        raise DeskError(str(err)) from None
