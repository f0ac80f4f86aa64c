"""Which files under Cursor's folder are sessions (and why the others are not).

Cursor: `<dir>/projects/<slug>/agent-transcripts/<uuid>/<uuid>.jsonl` and the flat
`agent-transcripts/<uuid>.jsonl` (`<dir>` is `--cursor-dir`, else `~/.cursor`); subagent
transcripts and legacy `.txt` transcripts are reported, not read.
"""

from __future__ import annotations

from pathlib import Path

from ...transcripts.discover import SUBAGENT, Discovery, Found, found_file, unlistable


def find_sessions(root: Path, result: Discovery) -> list[Found]:
    projects = root / "projects"
    if not projects.is_dir():
        result.left_out.append((str(projects), "no Cursor projects folder here"))
        return []
    unlistable(projects, result, depth=1)
    candidates: list[Found] = []
    for folder in sorted(projects.glob("*/agent-transcripts")):
        unlistable(folder, result)
        for path in sorted(p for p in folder.rglob("*") if not p.is_dir() or p.suffix == ".jsonl"):
            reason = _cursor_reason(path.relative_to(folder).parts, path)
            if reason is None:
                candidates.append(found_file(path, "cursor"))
            else:
                result.left_out.append((str(path), reason))
    return candidates


def _cursor_reason(parts: tuple[str, ...], path: Path) -> str | None:
    """Why a file under `agent-transcripts/` is not a session; None when it is one."""
    if "subagents" in parts:
        return SUBAGENT
    if path.suffix == ".txt":
        return "legacy text transcript, not read"
    if path.suffix != ".jsonl":
        return "not a transcript file"
    if len(parts) == 1 or (len(parts) == 2 and parts[0] == path.stem):
        return None
    return "not a session file name"
