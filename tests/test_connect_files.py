"""`loreline connect|disconnect` change exactly what Loreline added: foreign hooks that mention
Loreline by name survive, symlinked settings stay links, read-only files are refused, the
layout is kept. The real CLI in a subprocess, on real files in a temp dir."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest

from tests.capture_helpers import HOOK
from tests.conftest import loreline_exe, subprocess_env
from tests.test_connect import cli_from, other_install

EVENTS = ["SessionStart", "UserPromptSubmit", "PreToolUse", "Stop", "PreCompact", "SessionEnd"]
#: a user's own hooks that mention Loreline by name but are not Loreline's entries
FOREIGN = {
    "hooks": {
        "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo loreline-hook is great"}]}],
        "SessionStart": [{"hooks": [{"type": "command",
                                     "command": "/home/me/bin/loreline-hook SessionStart --my-flag"}]}],
        "Stop": [{"matcher": "", "hooks": [{"type": "command", "command": f"{HOOK} Stop --verbose"},
                                           {"type": "command", "command": "python -m loreline_hooks.entry Stop"}]}],
    },
    "model": "opus",
}


def cli(home: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = subprocess_env(home / "loreline", HOME=str(home))
    env.pop("CODEX_HOME", None)
    return subprocess.run([loreline_exe(), *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=60)


def settings(home: Path) -> Path:
    return home / ".claude" / "settings.json"


def write(path: Path, data: Any, indent: int | str = 2) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(data, indent=indent) + "\n"
    path.write_text(text)
    return text


def commands(data: dict[str, Any], event: str) -> list[str]:
    return [h["command"] for g in data.get("hooks", {}).get(event, []) for h in g["hooks"]]


def connected(home: Path, path: Path | None = None) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((path or settings(home)).read_text())
    for event in EVENTS:
        assert commands(data, event).count(f"{HOOK} {event}") == 1, event
    return data


# -- ownership ------------------------------------------------------------------------------


def test_foreign_hooks_that_mention_loreline_survive_connect_and_disconnect(tmp_path: Path) -> None:
    original = write(settings(tmp_path), FOREIGN)
    assert cli(tmp_path, "connect", "claude-code").returncode == 0
    data = connected(tmp_path)
    assert commands(data, "UserPromptSubmit") == ["echo loreline-hook is great", f"{HOOK} UserPromptSubmit"]
    assert "/home/me/bin/loreline-hook SessionStart --my-flag" in commands(data, "SessionStart")
    assert data["hooks"]["Stop"][0] == FOREIGN["hooks"]["Stop"][0]
    result = cli(tmp_path, "disconnect", "claude-code")
    assert result.returncode == 0, result.stderr
    assert settings(tmp_path).read_text() == original


def test_disconnect_without_connect_touches_no_foreign_hook(tmp_path: Path) -> None:
    original = write(settings(tmp_path), FOREIGN)
    result = cli(tmp_path, "disconnect", "claude-code")
    assert result.returncode == 0 and "not connected" in result.stdout
    assert settings(tmp_path).read_text() == original
    assert list(settings(tmp_path).parent.glob("*.loreline-backup-*")) == []


def test_an_entry_an_older_loreline_wrote_without_a_manifest_is_removed(tmp_path: Path) -> None:
    """Connected before manifests existed: the exact command this install builds is Loreline's."""
    data = json.loads(json.dumps(FOREIGN))
    data["hooks"]["PreCompact"] = [{"hooks": [{"type": "command", "command": f"{HOOK} PreCompact", "timeout": 10}]}]
    write(settings(tmp_path), data)
    assert cli(tmp_path, "disconnect", "claude-code").returncode == 0
    assert json.loads(settings(tmp_path).read_text()) == FOREIGN


def test_the_manifest_records_the_exact_entries_by_real_path(tmp_path: Path) -> None:
    write(settings(tmp_path), {})
    assert cli(tmp_path, "connect", "claude-code").returncode == 0
    manifest = tmp_path / "loreline" / "state" / "connected.json"
    assert stat.S_IMODE(manifest.stat().st_mode) == 0o600
    record = json.loads(manifest.read_text())["files"][str(settings(tmp_path).resolve())]["claude-code"]
    on_disk = json.loads(settings(tmp_path).read_text())["hooks"]
    assert record["entries"] == {event: [on_disk[event][0]["hooks"][0]] for event in EVENTS}
    assert cli(tmp_path, "disconnect", "claude-code").returncode == 0
    assert json.loads(manifest.read_text())["files"] == {}


