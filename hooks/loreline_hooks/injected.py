"""Which memories Loreline already put into a session: one small file per session id.

    <state dir>/injected/<session id>.json    {"ids": [12, 40, ...]}

SessionStart writes the ids of the memories its block showed; each prompt's recall adds the
ones it showed, and never shows an id listed here again in that session. A session id that is
not a plain token is hashed into the name. Files untouched for `KEEP_DAYS` are removed when
SessionStart writes (a few `stat` calls). A missing or damaged file counts as empty: the worst
case is a memory shown twice, never a failed prompt.
"""

from __future__ import annotations

import json
import os
import re
import time

from loreline import home

KEEP_DAYS = 7
MAX_IDS = 2000
_PLAIN = re.compile(r"^[A-Za-z0-9._-]{1,128}$")

TYPE_CHECKING = False  # importing typing costs the hook milliseconds
if TYPE_CHECKING:
    from collections.abc import Iterable
    from pathlib import Path


def folder() -> Path:
    return home.state_dir() / "injected"


def path_for(session_id: str) -> Path:
    if _PLAIN.match(session_id) and not session_id.startswith("."):
        return folder() / f"{session_id}.json"
    import hashlib

    return folder() / f"h-{hashlib.blake2b(session_id.encode('utf-8', 'replace'), digest_size=12).hexdigest()}.json"


def read(session_id: str) -> set[int]:
    try:
        data = json.loads(path_for(session_id).read_bytes())
    except (OSError, ValueError):
        return set()
    ids = data.get("ids") if isinstance(data, dict) else None
    return {i for i in ids if isinstance(i, int)} if isinstance(ids, list) else set()


def record(session_id: str, ids: Iterable[int], *, fresh: bool = False) -> None:
    """Add `ids` to the session's list (`fresh`: replace it, as a new SessionStart does)."""
    known = set() if fresh else read(session_id)
    merged = sorted(known | set(ids))[-MAX_IDS:]
    home.write_private(path_for(session_id), json.dumps({"ids": merged}))


def prune(now: float | None = None) -> int:
    """Remove the files of sessions idle for `KEEP_DAYS`; returns how many went."""
    cutoff = (time.time() if now is None else now) - KEEP_DAYS * 86_400
    gone = 0
    try:
        entries = list(os.scandir(folder()))
    except OSError:
        return 0
    for entry in entries:
        try:
            if entry.name.endswith(".json") and entry.stat().st_mtime < cutoff:
                os.unlink(entry.path)
                gone += 1
        except OSError:
            continue
    return gone
