"""Registering Loreline's MCP server (`loreline mcp`) in an assistant's settings.

Each assistant says where its entry goes (`assistants/<name>/mcp.py`): a JSON `mcpServers`
object (`connect_json`, keyed by the user scope or a project folder) or its own format with
the ownership helpers here (`remember`, `forget`, `plain`).

The entry is named `loreline` and runs this install's `loreline` executable by its absolute
path with the argument `mcp`. Ownership follows the connect rules (`connect.manifest`): an
entry is Loreline's when it equals what this install writes or what connect recorded, so a
server the user named `loreline` by hand is never replaced or removed; writes go through
`connect.write_atomic` (symlinks followed, modes kept, read-only files refused).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from . import Change, backup_once, check_writable, installed_script, locked, manifest, real_path, write_atomic
from . import jsonfile

NAME = "loreline"
USER_KEY = "(user)"


def loreline_argv() -> list[str]:
    """The absolute command that starts the MCP server."""
    found = installed_script("loreline", allow_shim=True)
    return [found, "mcp"] if found else [os.path.abspath(sys.executable), "-P", "-m", "loreline_mcp"]


def connect_json(path: Path, key: str, tool: str, wanted: dict[str, Any]) -> Change:
    with locked():
        text, data = jsonfile.read(path)
        made = _missing(data, _trail(key))
        servers = _servers(data, key, create=True, path=path)
        assert servers is not None  # create=True makes it or raises
        record = manifest.recorded(real_path(path), tool)
        current = servers.get(NAME)
        if current is not None and current != wanted and current not in record.for_key(key):
            raise ConfigError(f"{path} already has an MCP server named {NAME!r} that Loreline did not add; "
                              "nothing was changed (remove or rename it, then connect again)")
        changed = current != wanted
        backup = None
        if changed:
            check_writable(path)
            servers[NAME] = wanted
            backup = backup_once(path)
            write_atomic(path, jsonfile.rewritten(data, text))
        remember(path, tool, key, wanted, record, made if changed else ())
    return Change(path, changed, backup, detail="MCP server" if changed else "MCP server already registered")


def disconnect_json(path: Path, key: str, tool: str, entry: dict[str, Any], absent: str) -> Change:
    with locked():
        if not path.exists():
            return Change(path, False, detail=absent)
        text, data = jsonfile.read(path)
        servers = _servers(data, key, create=False, path=path)
        record = manifest.recorded(real_path(path), tool)
        current = None if servers is None else servers.get(NAME)
        ours = current is not None and (current == entry or current in record.for_key(key))
        backup = None
        if ours and servers is not None:
            check_writable(path)
            del servers[NAME]
            record = _drop_made(data, record)
            backup = backup_once(path)
            write_atomic(path, jsonfile.rewritten(data, text))
        forget(path, tool, key, record)
    return Change(path, ours, backup, detail="MCP server" if ours else "no Loreline MCP server")


def _trail(key: str) -> list[str]:
    """Where the servers of `key` live: `mcpServers`, or a project's under `projects`."""
    return ["projects", key, "mcpServers"] if key != USER_KEY else ["mcpServers"]


def _missing(data: dict[str, Any], trail: list[str]) -> tuple[str, ...]:
    """The objects along `trail` that connect will create, each as its JSON path (a JSON list)."""
    import json

    holder: Any = data
    for depth, name in enumerate(trail):
        if not isinstance(holder, dict) or name not in holder:
            return tuple(json.dumps(trail[:end]) for end in range(depth + 1, len(trail) + 1))
        holder = holder[name]
    return ()


def _drop_made(data: dict[str, Any], record: manifest.Record) -> manifest.Record:
    """Remove the objects connect created that are empty now, innermost first, and forget
    those; an object that holds something else stays (and stays recorded)."""
    import json

    left = []
    for made in sorted(record.created, key=lambda text: -len(json.loads(text))):
        *parents, name = json.loads(made)
        holder: Any = data
        for part in parents:
            holder = holder.get(part) if isinstance(holder, dict) else None
        if isinstance(holder, dict) and holder.get(name) == {}:
            del holder[name]
        elif isinstance(holder, dict) and name in holder:
            left.append(made)
    return manifest.Record(record.entries, tuple(sorted(left)))


def _servers(data: dict[str, Any], key: str, *, create: bool, path: Path) -> dict[str, Any] | None:
    holder: Any = data
    for name in _trail(key):
        holder = holder.setdefault(name, {}) if create else holder.get(name)
        if not isinstance(holder, dict):
            if create:
                raise ConfigError(f"{path}: `{name}` is not a JSON object; nothing was changed")
            return None
    return holder


def plain(value: Any) -> Any:
    """A tomlkit value as plain Python (dicts, lists, strings) for comparison and the manifest."""
    if value is None:
        return None
    unwrap = getattr(value, "unwrap", None)
    return unwrap() if callable(unwrap) else value


# -- the manifest ------------------------------------------------------------------------------

def remember(path: Path, tool: str, key: str, entry: Any, record: manifest.Record, made: tuple[str, ...] = ()) -> None:
    """Record the entry written under `key`, and the containers (`made`) connect created for it."""
    created = tuple(sorted(set(record.created) | set(made)))
    if record.for_key(key) != [entry] or created != record.created:
        entries = {**record.entries, key: [entry]}
        manifest.save(real_path(path), tool, manifest.Record(entries, created))


def forget(path: Path, tool: str, key: str, record: manifest.Record) -> None:
    """Forget the entry under `key`; the containers still recorded in `record` stay recorded."""
    entries = {k: v for k, v in record.entries.items() if k != key}
    wanted = manifest.Record(entries, record.created)
    if wanted != manifest.recorded(real_path(path), tool):
        manifest.save(real_path(path), tool, wanted if entries or record.created else None)
