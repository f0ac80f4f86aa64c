"""`loreline connect|disconnect gemini` and the connect guarantees shared by every assistant:
a partial change is rolled back, a created file is removed once empty, backups stay in
Loreline's state folder, and `--project` keeps `.claude/settings.local.json` out of git."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import loreline_exe, subprocess_env

GEMINI_EVENTS = ["SessionStart", "BeforeAgent", "SessionEnd"]
THEIRS = {"security": {"auth": {"selectedType": "gemini-api-key"}}, "model": {"name": "gemini-2.5-flash"},
          "hooks": {"BeforeAgent": [{"matcher": "*", "hooks": [{"type": "command", "command": "echo mine"}]}]},
          "mcpServers": {"other": {"command": "other-server"}}}


def _env(home: Path) -> dict[str, str]:
    env = subprocess_env(home / "loreline", HOME=str(home))
    for name in ("CODEX_HOME", "CLAUDE_CONFIG_DIR", "GEMINI_CLI_HOME", "XDG_CONFIG_HOME"):
        env.pop(name, None)
    return env


def _cli(home: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([loreline_exe(), *args], capture_output=True, text=True, env=_env(home), cwd=cwd,
                          timeout=60)


def _settings(home: Path) -> Path:
    return home / ".gemini" / "settings.json"


def _ours(data: dict) -> dict[str, list[str]]:
    return {event: [h["command"] for g in groups for h in g.get("hooks", []) if "loreline" in h["command"]]
            for event, groups in data.get("hooks", {}).items()}


def test_connect_gemini_writes_three_hooks_and_the_mcp_server_and_disconnect_restores(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    settings.parent.mkdir(parents=True)
    original = json.dumps(THEIRS, indent=2) + "\n"
    settings.write_text(original)
    result = _cli(tmp_path, "connect", "gemini")
    assert result.returncode == 0, result.stderr
    assert "Connected Gemini CLI" in result.stdout and "MCP server" in result.stdout
    data = json.loads(settings.read_text())
    ours = _ours(data)
    assert [e for e in GEMINI_EVENTS if ours.get(e)] == GEMINI_EVENTS
    assert all(cmd.endswith(f" {event}") for event in GEMINI_EVENTS for cmd in ours[event])
    handler = data["hooks"]["BeforeAgent"][-1]["hooks"][0]
    assert handler["timeout"] == 5000  # Gemini CLI counts milliseconds
    assert data["hooks"]["BeforeAgent"][0] == THEIRS["hooks"]["BeforeAgent"][0]
    assert data["mcpServers"]["other"] == THEIRS["mcpServers"]["other"]
    assert data["mcpServers"]["loreline"]["args"][-1] in ("mcp", "loreline_mcp")
    assert data["security"] == THEIRS["security"] and data["model"] == THEIRS["model"]
    assert "already connected" in _cli(tmp_path, "connect", "gemini").stdout
    status = json.loads(_cli(tmp_path, "status", "--json").stdout)["capture"]["hooks"]["gemini"]
    assert status["installed"] and sorted(status["events"]) == sorted(GEMINI_EVENTS)
    assert _cli(tmp_path, "disconnect", "gemini").returncode == 0
    assert json.loads(settings.read_text()) == THEIRS
    assert list(settings.parent.glob("*loreline*")) == []


def test_gemini_settings_connect_created_are_removed_again(tmp_path: Path) -> None:
    assert _cli(tmp_path, "connect", "gemini").returncode == 0
    assert _settings(tmp_path).exists()
    assert _cli(tmp_path, "disconnect", "gemini").returncode == 0
    assert not _settings(tmp_path).exists() and not _settings(tmp_path).parent.exists()


def test_gemini_home_moves_with_gemini_cli_home(tmp_path: Path) -> None:
    env = _env(tmp_path)
    env["GEMINI_CLI_HOME"] = str(tmp_path / "elsewhere")
    result = subprocess.run([loreline_exe(), "connect", "gemini"], capture_output=True, text=True, env=env, timeout=60)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "elsewhere" / ".gemini" / "settings.json").exists() and not _settings(tmp_path).exists()


def test_an_invalid_claude_json_leaves_the_hooks_unwritten(tmp_path: Path) -> None:
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text('{"model": "opus"}\n')
    (tmp_path / ".claude.json").write_text("{ not json")
    result = _cli(tmp_path, "connect", "claude-code")
    assert result.returncode == 2 and "Nothing was changed" in result.stderr
    assert settings.read_text() == '{"model": "opus"}\n'  # the hooks written first were taken back
    status = json.loads(_cli(tmp_path, "status", "--json").stdout)["capture"]["hooks"]
    assert status["claude_code_user"]["events"] == []


def test_an_invalid_claude_json_creates_no_settings_file(tmp_path: Path) -> None:
    (tmp_path / ".claude.json").write_text("{ not json")
    assert _cli(tmp_path, "connect", "claude-code").returncode == 2
    assert not (tmp_path / ".claude" / "settings.json").exists()


def test_backups_live_in_the_state_folder_one_per_file(tmp_path: Path) -> None:
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text('{"model": "opus"}\n')
    for _ in range(2):
        assert _cli(tmp_path, "connect", "claude-code").returncode == 0
        assert _cli(tmp_path, "disconnect", "claude-code").returncode == 0
    assert list(tmp_path.glob(".claude/*loreline-backup*")) == [] and list(tmp_path.glob("*loreline-backup*")) == []
    backups = sorted((tmp_path / "loreline").rglob("backups/*"))
    assert [b.read_text() for b in backups if b.name.endswith("settings.json")] == ['{"model": "opus"}\n']
    assert settings.read_text() == '{"model": "opus"}\n'


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_connect_project_keeps_the_personal_settings_out_of_git(tmp_path: Path) -> None:
    project = tmp_path / "repo"
    project.mkdir()
    env = _env(tmp_path)
    subprocess.run(["git", "init", "-q", str(project)], check=True, env=env)
    result = _cli(tmp_path, "connect", "claude-code", "--project", cwd=project)
    assert result.returncode == 0, result.stderr
    assert (project / ".claude" / "settings.local.json").exists()
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=project, env=env,
                            capture_output=True, text=True, check=True)
    assert status.stdout == ""
    ignore = tmp_path / ".config" / "git" / "ignore"
    assert ignore.read_text().splitlines() == ["**/.claude/settings.local.json"]
    assert _cli(tmp_path, "connect", "claude-code", "--project", cwd=project).returncode == 0
    assert ignore.read_text().splitlines() == ["**/.claude/settings.local.json"]  # once
    assert _cli(tmp_path, "disconnect", "claude-code", "--project", cwd=project).returncode == 0
    assert not (project / ".claude").exists()  # the file and the folder connect made are gone
