"""Where Loreline keeps its files.

One root, overridable by `LORELINE_HOME` (every test points it at a temp dir). When it is
unset the platform's data, config and state dirs are used. Directories are created 0700 and
files 0600 whatever the umask: every writer goes through `ensure_private_dir`, `open_private`,
`write_private` or `private_lock`.

Kept import-light: the hook entry imports this module on every assistant turn.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

TYPE_CHECKING = False  # importing typing costs the hook milliseconds
if TYPE_CHECKING:
    from typing import Any

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


PRIVATE_FILE = 0o600
PRIVATE_DIR = 0o700


def ensure_private_dir(path: Path) -> Path:
    """Create `path` and any missing parents 0700 whatever the umask. An existing folder loses
    group and other bits but never gains any (a folder the user made read-only stays so)."""
    missing: list[Path] = []
    probe = path
    while not os.path.lexists(probe) and probe != probe.parent:
        missing.append(probe)
        probe = probe.parent
    for folder in reversed(missing):
        try:
            os.mkdir(folder, PRIVATE_DIR)
        except FileExistsError:
            continue
        os.chmod(folder, PRIVATE_DIR)
    mode = path.stat().st_mode & 0o777
    if mode & 0o077:
        try:
            os.chmod(path, mode & 0o700)
        except OSError:
            pass  # not ours to change (or a read-only mount): nothing Loreline writes goes there
    return path


def make_private_file(path: Path) -> None:
    """Restrict an existing file to its owner (0600)."""
    try:
        if (path.stat().st_mode & 0o777) != PRIVATE_FILE:
            os.chmod(path, PRIVATE_FILE)
    except FileNotFoundError:
        pass


def open_private(path: Path, flags: int) -> int:
    """`os.open` for a file of Loreline's own: created 0600 in a 0700 folder whatever the umask
    (the mode is set on the descriptor, so no other user can open it in between)."""
    ensure_private_dir(path.parent)
    fd = os.open(path, flags | os.O_CREAT, PRIVATE_FILE)
    try:
        if hasattr(os, "fchmod") and (os.fstat(fd).st_mode & 0o777) != PRIVATE_FILE:
            os.fchmod(fd, PRIVATE_FILE)
    except OSError:
        os.close(fd)
        raise
    return fd


def write_private(path: Path, data: bytes | str) -> None:
    """Replace `path` with `data` in one rename: a 0600 file in a 0700 folder whatever the umask.
    Every file Loreline writes whole (config, caches, manifests, backups) goes through here."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    fd = open_private(tmp, os.O_WRONLY | os.O_EXCL)
    try:
        try:
            view = memoryview(raw)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def private_lock(path: Path, timeout: float = -1) -> Any:
    """A `filelock.FileLock` whose lock file is 0600 (its default is 0666 less the umask)."""
    from filelock import FileLock

    ensure_private_dir(path.parent)
    return FileLock(str(path), timeout=timeout, mode=PRIVATE_FILE)


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
