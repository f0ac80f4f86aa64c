"""Helpers for the brief tests: memories planted through the store's own writers, and a model that
answers `write_brief` from the notes it is sent (through the fake Messages API)."""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Sequence
from typing import Any

from loreline.models import Provenance
from loreline.store import Store
from loreline.store import memories as rows
from tests.fake_anthropic import FakeAnthropic, Recorded, Reply

_NOTE = re.compile(r'<note n="(\d+)"[^>]*>(.*?)</note>')


def add(store: Store, project: str, kind: str, text: str, *, sessions: Sequence[str] = ("s1",),
        pinned: bool = False, files: Sequence[str] = (), said: str = "2025-03-01T10:00:00+00:00",
        scope: str = "project") -> int:
    """A memory said in `sessions` (one source each), as an import would have stored it."""
    with store.write():
        memory_id = rows.insert(store, rows.NewMemory(project, kind, text, said, "test", scope=scope))
        for line, session in enumerate(sessions, start=1):
            rows.add_provenance(store, memory_id, Provenance("claude-code", session, f"/t/{session}.jsonl", line, line,
                                                             text, said), None)
        rows.add_files(store, memory_id, files)
        if pinned:
            rows.set_pinned(store, memory_id, True)
    return memory_id


def notes(recorded: Recorded) -> dict[str, int]:
    """The notes a `write_brief` request showed the model: text → its number."""
    return {html.unescape(text): int(n) for n, text in _NOTE.findall(recorded.user_text)}


Planned = tuple[str, str, Sequence[str | int]]


def brief_answer(plan: Callable[[dict[str, int]], Sequence[Planned]]) -> Callable[[Recorded], Reply]:
    """A model that answers a `write_brief` request with the lines `plan` makes from the notes it
    was sent: (topic, text, cited: a note's text, or a bare number as the model wrote it)."""
    def answer(recorded: Recorded) -> Reply:
        numbers = notes(recorded)
        sections: dict[str, list[dict[str, Any]]] = {}
        for topic, text, cited in plan(numbers):
            refs = [c if isinstance(c, int) else numbers[c] for c in cited]
            sections.setdefault(topic, []).append({"text": text, "memories": refs})
        return FakeAnthropic.tool("write_brief", {"sections": [{"topic": t, "lines": ls} for t, ls in sections.items()]})
    return answer
