"""Path mapping for a project that lives at another path on another machine (`--map FROM=TO`)."""

from __future__ import annotations

import os

from ..errors import LorelineError
from ..records import record


@record
class PathMap:
    """Prefix pairs, longest first; a prefix matches a whole path or a path under it."""

    pairs: tuple[tuple[str, str], ...] = ()

    def apply(self, path: str | None) -> str | None:
        if not path or not self.pairs:
            return path
        for old, new in self.pairs:
            if path == old:
                return new
            if path.startswith(old.rstrip("/\\") + "/"):
                return new.rstrip("/\\") + path[len(old.rstrip("/\\")):]
        return path


def parse(specs: list[str] | None) -> PathMap:
    """`FROM=TO` strings → a PathMap; a malformed one is one clear error."""
    pairs: list[tuple[str, str]] = []
    for spec in specs or []:
        old, sep, new = spec.partition("=")
        if not sep or not old.strip() or not new.strip():
            raise LorelineError(f"--map wants FROM=TO (two paths), not {spec!r}")
        pairs.append((_norm(old), _norm(new)))
    pairs.sort(key=lambda pair: len(pair[0]), reverse=True)
    return PathMap(tuple(pairs))


def _norm(path: str) -> str:
    path = path.strip()
    return path if len(path) <= 1 else path.rstrip("/\\") if not path.endswith(":\\") else path


def project_arg(path: str | None) -> str | None:
    """A `--project` value: the project key of an existing folder, else the path as written."""
    if path is None:
        return None
    from ..project import project_key

    here = os.path.expanduser(path)
    return project_key(here) if os.path.isdir(here) else os.path.normpath(here)
