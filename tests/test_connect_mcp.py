"""`loreline connect` registers the MCP server where Claude Code and Codex keep MCP servers, and
`disconnect` removes exactly that entry: other servers, other settings, a server the user named
`loreline` by hand, comments and symlinks all stay. The real CLI in a subprocess."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from tests.test_connect_files import cli

OTHER = {"type": "stdio", "command": "/opt/other/server", "args": ["--stdio"], "env": {"TOKEN_FILE": "/x"}}


def claude_json(home: Path) -> Path:
    return home / ".claude.json"


def test_user_scope_is_added_and_removed_keeping_everything_else(tmp_path: Path) -> None:
    path = claude_json(tmp_path)
    path.write_text(json.dumps({"numStartups": 7, "mcpServers": {"other": OTHER}, "projects": {}}, indent=2) + "\n")
    done = cli(tmp_path, "connect", "claude-code")
    assert done.returncode == 0, done.stderr
    assert "Registered Loreline's MCP server" in done.stdout
    data = json.loads(path.read_text())
    entry = data["mcpServers"]["loreline"]
    assert entry["type"] == "stdio" and entry["args"] == ["mcp"] and Path(entry["command"]).is_absolute()
    assert data["mcpServers"]["other"] == OTHER and data["numStartups"] == 7
    assert cli(tmp_path, "connect", "claude-code").returncode == 0  # a second run changes nothing
    assert json.loads(path.read_text()) == data
    gone = cli(tmp_path, "disconnect", "claude-code")
    assert gone.returncode == 0 and "Removed Loreline's MCP server" in gone.stdout
    assert json.loads(path.read_text()) == {"numStartups": 7, "mcpServers": {"other": OTHER}, "projects": {}}


def test_project_goes_to_that_projects_local_scope(tmp_path: Path) -> None:
    project = tmp_path / "repo"
    project.mkdir()
    assert cli(tmp_path, "connect", "claude-code", "--project", str(project)).returncode == 0
    data = json.loads(claude_json(tmp_path).read_text())
    assert "mcpServers" not in data
    assert data["projects"][str(project.resolve())]["mcpServers"]["loreline"]["args"] == ["mcp"]
    assert not (project / ".mcp.json").exists()  # the shared project file is never written
    assert cli(tmp_path, "disconnect", "claude-code", "--project", str(project)).returncode == 0
    assert not claude_json(tmp_path).exists()  # connect created it: it goes, as do the objects it made


def test_a_server_the_user_named_loreline_is_never_replaced_or_removed(tmp_path: Path) -> None:
    path = claude_json(tmp_path)
    mine = {"type": "stdio", "command": "/home/me/bin/my-loreline-wrapper", "args": ["mcp"], "env": {}}
    path.write_text(json.dumps({"mcpServers": {"loreline": mine}}) + "\n")
    refused = cli(tmp_path, "connect", "claude-code")
    assert refused.returncode != 0 and "did not add" in refused.stderr
    assert json.loads(path.read_text())["mcpServers"]["loreline"] == mine
    cli(tmp_path, "disconnect", "claude-code")
    assert json.loads(path.read_text())["mcpServers"]["loreline"] == mine


def test_a_symlinked_claude_json_stays_a_link(tmp_path: Path) -> None:
    target = tmp_path / "dotfiles" / "claude.json"
    target.parent.mkdir()
    target.write_text('{\n    "theme": "dark"\n}\n')
    claude_json(tmp_path).symlink_to(target)
    assert cli(tmp_path, "connect", "claude-code").returncode == 0
    assert claude_json(tmp_path).is_symlink() and "loreline" in json.loads(target.read_text())["mcpServers"]
    assert cli(tmp_path, "disconnect", "claude-code").returncode == 0
    assert target.read_text() == '{\n    "theme": "dark"\n}\n'  # the file as it was: no `"mcpServers": {}`


def test_codex_table_with_comments_kept_and_env_passed_through(tmp_path: Path) -> None:
    config = tmp_path / ".codex" / "config.toml"
    config.parent.mkdir()
    original = '# my settings\nmodel = "o4"\n\n[mcp_servers.other]\ncommand = "/opt/other"  # keep me\n'
    config.write_text(original)
    assert cli(tmp_path, "connect", "codex").returncode == 0
    text = config.read_text()
    assert "# my settings" in text and "# keep me" in text
    table = tomllib.loads(text)["mcp_servers"]
    assert table["loreline"]["args"] == ["mcp"] and table["loreline"]["env_vars"] == ["LORELINE_HOME", "LORELINE_OFF"]
    assert table["other"] == {"command": "/opt/other"}
    assert cli(tmp_path, "disconnect", "codex").returncode == 0
    assert "loreline" not in tomllib.loads(config.read_text())["mcp_servers"]
    assert "# keep me" in config.read_text()
