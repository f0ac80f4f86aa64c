"""Registering Loreline's MCP server (`loreline mcp`) with Claude Code, Codex and Gemini CLI.

Claude Code keeps MCP servers where its own `claude mcp add` puts them: the user scope is
`mcpServers` at the top of its global config (`~/.claude.json`, or `$CLAUDE_CONFIG_DIR/.claude.json`);
the local scope, personal to one project and never committed, is `projects[<folder>].mcpServers`
in the same file. Codex reads `[mcp_servers.<name>]` tables from `$CODEX_HOME/config.toml`.
Gemini CLI reads `mcpServers` (`{command, args}`) from its user `settings.json`.

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
from . import claude_code as cc

NAME = "loreline"
CLAUDE_TOOL = "claude-code-mcp"
CODEX_TOOL = "codex-mcp"
GEMINI_TOOL = "gemini-mcp"
USER_KEY = "(user)"


def loreline_argv() -> list[str]:
    """The absolute command that starts the MCP server."""
    found = installed_script("loreline", allow_shim=True)
    return [found, "mcp"] if found else [os.path.abspath(sys.executable), "-P", "-m", "loreline_mcp"]


def claude_config_path() -> Path:
    base = os.environ.get("CLAUDE_CONFIG_DIR", "").strip()
    return (Path(base).expanduser() if base else Path.home()) / ".claude.json"


def claude_entry() -> dict[str, Any]:
    command, *args = loreline_argv()
    return {"type": "stdio", "command": command, "args": args, "env": {}}


def connect_claude(project: Path | None = None, path: Path | None = None) -> Change:
    """Add the server to the user scope, or to `project`'s local scope."""
    path = path or claude_config_path()
    return _connect_json(path, USER_KEY if project is None else str(project), CLAUDE_TOOL, claude_entry())


def disconnect_claude(project: Path | None = None, path: Path | None = None) -> Change:
    path = path or claude_config_path()
    return _disconnect_json(path, USER_KEY if project is None else str(project), CLAUDE_TOOL, claude_entry(),
                            "no Claude Code config")


def gemini_entry() -> dict[str, Any]:
    command, *args = loreline_argv()
    return {"command": command, "args": args}


def connect_gemini(path: Path) -> Change:
    """`mcpServers.loreline` in Gemini CLI's user settings.json."""
    return _connect_json(path, USER_KEY, GEMINI_TOOL, gemini_entry())


def disconnect_gemini(path: Path) -> Change:
    return _disconnect_json(path, USER_KEY, GEMINI_TOOL, gemini_entry(), "no Gemini CLI settings")


def _connect_json(path: Path, key: str, tool: str, wanted: dict[str, Any]) -> Change:
    with locked():
        text, data = cc.read(path)
        servers = _claude_servers(data, key, create=True, path=path)
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
            write_atomic(path, cc.dump(data, text))
        _remember(path, tool, key, wanted, record)
    return Change(path, changed, backup, detail="MCP server" if changed else "MCP server already registered")


def _disconnect_json(path: Path, key: str, tool: str, entry: dict[str, Any], absent: str) -> Change:
    with locked():
        if not path.exists():
            return Change(path, False, detail=absent)
        text, data = cc.read(path)
        servers = _claude_servers(data, key, create=False, path=path)
        record = manifest.recorded(real_path(path), tool)
        current = None if servers is None else servers.get(NAME)
        ours = current is not None and (current == entry or current in record.for_key(key))
        backup = None
        if ours and servers is not None:
            check_writable(path)
            del servers[NAME]
            backup = backup_once(path)
            write_atomic(path, cc.dump(data, text))
        _forget(path, tool, key, record)
    return Change(path, ours, backup, detail="MCP server" if ours else "no Loreline MCP server")


def _claude_servers(data: dict[str, Any], key: str, *, create: bool, path: Path) -> dict[str, Any] | None:
    holder: Any = data
    trail = ["projects", key] if key != USER_KEY else []
    for name in [*trail, "mcpServers"]:
        holder = holder.setdefault(name, {}) if create else holder.get(name)
        if not isinstance(holder, dict):
            if create:
                raise ConfigError(f"{path}: `{name}` is not a JSON object; nothing was changed")
            return None
    return holder


