"""Where each assistant keeps its files: Claude Code's config folder, Codex's home, Cursor's
folder; a path given by the caller first, then the assistant's own environment variable, then
the folder in the user's home. Kept apart from `transcripts.discover` (which re-exports these)
so that naming a settings file does not load every transcript reader."""

from __future__ import annotations

import os
from pathlib import Path


def claude_dir(explicit: str | None = None) -> Path:
    return _root(explicit, "CLAUDE_CONFIG_DIR", ".claude")


def codex_home(explicit: str | None = None) -> Path:
    return _root(explicit, "CODEX_HOME", ".codex")


def cursor_dir(explicit: str | None = None) -> Path:
    return _root(explicit, None, ".cursor")


def _root(explicit: str | None, env_name: str | None, default: str) -> Path:
    if explicit:
        return Path(explicit).expanduser()
    env = os.environ.get(env_name, "").strip() if env_name else ""
    return Path(env).expanduser() if env else Path.home() / default
