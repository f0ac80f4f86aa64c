"""One project across machines: its normalised git remote.

`/home/ana/src/billing` and `/Users/raj/work/billing` are the same project when their
`origin` remotes name the same repository, whatever the form: `git@host:org/repo.git`,
`ssh://git@host:22/org/repo`, `https://user@host/org/repo.git/` all become `host/org/repo`.
An override wins: `git config loreline.remote NAME` inside the repository, else the
`team.remote` setting (for a home that works on one project). A project with neither
remote nor override is not shared.
"""

from __future__ import annotations

import configparser
import re
from pathlib import Path

_SCP = re.compile(r"^(?:[^@/]+@)?([^:/]+):(?!//)(.+)$")
_URL = re.compile(r"^([a-z][a-z0-9+.-]*)://(?:[^@/]*@)?([^/:]+)(?::\d+)?(/.*)?$", re.IGNORECASE)


def normalise(url: str) -> str | None:
    """The remote's repository as `host/path` (lower-case host, no user, port, `.git` or slashes)."""
    url = url.strip()
    if not url:
        return None
    found = _URL.match(url)
    if found:
        scheme, host, path = found.group(1).lower(), found.group(2), found.group(3) or ""
        if scheme == "file":
            return None
    else:
        scp = _SCP.match(url)
        if scp is None or url.startswith(("/", ".")):
            return None
        host, path = scp.group(1), scp.group(2)
    path = re.sub(r"/+", "/", path).strip("/")
    if path.endswith(".git"):
        path = path[:-4]
    path = path.strip("/")
    return f"{host.lower()}/{path}" if path else None


def remote_for(project: str, override: str = "") -> str | None:
    """The shared id of a local project (a folder key), or None when it has none."""
    git = _git_config(Path(project))
    if git is not None:
        own = _get(git, 'loreline', "remote")
        if own:
            return own.strip()
    if override.strip():
        return override.strip()
    if git is None:
        return None
    url = _get(git, 'remote "origin"', "url")
    return normalise(url) if url else None


def _git_config(folder: Path) -> configparser.RawConfigParser | None:
    path = folder / ".git" / "config"
    parser = configparser.RawConfigParser(strict=False)
    try:
        parser.read_string(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, configparser.Error):
        return None
    return parser


def _get(parser: configparser.RawConfigParser, section: str, key: str) -> str | None:
    try:
        return parser.get(section, key)
    except (configparser.Error, KeyError):
        return None
