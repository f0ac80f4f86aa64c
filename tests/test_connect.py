"""`loreline connect|disconnect`: merging hooks into Claude Code's settings.json and the notify
program into Codex's config.toml, through the real CLI in a subprocess."""

from __future__ import annotations

import json
import os
import shlex
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from loreline.assistants.claude_code import install as claude_code
from loreline.connect import hook_argv
from tests.capture_helpers import HOOK, HOOK_PAYLOADS, worker_lock_held
from tests.conftest import ROOT, loreline_exe, subprocess_env

EVENTS = ["SessionStart", "UserPromptSubmit", "PreToolUse", "Stop", "PreCompact", "SessionEnd"]
THEIRS = {
    "model": "opus",
    "permissions": {"allow": ["Bash(git status)"]},
    "hooks": {
        "Stop": [{"hooks": [{"type": "command", "command": "python3 /home/dev/hook_logger.py Stop"}]}],
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo pre", "timeout": 5}]}],
    },
}


def _cli(home: Path, *args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    base = env or _env(home)
    return subprocess.run([loreline_exe(), *args], capture_output=True, text=True, env=base, cwd=cwd, timeout=60)


def _env(home: Path, **extra: str) -> dict[str, str]:
    env = subprocess_env(home / "loreline", HOME=str(home))
    env.pop("CODEX_HOME", None)
    env.update(extra)
    return env


def _backups(home: Path) -> list[Path]:
    """The copies connect kept: in Loreline's state folder, one per file."""
    return sorted((home / "loreline").rglob("backups/*"))


def _settings(home: Path) -> Path:
    return home / ".claude" / "settings.json"


def _write(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n")


def _ours(data: dict[str, Any]) -> dict[str, list[str]]:
    return {event: [h["command"] for g in groups for h in g["hooks"] if "loreline-hook" in h["command"]]
            for event, groups in data.get("hooks", {}).items()}


def test_connect_merges_keeps_everything_else_and_backs_up(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    _write(settings, THEIRS)
    original = settings.read_text()
    result = _cli(tmp_path, "connect", "claude-code")
    assert result.returncode == 0, result.stderr
    data = json.loads(settings.read_text())
    assert data["model"] == "opus" and data["permissions"] == THEIRS["permissions"]
    # the user's own PreToolUse group stays first, untouched; Loreline's comes after it, in its own group
    assert data["hooks"]["PreToolUse"][0] == THEIRS["hooks"]["PreToolUse"][0]
    assert data["hooks"]["PreToolUse"][1] == {"hooks": [{"type": "command", "command": f"{HOOK} PreToolUse",
                                                         "timeout": 5}]}
    assert data["hooks"]["Stop"][0] == THEIRS["hooks"]["Stop"][0]
    assert _ours(data) == {e: [f"{HOOK} {e}"] for e in EVENTS}
    handler = data["hooks"]["SessionStart"][0]["hooks"][0]
    assert handler["type"] == "command" and 0 < handler["timeout"] <= 30
    [backup] = _backups(tmp_path)
    assert list(settings.parent.glob("*loreline*")) == []  # never beside the user's files
    assert backup.read_text() == original
    assert "Connected Claude Code" in result.stdout and str(backup) in result.stdout


def test_connect_twice_changes_nothing(tmp_path: Path) -> None:
    _write(_settings(tmp_path), THEIRS)
    assert _cli(tmp_path, "connect", "claude-code").returncode == 0
    before = _settings(tmp_path).read_bytes()
    mtime = _settings(tmp_path).stat().st_mtime_ns
    again = _cli(tmp_path, "connect", "claude-code")
    assert again.returncode == 0 and "already connected" in again.stdout
    assert _settings(tmp_path).read_bytes() == before and _settings(tmp_path).stat().st_mtime_ns == mtime
    assert len(_backups(tmp_path)) == 1


def test_a_moved_install_replaces_its_recorded_entries_not_duplicating_them(tmp_path: Path) -> None:
    """Connect from another install (an interpreter with its own `loreline-hook` beside it), then
    from this one: the entries the first connect recorded are replaced; foreign ones stay."""
    old_python = other_install(tmp_path)
    _write(_settings(tmp_path), THEIRS)
    first = cli_from(old_python, tmp_path, "connect", "claude-code")
    assert first.returncode == 0, first.stderr
    old_hook = old_python.parent / "loreline-hook"
    assert _ours(json.loads(_settings(tmp_path).read_text()))["Stop"] == [f"{old_hook} Stop"]
    assert _cli(tmp_path, "connect", "claude-code").returncode == 0
    data = json.loads(_settings(tmp_path).read_text())
    assert data["hooks"]["Stop"][0] == THEIRS["hooks"]["Stop"][0]
    assert _ours(data) == {"Stop": [f"{HOOK} Stop"], "PreToolUse": [],
                           **{e: [f"{HOOK} {e}"] for e in EVENTS if e != "Stop"}}
    assert _cli(tmp_path, "disconnect", "claude-code").returncode == 0
    assert json.loads(_settings(tmp_path).read_text()) == THEIRS


def test_disconnect_from_a_new_install_removes_what_the_old_one_recorded(tmp_path: Path) -> None:
    old_python = other_install(tmp_path)
    _write(_settings(tmp_path), THEIRS)
    assert cli_from(old_python, tmp_path, "connect", "claude-code").returncode == 0
    result = _cli(tmp_path, "disconnect", "claude-code")
    assert result.returncode == 0, result.stderr
    assert json.loads(_settings(tmp_path).read_text()) == THEIRS


def other_install(tmp_path: Path) -> Path:
    """A second Loreline install: an interpreter in its own folder with a `loreline-hook` beside it."""
    folder = tmp_path / "old-venv" / "bin"
    folder.mkdir(parents=True)
    (folder / "python").symlink_to(sys.executable)
    hook = folder / "loreline-hook"
    hook.write_text("#!/bin/sh\nexit 0\n")
    hook.chmod(0o755)
    return folder / "python"


def cli_from(python: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = _env(home, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    return subprocess.run([str(python), "-m", "loreline.cli.main", *args], capture_output=True, text=True,
                          env=env, timeout=60)


def test_disconnect_removes_only_lorelines_entries(tmp_path: Path) -> None:
    _write(_settings(tmp_path), THEIRS)
    assert _cli(tmp_path, "connect", "claude-code").returncode == 0
    result = _cli(tmp_path, "disconnect", "claude-code")
    assert result.returncode == 0, result.stderr
    assert json.loads(_settings(tmp_path).read_text()) == THEIRS
    again = _cli(tmp_path, "disconnect", "claude-code")
    assert again.returncode == 0 and "not connected" in again.stdout


def test_connect_creates_a_missing_settings_file_privately(tmp_path: Path) -> None:
    assert _cli(tmp_path, "connect", "claude-code").returncode == 0
    settings = _settings(tmp_path)
    assert set(_ours(json.loads(settings.read_text()))) == set(EVENTS)
    assert stat.S_IMODE(settings.stat().st_mode) == 0o600
    assert list(settings.parent.glob("*.loreline-backup-*")) == []
    assert _cli(tmp_path, "disconnect", "claude-code").returncode == 0
    assert not settings.exists()  # connect created it: no `{}` file is left where none was


def test_claude_config_dir_is_honoured(tmp_path: Path) -> None:
    env = _env(tmp_path, CLAUDE_CONFIG_DIR=str(tmp_path / "elsewhere"))
    assert _cli(tmp_path, "connect", "claude-code", env=env).returncode == 0
    assert (tmp_path / "elsewhere" / "settings.json").is_file()
    assert not _settings(tmp_path).exists()


def test_project_settings(tmp_path: Path) -> None:
    project = tmp_path / "repo"
    (project / ".git").mkdir(parents=True)
    (project / "src").mkdir()
    result = _cli(tmp_path, "connect", "claude-code", "--project", cwd=project / "src")
    assert result.returncode == 0, result.stderr
    local = project / ".claude" / "settings.local.json"
    assert set(_ours(json.loads(local.read_text()))) == set(EVENTS)
    assert not (project / ".claude" / "settings.json").exists()  # the committed file is never written
    assert not _settings(tmp_path).exists()
    status = _cli(tmp_path, "status", "--json", cwd=project)
    hooks = json.loads(status.stdout)["capture"]["hooks"]
    assert hooks["claude_code_project"]["events"] == EVENTS and hooks["claude_code_user"]["events"] == []
    assert _cli(tmp_path, "disconnect", "claude-code", "--project", str(project)).returncode == 0
    assert not local.exists()


@pytest.mark.parametrize("text", ['{"hooks": {"Stop": [}', "[1, 2]", '{"hooks": []}', '{"hooks": {"Stop": {}}}'])
def test_invalid_settings_are_an_error_and_nothing_is_written(tmp_path: Path, text: str) -> None:
    settings = _settings(tmp_path)
    settings.parent.mkdir(parents=True)
    settings.write_text(text)
    for verb in ("connect", "disconnect"):
        result = _cli(tmp_path, verb, "claude-code")
        assert result.returncode == 2
        assert result.stderr.count("\n") == 1 and result.stderr.startswith("loreline: ")
        assert str(settings) in result.stderr and "Traceback" not in result.stderr
    assert settings.read_text() == text
    assert sorted(p.name for p in settings.parent.iterdir()) == ["settings.json"]


def test_the_hook_command_is_absolute_and_runs(tmp_path: Path) -> None:
    argv = hook_argv()
    assert Path(argv[0]).is_absolute() and "shims" not in Path(argv[0]).parts
    command = claude_code.command("Stop")
    result = subprocess.run([*shlex.split(command)], input=b"{}", capture_output=True, timeout=30,
                            env=subprocess_env(tmp_path / "home"))
    assert result.returncode == 0 and result.stderr == b""


# -- Codex ------------------------------------------------------------------------------

CODEX_CONFIG = """# my Codex settings
model = "gpt-fake"  # the fake one
approval_policy = "never"

[model_providers.fake]
name = "fake"
# comment inside a table
wire_api = "responses"
"""
#: Codex with its hooks turned off: Loreline falls back to the notify program
NOTIFY_CONFIG = CODEX_CONFIG + "\n[features]\nhooks = false\n"


def _codex(tmp_path: Path) -> Path:
    path = tmp_path / ".codex" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def test_connect_codex_without_hooks_adds_notify_and_keeps_comments(tmp_path: Path) -> None:
    config = _codex(tmp_path)
    config.write_text(NOTIFY_CONFIG)
    result = _cli(tmp_path, "connect", "codex")
    assert result.returncode == 0, result.stderr
    text = config.read_text()
    assert text.startswith(CODEX_CONFIG.split("[model_providers.fake]")[0].rstrip("\n"))
    assert "# comment inside a table" in text and '# the fake one' in text
    import tomllib

    assert tomllib.loads(text)["notify"] == [str(HOOK), "codex-notify"]
    assert tomllib.loads(text)["model_providers"]["fake"]["wire_api"] == "responses"
    assert [b.name.endswith("config.toml") for b in _backups(tmp_path)] == [True]
    assert "already connected" in _cli(tmp_path, "connect", "codex").stdout
    assert "/hooks" not in result.stdout and not (config.parent / "hooks.json").exists()
    assert _cli(tmp_path, "disconnect", "codex").returncode == 0
    assert config.read_text() == NOTIFY_CONFIG


def test_connect_codex_never_clobbers_another_notify_program(tmp_path: Path) -> None:
    config = _codex(tmp_path)
    theirs = 'notify = ["python3", "/home/dev/notify_logger.py"]\n' + NOTIFY_CONFIG
    config.write_text(theirs)
    result = _cli(tmp_path, "connect", "codex")
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1
    assert "notify_logger.py" in result.stderr and "Nothing was changed" in result.stderr
    assert "loreline-hook codex-notify" in result.stderr
    assert config.read_text() == theirs
    disconnect = _cli(tmp_path, "disconnect", "codex")
    assert disconnect.returncode == 0 and "another program" in disconnect.stdout
    assert config.read_text() == theirs


def test_codex_home_is_honoured_and_the_notify_command_works(tmp_path: Path) -> None:
    env = _env(tmp_path, CODEX_HOME=str(tmp_path / "ch"))
    (tmp_path / "ch").mkdir()
    (tmp_path / "ch" / "config.toml").write_text(NOTIFY_CONFIG)
    assert _cli(tmp_path, "connect", "codex", env=env).returncode == 0
    import tomllib

    argv = tomllib.loads((tmp_path / "ch" / "config.toml").read_text())["notify"]
    note = (HOOK_PAYLOADS / "codex-notify-payloads.jsonl").read_text().splitlines()[0]
    with worker_lock_held(tmp_path / "loreline"):
        run = subprocess.run([*argv, note], capture_output=True, env=env, timeout=30)
    assert run.returncode == 0 and run.stderr == b""
    spool = tmp_path / "loreline" / "spool"
    assert len([p for p in spool.iterdir() if p.suffix == ".json"]) == 1
    status = json.loads(_cli(tmp_path, "status", "--json", env=env).stdout)
    assert status["capture"]["hooks"]["codex"]["installed"] is True


def test_project_flag_is_refused_for_codex(tmp_path: Path) -> None:
    result = _cli(tmp_path, "connect", "codex", "--project")
    assert result.returncode == 2 and "claude-code only" in result.stderr


# -- the plugin ---------------------------------------------------------------------------


def test_the_repository_is_a_claude_code_plugin_with_the_same_hooks() -> None:
    manifest = json.loads((ROOT / ".claude-plugin" / "plugin.json").read_text())
    assert manifest["name"] == "loreline"
    plugin = json.loads((ROOT / "hooks" / "hooks.json").read_text())
    assert isinstance(plugin["description"], str)
    assert list(plugin["hooks"]) == EVENTS
    for event, groups in plugin["hooks"].items():
        [[handler]] = [g["hooks"] for g in groups]
        assert handler == {**claude_code.handler(event), "command": f"loreline-hook {event}"}


def test_the_plugin_declares_the_mcp_server() -> None:
    manifest = json.loads((ROOT / ".claude-plugin" / "plugin.json").read_text())
    assert manifest["mcpServers"] == {"loreline": {"command": "loreline", "args": ["mcp"]}}
