"""Finding session files on disk, newest first, with every left-out file accounted for.

Claude Code keeps main transcripts at `<config>/projects/<slug>/<session-uuid>.jsonl`
(`<config>` is `--claude-dir`, else `$CLAUDE_CONFIG_DIR`, else `~/.claude`). Sidecar
subagent files (`<slug>/agent-*.jsonl`, `<slug>/<session>/subagents/*.jsonl`) are not
sessions. A file modified in the last few minutes is probably still being written and waits
for the next run. Files outside the window or beyond the cap are left out, with the reason.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

SESSION_NAME = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.jsonl$", re.I)
SETTLE_SECONDS = 300
DEFAULT_DAYS = 14
DEFAULT_SESSIONS = 20


@dataclass(frozen=True, slots=True)
class Found:
    path: Path
    tool: str
    mtime: float
    size: int


@dataclass(slots=True)
class Discovery:
    sessions: list[Found] = field(default_factory=list)
    left_out: list[tuple[str, str]] = field(default_factory=list)

    def in_import_order(self) -> list[tuple[Path, str | None]]:
        """Oldest first, so a later session's words are applied after an earlier one's."""
        return [(f.path, f.tool) for f in sorted(self.sessions, key=lambda f: f.mtime)]


def claude_dir(explicit: str | None = None) -> Path:
    if explicit:
        return Path(explicit).expanduser()
    env = os.environ.get("CLAUDE_CONFIG_DIR", "").strip()
    return Path(env).expanduser() if env else Path.home() / ".claude"


def discover_claude(
    root: Path,
    *,
    days: float = DEFAULT_DAYS,
    max_sessions: int = DEFAULT_SESSIONS,
    now: float | None = None,
    settle_seconds: float = SETTLE_SECONDS,
) -> Discovery:
    result = Discovery()
    projects = root / "projects"
    if not projects.is_dir():
        result.left_out.append((str(projects), "no Claude Code projects folder here"))
        return result
    candidates: list[Found] = []
    for path in sorted(projects.glob("*/*.jsonl")):
        if path.name.startswith("agent-"):
            result.left_out.append((str(path), "subagent sidecar, not a session"))
        elif not SESSION_NAME.match(path.name):
            result.left_out.append((str(path), "not a session file name"))
        else:
            candidates.append(_found(path, "claude-code"))
    for path in sorted(projects.glob("*/*/subagents/*.jsonl")):
        result.left_out.append((str(path), "subagent sidecar, not a session"))
    _window(candidates, result, days=days, max_sessions=max_sessions,
            now=time.time() if now is None else now, settle_seconds=settle_seconds)
    return result


def _found(path: Path, tool: str) -> Found:
    stat = path.stat()
    return Found(path, tool, stat.st_mtime, stat.st_size)


def _window(candidates: list[Found], result: Discovery, *, days: float, max_sessions: int, now: float,
            settle_seconds: float) -> None:
    """Keep the newest sessions inside the window; account for the rest."""
    oldest = now - days * 86_400
    ready: list[Found] = []
    for found in sorted(candidates, key=lambda f: f.mtime, reverse=True):
        if found.mtime < oldest:
            result.left_out.append((str(found.path), f"older than {days:g} days (--days)"))
        elif found.mtime > now - settle_seconds:
            result.left_out.append((str(found.path), "modified in the last 5 minutes; still being written, next run"))
        else:
            ready.append(found)
    result.sessions = ready[:max_sessions]
    for found in ready[max_sessions:]:
        result.left_out.append((str(found.path), f"beyond the cap of {max_sessions} sessions (--sessions)"))
