"""Where Codex keeps its files: `~/.codex`, or `$CODEX_HOME` when set.

The adapter's own modules ask here; everything else asks the registry (`Assistant.home`)."""

from __future__ import annotations

import os
from pathlib import Path

from ..base import home_folder

DEFAULT = ".codex"
ENV = "CODEX_HOME"
ENV_PARENT = False


def home(explicit: str | os.PathLike[str] | None = None) -> Path:
    return home_folder(DEFAULT, ENV, explicit, env_parent=ENV_PARENT)
