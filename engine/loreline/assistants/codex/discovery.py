"""Which files under Codex's home are sessions (and why the others are not).

Codex: `<home>/sessions/**/rollout-*.jsonl`, `<home>/archived_sessions/rollout-*.jsonl` and
the TypeScript CLI's `<home>/sessions/rollout-*.json` (`<home>` is `--codex-home`, else
`$CODEX_HOME`, else `~/.codex`). Compressed `.jsonl.zst` rollouts are reported, not read.
"""

from __future__ import annotations

from pathlib import Path

from ...transcripts.discover import Discovery, Found, found_file, unlistable


def find_sessions(root: Path, result: Discovery) -> list[Found]:
    sessions, archived = root / "sessions", root / "archived_sessions"
    if not sessions.is_dir() and not archived.is_dir():
        result.left_out.append((str(sessions), "no Codex sessions folder here"))
        return []
    unlistable(sessions, result)
    unlistable(archived, result, depth=0)
    candidates: list[Found] = []
    paths = sorted(sessions.rglob("rollout-*")) + sorted(archived.glob("rollout-*"))
    for path in paths:
        name = path.name
        if path.is_dir() and not name.endswith((".jsonl", ".json")):
            continue  # a folder rglob walks into anyway
        if name.endswith(".jsonl") or (name.endswith(".json") and path.parent == sessions):
            candidates.append(found_file(path, "codex"))
        elif name.endswith(".zst"):
            result.left_out.append((str(path), "compressed rollout (.zst), not read"))
        else:
            result.left_out.append((str(path), "not a rollout file"))
    return candidates
