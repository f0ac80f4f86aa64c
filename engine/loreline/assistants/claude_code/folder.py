"""Where Claude Code keeps its files: `~/.claude`, or `$CLAUDE_CONFIG_DIR` when set.

The adapter's own modules ask here; everything else asks the registry (`Assistant.home`)."""

from __future__ import annotations

import os
from pathlib import Path

from ..base import home_folder

DEFAULT = ".claude"
ENV = "CLAUDE_CONFIG_DIR"
ENV_PARENT = False


def home(explicit: str | os.PathLike[str] | None = None) -> Path:
    return home_folder(DEFAULT, ENV, explicit, env_parent=ENV_PARENT)
