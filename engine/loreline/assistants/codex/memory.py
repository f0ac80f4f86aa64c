"""Codex memories: `<codex home>/memories/` (off by default; `[features] memories = true`).

Codex's consolidation writes `MEMORY.md` as task-group blocks, each opened by
`# Task Group: …`, a `scope:` line and an `applies_to: cwd=<dir>; reuse_rule=…` line, then
`## Task <n>` sections (rollout files and keywords: routing, not memories) and the
consolidated sections `## User preferences`, `## Reusable knowledge` and
`## Failures and how to do differently`, whose `-` bullets end in `[Task n]` references.
Those bullets become memories (preference, fact, procedure) of the block's cwd project.
`memory_summary.md` (first line `v1`, injected into Codex's prompt) and
`rollout_summaries/*.md` (per-session recaps of rollouts Loreline reads itself) are not
imported.
"""

from __future__ import annotations

import re
from pathlib import Path

from ...project import project_key
from ...native import Item, NativeFile
from ...native.markdown import EXCERPT_CHARS, bounded, digest, read_text, stamp

SECTIONS = {"user preferences": "preference", "reusable knowledge": "fact",
            "failures and how to do differently": "procedure"}
_GROUP = re.compile(r"^#\s+Task Group:\s*(.+)$")
_SECTION = re.compile(r"^##\s+(.+?)\s*$")
_APPLIES = re.compile(r"^applies_to:\s*cwd=([^;]+)")
_BULLET = re.compile(r"^\s*-\s+(.*)$")
_TASK_REFS = re.compile(r"(?:\s*\[Task \d+\])+\s*$")

#: the provenance tool name of its memories
CODEX_MEMORY = "codex-memory"


def memory_file(codex_root: Path) -> Path:
    return codex_root / "memories" / "MEMORY.md"


def read(path: Path) -> list[NativeFile]:
    """One NativeFile per project the blocks name (the same path, its items split by cwd)."""
    raw = path.read_bytes()
    size, mtime_ns, observed = stamp(path)
    by_project: dict[str, list[Item]] = {}
    for project, item in _items(read_text(path).splitlines()):
        by_project.setdefault(project, []).append(item)
    parts = [NativeFile(str(path), CODEX_MEMORY, project, tuple(items), digest(raw), size, mtime_ns, observed)
             for project, items in sorted(by_project.items())]
    return parts or [NativeFile(str(path), CODEX_MEMORY, project_key(None), (), digest(raw), size, mtime_ns, observed)]


def _items(lines: list[str]) -> list[tuple[str, Item]]:
    out: list[tuple[str, Item]] = []
    project, kind, group = project_key(None), None, ""
    for number, line in enumerate(lines, start=1):
        if (found := _GROUP.match(line)) is not None:
            project, kind, group = project_key(None), None, found.group(1).strip()
        elif (found := _APPLIES.match(line.strip())) is not None:
            project = project_key(found.group(1).strip())
        elif (found := _SECTION.match(line)) is not None:
            kind = SECTIONS.get(found.group(1).strip().lower())
        elif kind is not None and (found := _BULLET.match(line)) is not None:
            text = _TASK_REFS.sub("", found.group(1)).strip()
            if len(text) >= 12:
                out.append((project, Item(kind, bounded(text), number, number, bounded(text, EXCERPT_CHARS),
                                          group or "MEMORY.md")))
    return out
