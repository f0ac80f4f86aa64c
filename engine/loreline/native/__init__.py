"""The assistants' own memory files, read as sources (never written).

Each assistant's readers live in its package (`loreline.assistants.<name>`): Claude Code's
auto memory (`auto_memory`) and CLAUDE.md layers (`claude_md`), the other assistants' memory
files (their `memory_reader`, and `project_memory` for files in a project's folder).

Readers turn each file into `Item`s; `sync` feeds them through the belief pipeline and
follows edits and deletions; `coverage` marks the memories a session already loads;
`governor` reports on the native files' size and duplicates.
"""

from __future__ import annotations

from ..records import record

#: provenance tool names
CLAUDE_MEMORY = "claude-memory"
CLAUDE_MD = "claude-md"


@record
class Item:
    """One statement of a native file: what becomes or joins a memory."""

    kind: str
    text: str
    line_start: int
    line_end: int
    excerpt: str
    #: a name for the source (the memory file's `name`, the file's name)
    label: str


@record
class NativeFile:
    """A native file read whole: where it is, whose project it is, and its statements."""

    path: str
    tool: str
    project: str
    items: tuple[Item, ...]
    digest: str
    size: int
    mtime_ns: int
    observed_at: str
    #: CLAUDE.md material: the memories it becomes are pinned
    pinned: bool = False
    scope: str = "project"
