"""Project keys: which project a session, a hook or an editor folder belongs to.

The key is the git top-level of the working directory when the folder exists (a linked
worktree maps to its main worktree, so all worktrees of one repository share memories),
else the normalised absolute path. It is always set by the application from the capture
context, never by a model.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

from .privacy.identifiers import stored

UNKNOWN = "(unknown)"


def project_key(cwd: str | None) -> str:
    """The project of `cwd`, as stored: a secret in the path is redacted (`privacy.identifiers`)."""
    if not cwd:
        return UNKNOWN
    return stored(_resolve(os.path.normpath(os.path.abspath(os.path.expanduser(cwd)))))


@lru_cache(maxsize=1024)
def _resolve(path: str) -> str:
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
