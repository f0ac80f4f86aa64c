"""The files the current branch changes: what SessionStart ranks first within a kind.

One `git diff --name-only --merge-base <default branch>` in the session's folder: the files
changed since the branch left the default branch, committed or not (the diff runs against the
working tree). The default branch is read from files, not asked of git: `origin/HEAD`'s
target, else a local `main`, else `master`; on the default branch itself the diff is just the
uncommitted changes. Paths come relative to the repository's top, as `memory_files` keeps
them. Not a git repository, no git, a slow git (over `TIMEOUT` seconds) or any failure: no
files, and SessionStart keeps its usual order.
"""

from __future__ import annotations

import os

TIMEOUT = 1.0
MAX_FILES = 500
#: nothing a repository's own config names runs: no fsmonitor program, no pager
SAFE = ("-c", "core.fsmonitor=false", "-c", "core.pager=cat", "--no-optional-locks")


def changed_files(cwd: str | None) -> list[str]:
    if not cwd or not os.path.isdir(cwd):
        return []
    common = _common_dir(cwd)
    if common is None:
        return []
    import subprocess

    env = {**os.environ, "LC_ALL": "C"}
    try:
        done = subprocess.run(["git", "-C", cwd, *SAFE, "diff", "--name-only", "--no-renames", "--no-ext-diff",
                               "--merge-base", _base(common), "--"],
                              stdin=subprocess.DEVNULL, capture_output=True, timeout=TIMEOUT, env=env, check=False)
    except (OSError, subprocess.SubprocessError):
        return []
    if done.returncode != 0:
        return []
    return [p for p in done.stdout.decode("utf-8", "replace").splitlines() if p][:MAX_FILES]


def _common_dir(cwd: str) -> str | None:
    """The repository's shared git folder (a linked worktree's `commondir`), or None."""
    folder = os.path.abspath(cwd)
    while True:
        marker = os.path.join(folder, ".git")
        if os.path.isdir(marker):
            return marker
        if os.path.isfile(marker):
            return _from_git_file(marker)
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def _from_git_file(marker: str) -> str | None:
    try:
        with open(marker, encoding="utf-8", errors="replace") as handle:
            first = handle.readline().strip()
    except OSError:
        return None
    if not first.startswith("gitdir:"):
        return None
    gitdir = os.path.join(os.path.dirname(marker), first.split(":", 1)[1].strip())
    try:
        with open(os.path.join(gitdir, "commondir"), encoding="utf-8") as handle:
            return os.path.normpath(os.path.join(gitdir, handle.read().strip()))
    except OSError:
        return gitdir


def _base(common: str) -> str:
    try:
        with open(os.path.join(common, "refs", "remotes", "origin", "HEAD"), encoding="utf-8") as handle:
            target = handle.read().strip()
        if target.startswith("ref: refs/remotes/"):
            return target[len("ref: refs/remotes/"):]
    except OSError:
        pass
    packed = _packed(common)
    for name in ("main", "master"):
        if os.path.isfile(os.path.join(common, "refs", "heads", name)) or f" refs/heads/{name}\n" in packed:
            return name
    return "HEAD"


def _packed(common: str) -> str:
    try:
        with open(os.path.join(common, "packed-refs"), encoding="utf-8", errors="replace") as handle:
            return handle.read(1 << 20)
    except OSError:
        return ""
