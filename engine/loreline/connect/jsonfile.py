"""A settings file in JSON, read and written back in its own layout.

`read` gives the file's text (for its layout) and its object; `dump` writes an object back
laid out like that text: keys keep their order and the indentation width (spaces or tabs),
line endings and final newline are kept, but spacing inside a line, number spellings (`1e3`)
and escapes (`\\u00e9`) come out in Python's canonical form, and a key repeated in one object
keeps its last value. Every connector that edits a JSON settings file uses these.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from ..errors import ConfigError


def load(path: Path) -> dict[str, Any]:
    return read(path)[1]


def read(path: Path) -> tuple[str, dict[str, Any]]:
    """The file's text (for its layout) and its JSON object; ("", {}) when absent or empty."""
    try:
        with path.open(encoding="utf-8", newline="") as handle:  # line endings as they are
            text = handle.read()
    except FileNotFoundError:
        return "", {}
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError(f"cannot read {path}: {getattr(err, 'strerror', None) or err}") from None
    if not text.strip():
        return text, {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise ConfigError(f"{path} is not valid JSON (line {err.lineno}, column {err.colno}: {err.msg}); "
                          "fix it or move it aside, then connect again. Nothing was changed.") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path} must hold a JSON object; nothing was changed")
    return text, data


def dump(data: dict[str, Any], original: str = "") -> str:
    """`data` as JSON laid out like `original`: its indentation (width, or tabs), line endings
    and final newline; a single-line file stays on one line; a new file gets two spaces."""
    indent: int | str | None = 2
    found = re.search(r"\n([ \t]+)\S", original)
    if found:
        indent = found.group(1) if "\t" in found.group(1) else len(found.group(1))
    elif original.strip():
        indent = None if "\n" not in original.strip() else 2
    text = json.dumps(data, indent=indent, ensure_ascii=False)
    if original.endswith("\n") or not original.strip():
        text += "\n"
    return text.replace("\n", "\r\n") if "\r\n" in original else text
