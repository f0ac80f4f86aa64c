"""Where Loreline keeps its files.

One root, overridable by `LORELINE_HOME` (every test points it at a temp dir). When it is
unset the platform's data, config and state dirs are used. Directories are created 0700;
files that hold user data are created 0600 by their writers.

Kept import-light: the hook entry imports this module on every assistant turn.
"""

from __future__ import annotations

import os
from pathlib import Path

APP = "loreline"
DB_NAME = "loreline.db"


def _override() -> Path | None:
    value = os.environ.get("LORELINE_HOME", "").strip()
    return Path(value).expanduser() if value else None


def data_dir() -> Path:
    root = _override()
    if root is not None:
        return root
    import platformdirs

    return Path(platformdirs.user_data_dir(APP, appauthor=False))


def config_dir() -> Path:
    root = _override()
    if root is not None:
        return root
    import platformdirs

    return Path(platformdirs.user_config_dir(APP, appauthor=False))


def state_dir() -> Path:
    root = _override()
    if root is not None:
        return root / "state"
    import platformdirs

    return Path(platformdirs.user_state_dir(APP, appauthor=False))


def db_path() -> Path:
    return data_dir() / DB_NAME


def config_path() -> Path:
    return config_dir() / "config.toml"


def spool_dir() -> Path:
    return data_dir() / "spool"


def ensure_private_dir(path: Path) -> Path:
    """Create `path` (and parents) and make sure only the owner can enter it."""
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    if (path.stat().st_mode & 0o777) != 0o700:
        os.chmod(path, 0o700)
    return path


def make_private_file(path: Path) -> None:
    """Restrict an existing file to its owner (0600)."""
    try:
        if (path.stat().st_mode & 0o777) != 0o600:
            os.chmod(path, 0o600)
    except FileNotFoundError:
        pass
