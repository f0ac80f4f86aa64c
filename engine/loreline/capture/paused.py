"""Sessions started (or resumed) under `LORELINE_OFF=1`: recorded by id so nothing learns from
them later.

    <data dir>/paused/<session id>.json    {"session_id", "tool", "transcript_path", "at"}

The hook writes one such file the first time it sees a paused session (standard library, one
`stat` on later events; no config, no store). Every import checks the list before it reads a
file (`pipeline.import_sessions`): discovery (`loreline import sessions`), the capture worker and
the editors leave a paused session out, and the report says so; only a file given by path with
`include_paused` (`--include-paused`) is imported, that once. The files are never pruned: a
paused session stays paused. A session id that is not a plain token is hashed into the name
(the id itself is inside).

A transcript is matched by the recorded path, or by its file name: Claude Code names the file
`<session id>.jsonl`, Codex `rollout-<time>-<thread id>.jsonl`; and, after parsing, by the
session id the transcript itself records.
"""

from __future__ import annotations

import json
import os
import re

from .. import home

TYPE_CHECKING = False  # importing typing costs the hook milliseconds
if TYPE_CHECKING:
    from pathlib import Path

#: why an import left a session out (the import report groups by this reason)
REASON = "paused: started with LORELINE_OFF=1 (import it by path with --include-paused)"
_PLAIN = re.compile(r"^[A-Za-z0-9._-]{1,128}$")


def folder() -> Path:
    return home.data_dir() / "paused"


def path_for(session_id: str) -> Path:
    if _PLAIN.match(session_id) and not session_id.startswith("."):
        return folder() / f"{session_id}.json"
    import hashlib

    return folder() / f"h-{hashlib.blake2b(session_id.encode('utf-8', 'replace'), digest_size=12).hexdigest()}.json"


def record(session_id: str, tool: str | None, transcript_path: str | None, at: str) -> bool:
    """Record the session as paused; False when it already was (nothing is written then)."""
    path = path_for(session_id)
    if os.path.exists(path):
        return False
    home.ensure_private_dir(path.parent)
    data = {"session_id": session_id, "tool": tool, "transcript_path": transcript_path, "at": at}
    home.write_private(path, json.dumps(data, ensure_ascii=False))
    return True


class Paused:
    """The paused sessions, read once for an import."""

    def __init__(self, ids: set[str], paths: set[str]) -> None:
        self.ids = ids
        self.paths = paths

    def __len__(self) -> int:
        return len(self.ids)

    def holds(self, path: Path | str, session_id: str | None = None) -> bool:
        """Whether the transcript at `path` (or with `session_id`) is a paused session's."""
        if not self.ids:
            return False
        if session_id and session_id in self.ids:
            return True
        text = os.path.realpath(str(path))
        if text in self.paths:
            return True
        stem = os.path.basename(text).split(".", 1)[0]
        return stem in self.ids or (stem.startswith("rollout-") and any(stem.endswith("-" + i) for i in self.ids))


def load() -> Paused:
    """Every recorded paused session; an unreadable file is skipped (it names no session)."""
    ids: set[str] = set()
    paths: set[str] = set()
    try:
        entries = list(os.scandir(folder()))
    except OSError:
        return Paused(ids, paths)
    for entry in entries:
        if not entry.name.endswith(".json"):
            continue
        try:
            with open(entry.path, "rb") as handle:
                data = json.loads(handle.read(64 * 1024))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and isinstance(data.get("session_id"), str):
            ids.add(data["session_id"])
            if isinstance(data.get("transcript_path"), str):
                paths.add(os.path.realpath(os.path.expanduser(data["transcript_path"])))
    return Paused(ids, paths)
