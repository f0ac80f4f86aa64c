"""Where Gemini CLI keeps its files: `~/.gemini`, or `$GEMINI_CLI_HOME/.gemini` when `$GEMINI_CLI_HOME` is set (the variable names a home holding it).

The adapter's own modules ask here; everything else asks the registry (`Assistant.home`)."""

from __future__ import annotations

import os
from pathlib import Path

from ..base import home_folder

DEFAULT = ".gemini"
ENV = "GEMINI_CLI_HOME"
ENV_PARENT = True
#: the cached credentials of a Google login, in its folder
GOOGLE_LOGIN_FILES = ("oauth_creds.json", "google_accounts.json")


def home(explicit: str | os.PathLike[str] | None = None) -> Path:
    return home_folder(DEFAULT, ENV, explicit, env_parent=ENV_PARENT)
