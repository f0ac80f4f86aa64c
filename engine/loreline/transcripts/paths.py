"""The file paths a tool call names: metadata for linking memories to files, and the paths of an
action line (`actions`). Each path is checked once for secrets: these values are stored and shown
as they are."""

from __future__ import annotations

import functools
from typing import Any, TypeGuard

#: keys of a tool input that name one file the tool reads or edits
FILE_KEYS = ("file_path", "notebook_path", "filePath", "target_file", "target_notebook", "path")
_FILE_KEY_SET = frozenset(FILE_KEYS)
#: tools whose `path` is a folder searched, not a file read
SEARCH_TOOLS = frozenset({"Grep", "Glob", "LS", "grep", "glob", "list_dir", "codebase_search", "file_search"})
MAX_PATH_CHARS = 1024


def tool_input_paths(name: Any, tool_input: Any) -> list[str]:
    """File paths a structured tool call reads or edits (never a searched folder)."""
    if not isinstance(tool_input, dict) or not _FILE_KEY_SET.intersection(tool_input):
        return []
    found: list[str] = []
    for key in FILE_KEYS:
        if key == "path" and isinstance(name, str) and name in SEARCH_TOOLS:
            continue
        value = tool_input.get(key)
        if is_path(value):
            found.append(value)
    return found


def is_path(value: Any) -> TypeGuard[str]:
    """A plausible file path worth keeping as metadata. URLs and anything holding a secret
    are not kept: these values are stored and shown as they are, without redaction."""
    return (isinstance(value, str) and 0 < len(value) < MAX_PATH_CHARS and "\n" not in value
            and "://" not in value and _secret_free(value))


@functools.lru_cache(maxsize=4096)
def _secret_free(path: str) -> bool:
    """A session reads and edits the same files again and again: each path is scanned once."""
    from ..privacy.redact import contains_secret  # here: finding sessions needs no redactor

    return not contains_secret(path)
