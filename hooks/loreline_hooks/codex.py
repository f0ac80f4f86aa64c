"""Codex `notify` payloads: `{type: "agent-turn-complete", thread-id, turn-id, cwd, client,
input-messages[], last-assistant-message}`, passed as the last command-line argument.

The thread id is the session id and the suffix of the rollout file's name
(`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<thread-id>.jsonl`). The hook looks only in
today's and yesterday's folders (cheap); when the rollout is older the record carries no path
and the worker searches the whole tree.
"""

from __future__ import annotations

import os
import re
import time

TURN_COMPLETE = "agent-turn-complete"
_THREAD_ID = re.compile(r"^[0-9A-Za-z][0-9A-Za-z-]{7,63}$")

TYPE_CHECKING = False  # importing typing costs the hook milliseconds
if TYPE_CHECKING:
    from typing import Any


def codex_home() -> str:
    return os.path.expanduser(os.environ.get("CODEX_HOME", "").strip() or "~/.codex")


def fields(payload: dict[str, Any]) -> dict[str, Any] | None:
    """The spool fields of a notify payload; None for other notification types."""
    if payload.get("type") != TURN_COMPLETE:
        return None
    thread = payload.get("thread-id")
    if not isinstance(thread, str) or not _THREAD_ID.match(thread):
        return None
    return {
        "session_id": thread,
        "cwd": payload.get("cwd"),
        "transcript_path": find_rollout(thread),
        "last_assistant_message": payload.get("last-assistant-message"),
        "extra": {"turn_id": payload.get("turn-id"), "client": payload.get("client")},
    }


def find_rollout(thread: str, now: float | None = None) -> str | None:
    """The rollout file of `thread` if it was started today or yesterday (local time)."""
    root = os.path.join(codex_home(), "sessions")
    suffix = f"-{thread}.jsonl"
    stamp = time.time() if now is None else now
    for seconds in (stamp, stamp - 86_400):
        day = time.localtime(seconds)
        folder = os.path.join(root, f"{day.tm_year:04d}", f"{day.tm_mon:02d}", f"{day.tm_mday:02d}")
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for name in names:
            if name.startswith("rollout-") and name.endswith(suffix):
                return os.path.join(folder, name)
    return None
