"""The assistants' own memory files, read as sources (never written).

- Claude Code auto memory: `<claude dir>/projects/<slug>/memory/*.md`, one memory per file
  with frontmatter `name`, `description`, `type: user|feedback|project|reference`, and the
  `MEMORY.md` index whose first 200 lines / 25 KB every session loads (`claude_memory`);
- CLAUDE.md layers: `./CLAUDE.md`, `./.claude/CLAUDE.md`, `./.claude/rules/*.md`,
  `./CLAUDE.local.md`, `~/.claude/CLAUDE.md`, `~/.claude/rules/*.md`, with `@path` imports
  (`claude_md`): material the user pinned by writing it there;
- Codex memories: `~/.codex/memories/MEMORY.md` task-group blocks (`codex_memory`).

Readers turn each file into `Item`s; `sync` feeds them through the belief pipeline and
follows edits and deletions; `coverage` marks the memories a session already loads;
`governor` reports on the native files' size and duplicates.
"""

from __future__ import annotations

from dataclasses import dataclass

#: provenance tool names
CLAUDE_MEMORY = "claude-memory"
CLAUDE_MD = "claude-md"
CODEX_MEMORY = "codex-memory"
GEMINI_MD = "gemini-md"


@dataclass(frozen=True, slots=True)
class Item:
    """One statement of a native file: what becomes or joins a memory."""

    kind: str
    text: str
    line_start: int
    line_end: int
    excerpt: str
    #: a name for the source (the memory file's `name`, the file's name)
    label: str


@dataclass(frozen=True, slots=True)
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
