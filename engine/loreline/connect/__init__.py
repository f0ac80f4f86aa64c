"""Installing Loreline's capture into other tools' settings (Claude Code, Codex).

Shared rules for every connector:
- merge, never replace: the user's other settings, hooks and comments stay as they were;
- recognisable: Loreline's entries are found by their command (`loreline-hook` or
  `loreline_hooks.entry`), so connecting twice changes nothing, a moved install is updated,
  and disconnecting removes exactly what connect added;
- safe writes: nothing is written when the existing file cannot be parsed (ConfigError
  naming it); the first change leaves a `<name>.loreline-backup-<UTC time>` copy beside it;
  the new file replaces the old atomically, with the old file's permissions, under a lock;
- the hook command is an absolute path (the installed `loreline-hook`, else this
  interpreter with `-m loreline_hooks.entry`), never a version-manager shim, which costs a
  hook ~90 ms per call.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from .. import home

MARKERS = ("loreline-hook", "loreline_hooks.entry")
BACKUP_TAG = ".loreline-backup-"


@dataclass(frozen=True, slots=True)
class Change:
    """What a connect or disconnect did to one file."""

    path: Path
    changed: bool
    backup: Path | None = None
    detail: str = ""


def hook_argv() -> list[str]:
    """The absolute command that runs the hook entry (without the event argument)."""
    name = "loreline-hook.exe" if os.name == "nt" else "loreline-hook"
    beside = Path(sys.executable).parent / name
    if beside.is_file() and os.access(beside, os.X_OK):
        return [str(beside)]
    found = shutil.which(name)
    if found and os.path.isabs(found) and not _is_shim(found):
        return [found]
    return module_argv()


def module_argv() -> list[str]:
    """This interpreter running the hook module; `-P` keeps the project (the hook's working
    directory) off `sys.path`, so a `json.py` or `loreline_hooks/` in a repository never runs."""
    return [os.path.abspath(sys.executable), "-P", "-m", "loreline_hooks.entry"]


def _is_shim(path: str) -> bool:
    parts = Path(path).parts
    return "shims" in parts or ".asdf" in parts


def is_ours(command: object) -> bool:
    text = " ".join(str(c) for c in command) if isinstance(command, list) else str(command)
    return any(marker in text for marker in MARKERS)


@contextmanager
def locked() -> Iterator[None]:
    """Serialise Loreline's edits of other tools' settings files."""
    from filelock import FileLock

    lock_path = home.ensure_private_dir(home.state_dir()) / "connect.lock"
    with FileLock(str(lock_path), timeout=30):
        yield


def backup_once(path: Path) -> Path | None:
    """Copy `path` aside before Loreline first changes it; None when a copy exists or no file."""
    if not path.exists() or any(path.parent.glob(path.name + BACKUP_TAG + "*")):
        return None
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    target = path.with_name(path.name + BACKUP_TAG + stamp)
    shutil.copy2(path, target)
    return target


def write_atomic(path: Path, text: str) -> None:
    """Replace `path` with `text` in one rename, keeping its permissions (0600 when new)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o600
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
