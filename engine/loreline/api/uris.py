"""File URIs as paths: the one conversion every front end uses (the language server's
documents and folders, the MCP server's roots, the editors' `folder` and `paths`)."""

from __future__ import annotations

import os
import re
from urllib.parse import unquote, urlsplit

_DRIVE = re.compile(r"^/[a-zA-Z]:")


def file_path(uri: str) -> str | None:
    """The filesystem path a `file:` URI names, percent-decoded; None for another scheme.

    `file:///home/a%20b/x.py` → `/home/a b/x.py`; a host names a UNC share
    (`file://server/share/x` → `//server/share/x`); a drive letter is lowercased
    (`file:///C:/x` → `c:/x`) and, on Windows, the separators become backslashes."""
    try:
        parts = urlsplit(uri)
    except ValueError:
        return None
    if unquote(parts.scheme) != "file":
        return None
    host, path = unquote(parts.netloc), unquote(parts.path)
    if host and path:
        value = f"//{host}{path}"
    elif _DRIVE.match(path):
        value = path[1].lower() + path[2:]
    else:
        value = path
    return value.replace("/", "\\") if os.name == "nt" else value
