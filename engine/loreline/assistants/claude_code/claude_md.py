"""CLAUDE.md layers: what the user wrote for Claude Code to load, read as pinned material.

Loaded at the start of every session in a project (per Claude Code's memory docs):
the managed policy file, `~/.claude/CLAUDE.md` and `~/.claude/rules/*.md`, every
`CLAUDE.md` / `CLAUDE.local.md` from the working directory up to (not including) `/`,
`./.claude/CLAUDE.md`, `./.claude/rules/*.md` without a `paths:` frontmatter (rules with
one load only when matching files are read), each with its `@path` imports expanded (at
most 5 hops; not inside code). Loreline reads these files and never writes them.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from ...distill.rules import classify
from ...native import CLAUDE_MD, Item, NativeFile
from ...native.markdown import EXCERPT_CHARS, bounded, digest, frontmatter, read_text, stamp, statements

MANAGED = (Path("/etc/claude-code/CLAUDE.md"), Path("/Library/Application Support/ClaudeCode/CLAUDE.md"))
MAX_HOPS = 5
_IMPORT = re.compile(r"(?:^|\s)@((?:~/|/|\.{1,2}/|[\w.-]+/)[^\s`]*|[\w.-]+\.md)")
_FENCE = re.compile(r"^\s*(```|~~~)")
_CODE_SPAN = re.compile(r"`[^`]*`")


def project_files(root: Path) -> list[Path]:
    """The project's own CLAUDE.md material (imported as its pinned memories), imports included."""
    direct = [root / "CLAUDE.md", root / ".claude" / "CLAUDE.md", root / "CLAUDE.local.md",
              *_rules(root / ".claude" / "rules")]
    return _with_imports([p for p in direct if p.is_file()])


def user_files(claude_root: Path) -> list[Path]:
    direct = [claude_root / "CLAUDE.md", *_rules(claude_root / "rules")]
    return _with_imports([p for p in direct if p.is_file()])


def loaded_files(root: Path, claude_root: Path) -> list[Path]:
    """Every CLAUDE.md-family file a session started in `root` loads at once."""
    ancestors = [folder for folder in (root, *root.parents) if folder != Path(folder.anchor)]
    walked = [f / name for f in reversed(ancestors) for name in ("CLAUDE.md", "CLAUDE.local.md")]
    direct = [*MANAGED, *[claude_root / "CLAUDE.md", *_rules(claude_root / "rules", loaded_only=True)],
              *walked, root / ".claude" / "CLAUDE.md", *_rules(root / ".claude" / "rules", loaded_only=True)]
    return _with_imports([p for p in direct if p.is_file()])


def _rules(folder: Path, loaded_only: bool = False) -> list[Path]:
    if not folder.is_dir():
        return []
    found = sorted(p for p in folder.rglob("*.md") if p.is_file())
    return [p for p in found if not (loaded_only and _path_scoped(p))]


def _path_scoped(path: Path) -> bool:
    try:
        fields, _ = frontmatter(read_text(path).splitlines()[:40])
    except OSError:
        return False
    return "paths" in fields


def _with_imports(files: list[Path]) -> list[Path]:
    out: list[Path] = []
    seen: set[str] = set()
    for path in files:
        _visit(path, 0, out, seen)
    return out


def _visit(path: Path, hops: int, out: list[Path], seen: set[str]) -> None:
    key = os.path.realpath(path)
    if key in seen or not path.is_file():
        return
    seen.add(key)
    out.append(path)
    if hops >= MAX_HOPS:
        return
    for target in imports(path):
        _visit(target, hops + 1, out, seen)


def imports(path: Path) -> list[Path]:
    """The files a CLAUDE.md imports with `@path` (relative to it, `~/`, or absolute)."""
    try:
        lines = read_text(path).splitlines()
    except OSError:
        return []
    out: list[Path] = []
    fenced = False
    for line in lines:
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if fenced:
            continue
        for match in _IMPORT.finditer(_CODE_SPAN.sub("", line)):
            target = Path(os.path.expanduser(match.group(1)))
            out.append(target if target.is_absolute() else path.parent / target)
    return out


def read(path: Path, project: str, scope: str = "project") -> NativeFile:
    raw = path.read_bytes()
    size, mtime_ns, observed = stamp(path)
    lines = read_text(path).splitlines()
    _, body = frontmatter(lines)
    items = [Item(classify(text) or "fact", bounded(text), start, end, bounded(text, EXCERPT_CHARS), path.name)
             for start, end, text in statements(lines, body) if not _only_imports(text)]
    return NativeFile(str(path), CLAUDE_MD, project, tuple(items), digest(raw), size, mtime_ns, observed,
                      pinned=True, scope=scope)


def read_user(path: Path, home: Path) -> list[NativeFile]:
    """The user's own CLAUDE.md material, kept as the project of the Claude folder itself
    (searchable, never injected: every session loads it)."""
    return [read(path, str(home))]


def _only_imports(text: str) -> bool:
    return all(word.startswith("@") for word in text.split() if word.strip("-*:,."))
