"""What `loreline connect` wrote into other tools' settings files, so `disconnect` removes
exactly that.

One JSON file in the state dir, `connected.json` (0600):

    {"version": 1,
     "files": {"<real path of the settings file>": {
         "<tool>": {"entries": {"<key>": [<entry written>, ...]},
                    "created": ["<key whose container connect created>", ...]}}}}

For Claude Code a key is a hook event and an entry the handler object written under it; for
Codex the key is `notify` and the entry its argv. Files are keyed by their real path, so a
symlinked settings file and its target share one record. Callers hold `connect.locked()`.
An unreadable or damaged manifest counts as empty: matching then falls back to the exact
command this install builds, which never touches a foreign entry.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .. import home
from ..records import field, record

VERSION = 1


@record
class Record:
    """What connect wrote for one tool into one file."""

    entries: dict[str, list[Any]] = field(default_factory=dict)
    created: tuple[str, ...] = ()

    def for_key(self, key: str) -> list[Any]:
        return list(self.entries.get(key, []))


def manifest_path() -> Path:
    return home.state_dir() / "connected.json"


def recorded(real: Path, tool: str) -> Record:
    """The record for `tool` in the settings file at `real` (empty when none)."""
    raw = _load().get("files", {}).get(str(real), {}).get(tool)
    if not isinstance(raw, dict):
        return Record()
    entries = raw.get("entries")
    created = raw.get("created")
    clean = {str(k): list(v) for k, v in entries.items() if isinstance(v, list)} if isinstance(entries, dict) else {}
    return Record(clean, tuple(str(c) for c in created) if isinstance(created, list) else ())


def save(real: Path, tool: str, record: Record | None) -> None:
    """Store `record` for `tool` in the file at `real`; None forgets it."""
    data = _load()
    files = data.setdefault("files", {})
    tools = files.setdefault(str(real), {})
    if record is None:
        tools.pop(tool, None)
    else:
        tools[tool] = {"entries": record.entries, "created": list(record.created)}
    if not tools:
        files.pop(str(real), None)
    data["version"] = VERSION
    home.write_private(manifest_path(), json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def _load() -> dict[str, Any]:
    try:
        data = json.loads(manifest_path().read_bytes())
    except (OSError, ValueError):
        return {"version": VERSION, "files": {}}
    if not isinstance(data, dict) or not isinstance(data.get("files"), dict):
        return {"version": VERSION, "files": {}}
    return data
