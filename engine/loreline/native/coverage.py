"""Which memories a Claude Code session already loads, so SessionStart leaves them out.

A session started in a project loads its CLAUDE.md layers in full (its `ProjectMemory.loaded`)
and the first 200 lines / 25 KB of its auto memory `MEMORY.md` (unless auto memory is off;
the assistant's `AutoMemory` says both). The assistants are handed in; none is imported.
An active memory of the project is covered when one statement of that loaded text has the
same wording (case, spacing and edge punctuation aside), or holds every content word of the
memory and the memory has at least `MIN_WORDS` of them. The result is stored per memory with
the covering file's size and mtime: the hook only filters, and ignores a cover whose file
changed or vanished since.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from ..beliefs import content_words
from ..store import Store
from ..store import memories as rows
from ..store import native as table
from ..records import record
from .markdown import frontmatter, statements

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..assistants.base import Assistant

MIN_WORDS = 3


@record
class Loaded:
    path: str
    line: int
    text: str
    size: int
    mtime_ns: int


def loaded(root: Path, assistants: Sequence[Assistant], homes: Mapping[str, Path],
           memory_dir: Path | None) -> list[Loaded]:
    """The statements a session in `root` loads at start, with their file and line: each
    assistant's project memory files it loads (`homes` names each assistant's folder; a
    Claude Code session's CLAUDE.md layers, a Gemini CLI session's GEMINI.md files), and the
    part of the project's memory folder index (`memory_dir`, Claude Code's auto memory
    `MEMORY.md`) a session loads."""
    out: list[Loaded] = []
    for assistant in assistants:
        home = homes.get(assistant.name)
        if assistant.project_memory is not None and home is not None:
            for path in assistant.project_memory().loaded(root, home):
                out.extend(_statements(path, None))
        if assistant.auto_memory is not None and home is not None and memory_dir is not None:
            auto = assistant.auto_memory()
            index = memory_dir / auto.index
            if index.is_file() and auto.enabled(root, home):
                out.extend(_statements(index, auto.loaded_part(index)[0]))
    return out


def _statements(path: Path, text: str | None) -> list[Loaded]:
    try:
        st = os.stat(path)
        body = text if text is not None else path.read_bytes().decode("utf-8", errors="replace")
    except OSError:
        return []
    lines = body.splitlines()
    _, first = frontmatter(lines)
    return [Loaded(str(path), start, said, st.st_size, st.st_mtime_ns) for start, _, said in statements(lines, first)]


def covers(memory_text: str, said: str) -> bool:
    if rows.content_hash(memory_text) == rows.content_hash(said):
        return True
    words = content_words(memory_text)
    return len(words) >= MIN_WORDS and words <= content_words(said)


def refresh(store: Store, project: str, statements_loaded: list[Loaded]) -> int:
    """Recompute the project's covered memories (inside a write); returns how many."""
    found: list[tuple[int, str, int, int, int]] = []
    for memory_id, text in table.active_texts(store, project):
        hit = next((s for s in statements_loaded if covers(text, s.text)), None)
        if hit is not None:
            found.append((memory_id, hit.path, hit.line, hit.size, hit.mtime_ns))
    table.set_covered(store, project, found)
    return len(found)
