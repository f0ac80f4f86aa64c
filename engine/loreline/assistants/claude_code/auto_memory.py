"""Claude Code's auto memory: `<claude dir>/projects/<slug>/memory/`.

A topic file holds one memory: frontmatter `name`, `description`, `type` (user, feedback,
project or reference), then a body whose first paragraph states the memory and whose
`**Why:**` / `**How to apply:**` lines explain it. The body's first paragraph (else the
description) becomes the memory's text; the kind comes from `type`.

`MEMORY.md` is the index: one line per topic file (`- [Title](file.md) — hook`), plus any
notes written straight into it. Index lines that point at a file are not memories of their
own (the file is); other bullets are. Sessions load its first 200 lines or 25 KB,
whichever comes first; topic files are read on demand.
"""

from __future__ import annotations

import re
from pathlib import Path


from ...project import project_key
from ...native import CLAUDE_MEMORY, Item, NativeFile

#: the provenance tool name of its memories
TOOL = CLAUDE_MEMORY
from ...native.markdown import EXCERPT_CHARS, bounded, digest, frontmatter, read_text, stamp, statements

INDEX = "MEMORY.md"
LOAD_LINES = 200
LOAD_BYTES = 25 * 1024

KINDS = {"user": "preference", "feedback": "preference", "project": "fact", "reference": "fact"}
_EXPLAIN = re.compile(r"^\s*(?:[-*]\s*)?\**(?:why|how to apply)\b", re.IGNORECASE)
_LINK_ENTRY = re.compile(r"^\[[^\]]*\]\((?!https?:)[^)]+\.md\)")


def memory_dirs(claude_root: Path) -> list[tuple[Path, Path]]:
    """(project folder, memory folder) for every project that has an auto memory folder."""
    projects = claude_root / "projects"
    if not projects.is_dir():
        return []
    return sorted((folder, folder / "memory") for folder in projects.iterdir()
                  if (folder / "memory").is_dir() and not folder.is_symlink())


def slug(project: str) -> str:
    """The folder name Claude Code gives a project under `projects/`: every character but
    ASCII letters and digits becomes `-`."""
    return re.sub(r"[^A-Za-z0-9]", "-", project)


def configured_dir(root: Path) -> Path | None:
    """`autoMemoryDirectory` from the project's `.claude/settings.local.json` (Claude Code
    ignores it in the shared `.claude/settings.json`), when set."""
    try:
        raw = (root / ".claude" / "settings.local.json").read_bytes()
    except OSError:
        return None
    import orjson  # here: without the file (the usual case) `loreline status` does not load it

    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    value = data.get("autoMemoryDirectory") if isinstance(data, dict) else None
    return Path(value).expanduser() if isinstance(value, str) and value.strip() else None


def folder_of(claude_root: Path, project: str) -> Path:
    """A project's auto memory folder: its `autoMemoryDirectory`, else `projects/<slug>/memory`."""
    return configured_dir(Path(project)) or claude_root / "projects" / slug(project) / "memory"


def project_of(folder: Path) -> str | None:
    """The project of a `projects/<slug>` folder: its sessions', else the one folder its slug names."""
    return project_from_sessions(folder) or project_from_slug(folder)


def enabled(root: Path, claude_root: Path) -> bool:
    """False when `autoMemoryEnabled: false` is set for the project or the user (the
    environment variable is the hook's to check: it is per session)."""
    for settings in (root / ".claude" / "settings.local.json", root / ".claude" / "settings.json",
                     claude_root / "settings.json"):
        value = _setting(settings, "autoMemoryEnabled")
        if value is not None:
            return bool(value)
    return True


def _setting(path: Path, key: str) -> object | None:
    import json

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data.get(key) if isinstance(data, dict) else None


def files(memory_dir: Path) -> list[Path]:
    return sorted(p for p in memory_dir.glob("*.md") if p.is_file())


def read(path: Path, project: str) -> NativeFile:
    raw = path.read_bytes()
    size, mtime_ns, observed = stamp(path)
    lines = read_text(path).splitlines()
    items = _index_items(lines) if path.name == INDEX else _topic_items(lines, path)
    return NativeFile(str(path), CLAUDE_MEMORY, project, tuple(items), digest(raw), size, mtime_ns, observed)


def _topic_items(lines: list[str], path: Path) -> list[Item]:
    from ...distill.rules import classify

    fields, body = frontmatter(lines)
    kind = KINDS.get(fields.get("type", "").lower(), "fact")
    label = fields.get("name") or path.stem
    lead = _lead(lines, body)
    if lead is not None:
        start, end, text = lead
    elif fields.get("description"):
        start = end = next((i + 1 for i, line in enumerate(lines) if line.lower().startswith("description:")), 1)
        text = fields["description"]
    else:
        return []
    if kind == "fact" and classify(text) == "decision":
        kind = "decision"
    excerpt = bounded("\n".join(lines[body:]) or text, EXCERPT_CHARS)
    return [Item(kind, bounded(text), start, end, excerpt, label)]


def _lead(lines: list[str], body: int) -> tuple[int, int, str] | None:
    """The body's first paragraph (its wrapped lines joined), stopping at a Why/How line."""
    found = [s for s in statements(lines, body) if not _EXPLAIN.match(s[2])]
    return found[0] if found else None


def _index_items(lines: list[str]) -> list[Item]:
    from ...distill.rules import classify

    out: list[Item] = []
    for start, end, text in statements(lines):
        if _LINK_ENTRY.match(text):
            continue
        kind = classify(text) or "fact"
        out.append(Item(kind, bounded(text), start, end, bounded(text, EXCERPT_CHARS), INDEX))
    return out


def loaded_part(path: Path) -> tuple[str, int]:
    """The part of MEMORY.md a session loads, and the number of lines it leaves out."""
    data = path.read_bytes()
    lines = data.decode("utf-8", errors="replace").splitlines(keepends=True)
    kept: list[str] = []
    used = 0
    for line in lines[:LOAD_LINES]:
        used += len(line.encode("utf-8"))
        if used > LOAD_BYTES:
            break
        kept.append(line)
    return "".join(kept), len(lines) - len(kept)


def project_from_sessions(folder: Path) -> str | None:
    """The project of a `projects/<slug>` folder from its newest session's `cwd` (the slug
    itself is lossy: every character but letters and digits became `-`)."""
    sessions = sorted(folder.glob("*.jsonl"), key=_mtime, reverse=True)[:3]
    for session in sessions:
        cwd = _first_cwd(session)
        if cwd:
            return project_key(cwd)
    return None


def project_from_slug(folder: Path) -> str | None:
    """The one existing folder whose slug this is, or None."""
    from ..cursor.sessions import cwd_from_slug

    found = cwd_from_slug(Path("/", "projects", folder.name.lstrip("-"), "agent-transcripts", "_"))
    return project_key(found) if found else None


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _first_cwd(session: Path, max_lines: int = 200) -> str | None:
    import orjson

    try:
        with open(session, "rb") as handle:
            for _, line in zip(range(max_lines), handle, strict=False):
                if b'"cwd"' not in line:
                    continue
                try:
                    record = orjson.loads(line)
                except orjson.JSONDecodeError:
                    continue
                if isinstance(record, dict) and isinstance(record.get("cwd"), str) and record["cwd"]:
                    return str(record["cwd"])
    except OSError:
        return None
    return None