def test_recorded_entries_of_any_event_are_removed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An event a connect recorded (e.g. one a later version adds) goes on disconnect; a
    foreign handler in the same event stays."""
    from loreline.connect import manifest

    extra = {"type": "command", "command": f"{HOOK} UserPromptSubmit", "timeout": 5}
    data = json.loads(json.dumps(FOREIGN))
    data["hooks"]["UserPromptSubmit"].append({"hooks": [extra]})
    write(settings(tmp_path), data)
    state = tmp_path / "loreline"
    monkeypatch.setenv("LORELINE_HOME", str(state))  # the same home the CLI below uses
    manifest.save(settings(tmp_path).resolve(), "claude-code", manifest.Record({"UserPromptSubmit": [extra]}))
    assert cli(tmp_path, "disconnect", "claude-code").returncode == 0
    assert json.loads(settings(tmp_path).read_text()) == FOREIGN


# -- symlinks, modes, read-only ---------------------------------------------------------------


@pytest.mark.parametrize("kind", ["absolute", "relative", "chain"])
def test_a_symlinked_settings_file_stays_a_link_and_the_target_is_edited(tmp_path: Path, kind: str) -> None:
    target = tmp_path / "dotfiles" / "claude" / "settings.json"
    original = write(target, FOREIGN)
    target.chmod(0o640)
    link = settings(tmp_path)
    link.parent.mkdir(parents=True)
    if kind == "absolute":
        link.symlink_to(target)
    elif kind == "relative":
        link.symlink_to(Path("..") / "dotfiles" / "claude" / "settings.json")
    else:
        middle = tmp_path / "dotfiles" / "current.json"
        middle.symlink_to(Path("claude") / "settings.json")
        link.symlink_to(middle)
    before = os.readlink(link)
    assert cli(tmp_path, "connect", "claude-code").returncode == 0
    assert link.is_symlink() and os.readlink(link) == before
    connected(tmp_path, target)
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    [backup] = list((tmp_path / "loreline").rglob("backups/*"))
    assert backup.read_text() == original and stat.S_IMODE(backup.stat().st_mode) == 0o600
    assert sorted(p.name for p in target.parent.iterdir()) == ["settings.json"]  # nothing left in dotfiles
    assert cli(tmp_path, "disconnect", "claude-code").returncode == 0
    assert link.is_symlink() and os.readlink(link) == before and target.read_text() == original


def test_the_files_mode_is_kept(tmp_path: Path) -> None:
    write(settings(tmp_path), FOREIGN)
    settings(tmp_path).chmod(0o644)
    assert cli(tmp_path, "connect", "claude-code").returncode == 0
    assert stat.S_IMODE(settings(tmp_path).stat().st_mode) == 0o644


@pytest.mark.parametrize("verb", ["connect", "disconnect"])
def test_a_read_only_settings_file_is_refused_with_one_line(tmp_path: Path, verb: str) -> None:
    write(settings(tmp_path), FOREIGN)
    if verb == "disconnect":
        assert cli(tmp_path, "connect", "claude-code").returncode == 0
        for backup in (tmp_path / "loreline").rglob("backups/*"):
            backup.unlink()
    before = settings(tmp_path).read_bytes()
    settings(tmp_path).chmod(0o444)
    result = cli(tmp_path, verb, "claude-code")
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert "read-only" in result.stderr and "nothing was changed" in result.stderr
    assert settings(tmp_path).read_bytes() == before
    assert sorted(p.name for p in settings(tmp_path).parent.iterdir()) == ["settings.json"]


def test_a_read_only_file_that_needs_no_change_is_not_an_error(tmp_path: Path) -> None:
    write(settings(tmp_path), FOREIGN)
    assert cli(tmp_path, "connect", "claude-code").returncode == 0
    settings(tmp_path).chmod(0o444)
    again = cli(tmp_path, "connect", "claude-code")
    assert again.returncode == 0 and "already connected" in again.stdout


# -- layout -------------------------------------------------------------------------------------


@pytest.mark.parametrize("indent", [4, "\t", 2])
def test_the_indentation_is_kept_and_disconnect_restores_the_bytes(tmp_path: Path, indent: int | str) -> None:
    original = write(settings(tmp_path), FOREIGN, indent=indent)
    assert cli(tmp_path, "connect", "claude-code").returncode == 0
    text = settings(tmp_path).read_text()
    unit = indent if isinstance(indent, str) else " " * indent
    assert f'\n{unit}"model": "opus"' in text and f'\n{unit}"hooks": {{' in text
    assert cli(tmp_path, "disconnect", "claude-code").returncode == 0
    assert settings(tmp_path).read_text() == original


def test_crlf_line_endings_and_a_missing_final_newline_are_kept(tmp_path: Path) -> None:
    path = settings(tmp_path)
    path.parent.mkdir(parents=True)
    original = json.dumps(FOREIGN, indent=2).replace("\n", "\r\n").encode()
    path.write_bytes(original)
    assert cli(tmp_path, "connect", "claude-code").returncode == 0
    raw = path.read_bytes()
    assert raw.count(b"\n") == raw.count(b"\r\n") and not raw.endswith(b"\n")
    assert cli(tmp_path, "disconnect", "claude-code").returncode == 0
    assert path.read_bytes() == original


def test_an_empty_hooks_object_of_the_users_stays(tmp_path: Path) -> None:
    original = write(settings(tmp_path), {"hooks": {}, "model": "opus"})
    assert cli(tmp_path, "connect", "claude-code").returncode == 0
    assert cli(tmp_path, "disconnect", "claude-code").returncode == 0
    assert settings(tmp_path).read_text() == original


# -- --project ----------------------------------------------------------------------------------


def test_project_uses_the_personal_file_and_moves_entries_out_of_the_shared_one(tmp_path: Path) -> None:
    project = tmp_path / "repo"
    (project / ".git").mkdir(parents=True)
    shared = project / ".claude" / "settings.json"
    team = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "make lint"}]}]}}
    older = json.loads(json.dumps(team))
    older["hooks"]["Stop"].append({"hooks": [{"type": "command", "command": f"{HOOK} Stop", "timeout": 10}]})
    write(shared, older)
    result = cli(tmp_path, "connect", "claude-code", "--project", cwd=project)
    assert result.returncode == 0, result.stderr
    assert "settings.local.json" in result.stdout and "shared" in result.stdout
    connected(tmp_path, project / ".claude" / "settings.local.json")
    assert json.loads(shared.read_text()) == team
    assert cli(tmp_path, "disconnect", "claude-code", "--project", cwd=project).returncode == 0
    assert not (project / ".claude" / "settings.local.json").exists()  # created by connect, empty again
    assert json.loads(shared.read_text()) == team


# -- Codex --------------------------------------------------------------------------------------

CODEX = '# mine\nmodel = "gpt-fake"\n\n[features]\nhooks = false\n'


def test_codex_a_wrapper_named_loreline_hook_is_never_replaced(tmp_path: Path) -> None:
    config = tmp_path / ".codex" / "config.toml"
    config.parent.mkdir()
    theirs = 'notify = ["/home/me/bin/loreline-hook", "codex-notify", "--mine"]\n' + CODEX
    config.write_text(theirs)
    result = cli(tmp_path, "connect", "codex")
    assert result.returncode == 2 and "Nothing was changed" in result.stderr
    off = cli(tmp_path, "disconnect", "codex")
    assert off.returncode == 0 and "another program" in off.stdout
    assert config.read_text() == theirs


def test_codex_config_through_a_relative_symlink_and_read_only(tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "codex.toml"
    real.parent.mkdir()
    real.write_text(CODEX)
    real.chmod(0o600)
    link = tmp_path / ".codex" / "config.toml"
    link.parent.mkdir()
    link.symlink_to(Path("..") / "dotfiles" / "codex.toml")
    assert cli(tmp_path, "connect", "codex").returncode == 0
    assert link.is_symlink() and f'"{HOOK}"' in real.read_text() and real.read_text().startswith('# mine\nmodel = "gpt-fake"\n')
    real.chmod(0o400)
    result = cli(tmp_path, "disconnect", "codex")
    assert result.returncode == 2 and "read-only" in result.stderr and result.stderr.count("\n") == 1
    real.chmod(0o600)
    assert cli(tmp_path, "disconnect", "codex").returncode == 0
    assert link.is_symlink() and real.read_text() == CODEX


def test_codex_a_moved_install_replaces_its_recorded_notify(tmp_path: Path) -> None:
    config = tmp_path / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text(CODEX)
    old_python = other_install(tmp_path)
    assert cli_from(old_python, tmp_path, "connect", "codex").returncode == 0
    assert tomllib.loads(config.read_text())["notify"] == [str(old_python.parent / "loreline-hook"), "codex-notify"]
    assert cli(tmp_path, "connect", "codex").returncode == 0
    assert tomllib.loads(config.read_text())["notify"] == [str(HOOK), "codex-notify"]
    assert cli(tmp_path, "disconnect", "codex").returncode == 0
    assert config.read_text() == CODEX