# -- Codex -----------------------------------------------------------------------------------

def connect_codex(path: Path | None = None) -> Change:
    from .codex import _dumps, _load, config_path

    path = path or config_path()
    with locked():
        doc = _load(path)
        record = manifest.recorded(real_path(path), CODEX_TOOL)
        wanted = _codex_entry()
        tables = doc.get("mcp_servers")
        current = _plain(tables.get(NAME)) if tables is not None and hasattr(tables, "get") else None
        if current is not None and current != wanted and current not in record.for_key(NAME):
            raise ConfigError(f"{path} already has [mcp_servers.{NAME}] that Loreline did not add; nothing was "
                              "changed (remove or rename it, then connect again)")
        changed = current != wanted
        backup = None
        if changed:
            check_writable(path)
            _set_codex_table(doc, wanted)
            backup = backup_once(path)
            write_atomic(path, _dumps(doc))
        _remember(path, CODEX_TOOL, NAME, wanted, record)
    return Change(path, changed, backup, detail="MCP server" if changed else "MCP server already registered")


def disconnect_codex(path: Path | None = None) -> Change:
    from .codex import _dumps, _load, config_path

    path = path or config_path()
    with locked():
        if not path.exists():
            return Change(path, False, detail="no Codex config")
        doc = _load(path)
        record = manifest.recorded(real_path(path), CODEX_TOOL)
        tables = doc.get("mcp_servers")
        current = _plain(tables.get(NAME)) if tables is not None and hasattr(tables, "get") else None
        ours = current is not None and (current == _codex_entry() or current in record.for_key(NAME))
        backup = None
        if ours and tables is not None:
            check_writable(path)
            del tables[NAME]
            if not tables:
                del doc["mcp_servers"]
            backup = backup_once(path)
            write_atomic(path, _trailing_like(_dumps(doc), path.read_text(encoding="utf-8")))
        _forget(path, CODEX_TOOL, NAME, record)
    return Change(path, ours, backup, detail="MCP server" if ours else "no Loreline MCP server")


#: Codex starts MCP servers with a bare environment: these pass through (the store's home, the
#: session's opt-out)
CODEX_ENV_VARS = ["LORELINE_HOME", "LORELINE_OFF"]


def _trailing_like(text: str, original: str) -> str:
    """The blank lines tomlkit leaves where a removed table stood go; the file ends as it did."""
    end = len(original) - len(original.rstrip("\n"))
    return text.rstrip("\n") + "\n" * end


def _codex_entry() -> dict[str, Any]:
    command, *args = loreline_argv()
    return {"command": command, "args": args, "env_vars": CODEX_ENV_VARS}


def _set_codex_table(doc: Any, wanted: dict[str, Any]) -> None:
    import tomlkit

    tables = doc.get("mcp_servers")
    if tables is None:
        tables = tomlkit.table(is_super_table=True)
        doc["mcp_servers"] = tables
    entry = tomlkit.table()
    entry["command"] = wanted["command"]
    entry["args"] = wanted["args"]
    entry["env_vars"] = wanted["env_vars"]
    tables[NAME] = entry


def _plain(value: Any) -> Any:
    """A tomlkit value as plain Python (dicts, lists, strings) for comparison and the manifest."""
    if value is None:
        return None
    unwrap = getattr(value, "unwrap", None)
    return unwrap() if callable(unwrap) else value


# -- the manifest ------------------------------------------------------------------------------

def _remember(path: Path, tool: str, key: str, entry: Any, record: manifest.Record) -> None:
    if record.for_key(key) != [entry]:
        entries = {**record.entries, key: [entry]}
        manifest.save(real_path(path), tool, manifest.Record(entries, record.created))


def _forget(path: Path, tool: str, key: str, record: manifest.Record) -> None:
    if key in record.entries:
        entries = {k: v for k, v in record.entries.items() if k != key}
        manifest.save(real_path(path), tool, manifest.Record(entries, record.created) if entries else None)
