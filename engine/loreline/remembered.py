"""Answers that cost a slow question to another program, kept for a while in the state folder.

`loreline status` names the distiller an import would use, and that needs two answers that are
slow to get: whether Claude Code is logged in (`claude auth status`, about a second) and whether
the OS keyring holds Loreline's API key (loading the keyring's backends, ~150 ms). Each answer
is kept in `<state>/remembered/<name>.json` with the time it was asked and what decides it (the
CLI's path and file, the credentials file, which environment variables are set); it is used
while it is younger than its lifetime and what decides it is unchanged, else asked again.

Only plain answers and the names, sizes and times of files are kept ("claude.ai", true, null):
never a key, a token or an environment variable's value. A state folder that cannot be written
just means asking every time.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import home

FOLDER = "remembered"


def answer(name: str, basis: dict[str, Any], lifetime: float, ask: Callable[[], Any]) -> Any:
    """`ask()`'s answer, from the file when it was asked less than `lifetime` seconds ago with
    the same `basis` (anything JSON can hold that changes when the answer may change)."""
    wanted = json.loads(json.dumps(basis, default=str))  # as it reads back from the file
    path = _path(name)
    try:
        kept = json.loads(path.read_text(encoding="utf-8"))
        if (isinstance(kept, dict) and kept.get("basis") == wanted
                and 0 <= time.time() - float(kept.get("at", 0)) < lifetime):
            return kept.get("answer")
    except (OSError, ValueError, TypeError):
        pass
    found = ask()
    try:
        home.ensure_private_dir(path.parent)
        home.write_private(path, json.dumps({"basis": wanted, "at": time.time(), "answer": found}))
    except OSError:
        pass  # a read-only home: asked again next time
    return found


def forget(name: str) -> None:
    """Drop a kept answer (after Loreline itself changed what it depends on)."""
    try:
        _path(name).unlink()
    except OSError:
        pass


def file_basis(path: Path | str) -> list[Any]:
    """What identifies a file's current content cheaply: its path, inode, size and mtime (or
    that it is absent)."""
    try:
        st = os.stat(path)
    except OSError:
        return [str(path), None]
    return [str(path), st.st_ino, st.st_size, st.st_mtime_ns]


def _path(name: str) -> Path:
    return home.state_dir() / FOLDER / f"{name}.json"
