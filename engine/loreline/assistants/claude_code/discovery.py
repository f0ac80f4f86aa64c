"""Which files under Claude Code's folder are sessions (and why the others are not).

Claude Code: `<config>/projects/<slug>/<session-uuid>.jsonl` (`<config>` is `--claude-dir`,
else `$CLAUDE_CONFIG_DIR`, else `~/.claude`). Sidecar subagent files
(`<slug>/agent-*.jsonl`, `<slug>/<session>/subagents/*.jsonl`) are not sessions, and neither
is anything in the project folder of Loreline's own distillation runs (`home.distill_workdir`).
"""

from __future__ import annotations

import re
from pathlib import Path

from ...transcripts.discover import Discovery, Found, OWN_RUN, SESSION_NAME, SUBAGENT, found_file, unlistable


def find_sessions(root: Path, result: Discovery) -> list[Found]:
    projects = root / "projects"
    if not projects.is_dir():
        result.left_out.append((str(projects), "no Claude Code projects folder here"))
        return []
    unlistable(projects, result, depth=1)
    candidates: list[Found] = []
    own = _own_slugs()
    for path in sorted(projects.glob("*/*.jsonl")):
        if path.parent.name in own:
            result.left_out.append((str(path), OWN_RUN))
        elif path.name.startswith("agent-"):
            result.left_out.append((str(path), SUBAGENT))
        elif not SESSION_NAME.match(path.name):
            result.left_out.append((str(path), "not a session file name"))
        else:
            candidates.append(found_file(path, "claude-code"))
    for path in sorted(projects.glob("*/*/subagents/*.jsonl")):
        result.left_out.append((str(path), SUBAGENT))
    return candidates


def _own_slugs() -> set[str]:
    """Claude Code's project folder names for the claude-code backend's working directory."""
    from ... import home

    workdir = home.distill_workdir()
    return {re.sub(r"[^A-Za-z0-9]", "-", str(p)) for p in (workdir, workdir.resolve())}
