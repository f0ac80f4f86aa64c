"""Project keys: which project a session, a hook or an editor folder belongs to.

The key is the git top-level of the working directory when the folder exists (a linked
worktree maps to its main worktree, so all worktrees of one repository share memories),
else the normalised absolute path. It is always set by the application from the capture
context, never by a model.

A key never depends on the folder the process runs in when the path is absolute on any
system: a session's working directory from another system (a Windows `X:\\…` or
`\\\\server\\share\\…` folder read on Linux or macOS, a POSIX `/…` folder read on Windows)
stays absolute, normalised the way that system writes it (`X:\\work\\app`), so the hook and an
import of the same session agree whatever folder each was started in. Only a relative path
(`--project .`) is taken from the current folder.
"""

from __future__ import annotations

import ntpath
import os
import posixpath
from functools import lru_cache
from pathlib import Path

from .privacy.identifiers import stored

UNKNOWN = "(unknown)"


def project_key(cwd: str | None) -> str:
    """The project of `cwd`, as stored: a secret in the path is redacted (`privacy.identifiers`)."""
    if not cwd:
        return UNKNOWN
    return stored(_resolve(absolute(cwd)))


def absolute(path: str, windows: bool = os.name == "nt") -> str:
    """`path` absolute and normalised (`windows`: whether this system is Windows). A path
    absolute on the other system keeps that system's form and is never joined to the current
    folder."""
    if not windows and _windows_absolute(path):
        drive, rest = ntpath.splitdrive(ntpath.normpath(path))
        return (drive[:1].upper() + drive[1:] if drive[1:2] == ":" else drive) + rest
    if windows and path.startswith("/") and not path.startswith("//"):
        return posixpath.normpath(path)
    return os.path.normpath(os.path.abspath(os.path.expanduser(path)))


def _windows_absolute(path: str) -> bool:
    """`X:\\…`, `X:/…` or `\\\\server\\share…`: a Windows folder, absolute there."""
    drive = len(path) >= 3 and path[0].isascii() and path[0].isalpha() and path[1] == ":" and path[2] in "\\/"
    return drive or path.startswith("\\\\")


@lru_cache(maxsize=1024)
def _resolve(path: str) -> str:
    if not os.path.isabs(path):  # another system's folder: nothing of it is on this disk
        return path
    here = Path(path)
    if here.is_file():
        here = here.parent
    elif not here.is_dir():
        return path
    for folder in (here, *here.parents):
        marker = folder / ".git"
        if marker.is_dir():
            return str(folder)
        if marker.is_file():
            return str(_main_worktree(marker) or folder)
    return str(here)


def _main_worktree(marker: Path) -> Path | None:
    """For a `.git` file (`gitdir: …/.git/worktrees/<name>`), the main worktree's folder."""
    try:
        first = marker.read_text(encoding="utf-8", errors="replace").splitlines()[0]
    except (OSError, IndexError):
        return None
    if not first.startswith("gitdir:"):
        return None
    gitdir = Path(first.split(":", 1)[1].strip())
    if not gitdir.is_absolute():
        gitdir = (marker.parent / gitdir).resolve()
    common = gitdir / "commondir"
    if common.is_file():
        try:
            target = (gitdir / common.read_text(encoding="utf-8").strip()).resolve()
        except OSError:
            return None
        return target.parent if target.name == ".git" else target
    return None
