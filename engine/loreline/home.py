"""Where Loreline keeps its files.

One root, overridable by `LORELINE_HOME` (every test points it at a temp dir). When it is
unset the platform's data, config and state dirs are used. Directories are created 0700;
files that hold user data are created 0600 by their writers.

Kept import-light: the hook entry imports this module on every assistant turn.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

APP = "loreline"
DB_NAME = "loreline.db"
#: the XDG variable and default of each user dir on Linux (what platformdirs returns there)
_XDG = {"data": ("XDG_DATA_HOME", ".local/share"), "config": ("XDG_CONFIG_HOME", ".config"),
        "state": ("XDG_STATE_HOME", ".local/state")}


def _override() -> Path | None:
    value = os.environ.get("LORELINE_HOME", "").strip()
    return Path(value).expanduser() if value else None


def _linux(kind: str) -> Path | None:
    """The XDG user dir on Linux without importing platformdirs (~8 ms a hook cannot spare);
    None elsewhere or with an unusual HOME, where platformdirs decides."""
    if sys.platform != "linux" or os.environ.get("ANDROID_DATA") == "/data":
        return None
    variable, default = _XDG[kind]
    base = os.environ.get(variable, "")
    if not os.path.isabs(base):
        user_home = os.environ.get("HOME", "")
        if not os.path.isabs(user_home):
            return None
        base = os.path.join(user_home, default)
    return Path(base) / APP


def data_dir() -> Path:
    root = _override() or _linux("data")
    if root is not None:
        return root
    import platformdirs

    return Path(platformdirs.user_data_dir(APP, appauthor=False))


def config_dir() -> Path:
    root = _override() or _linux("config")
    if root is not None:
        return root
    import platformdirs

    return Path(platformdirs.user_config_dir(APP, appauthor=False))


def state_dir() -> Path:
    root = _override()
    if root is not None:
        return root / "state"
    fast = _linux("state")
    if fast is not None:
        return fast
    import platformdirs

    return Path(platformdirs.user_state_dir(APP, appauthor=False))


def distill_workdir() -> Path:
    """The working directory of the claude-code backend's runs: Loreline's own, so discovery
    can tell a distillation transcript (were one ever left) from a user's session."""
    return state_dir() / "claude-code-distill"


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


class using:  # noqa: N801 (used as `with home.using(path):`)
    """Point `LORELINE_HOME` at `root` for the duration (benchmarks, evaluations), then restore
    it. A plain class, not `contextlib`: this module is imported by every hook call."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._before: str | None = None

    def __enter__(self) -> Path:
        self._before = os.environ.get("LORELINE_HOME")
        os.environ["LORELINE_HOME"] = str(self.root)
        return self.root

    def __exit__(self, *exc: object) -> None:
        if self._before is None:
            os.environ.pop("LORELINE_HOME", None)
        else:
            os.environ["LORELINE_HOME"] = self._before
