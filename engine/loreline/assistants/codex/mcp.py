"""Codex's entry for Loreline's MCP server: `[mcp_servers.loreline]` in `$CODEX_HOME/config.toml`,
owned by the connect rules (`connect.manifest`) like the JSON entries in `connect.mcp`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...connect import Change, backup_once, check_writable, locked, manifest, real_path, write_atomic
from ...connect.mcp import NAME, forget, loreline_argv, plain, remember
from ...errors import ConfigError
from .install import _dumps, _load, config_path

CODEX_TOOL = "codex-mcp"


def connect(path: Path | None = None) -> Change:
    path = path or config_path()
    with locked():
        doc = _load(path)
        record = manifest.recorded(real_path(path), CODEX_TOOL)
        wanted = _codex_entry()
        tables = doc.get("mcp_servers")
        current = plain(tables.get(NAME)) if tables is not None and hasattr(tables, "get") else None
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
        remember(path, CODEX_TOOL, NAME, wanted, record)
    return Change(path, changed, backup, detail="MCP server" if changed else "MCP server already registered")


def disconnect(path: Path | None = None) -> Change:
    path = path or config_path()
    with locked():
        if not path.exists():
            return Change(path, False, detail="no Codex config")
        doc = _load(path)
        record = manifest.recorded(real_path(path), CODEX_TOOL)
        tables = doc.get("mcp_servers")
        current = plain(tables.get(NAME)) if tables is not None and hasattr(tables, "get") else None
        ours = current is not None and (current == _codex_entry() or current in record.for_key(NAME))
        backup = None
        if ours and tables is not None:
            check_writable(path)
            del tables[NAME]
            if not tables:
                del doc["mcp_servers"]
            backup = backup_once(path)
            write_atomic(path, _trailing_like(_dumps(doc), path.read_text(encoding="utf-8")))
        forget(path, CODEX_TOOL, NAME, record)
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
