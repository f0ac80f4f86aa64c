"""Settings that talk back: unknown keys and tables named with the closest known one, one line
for a file that does not parse (the same from every command; the hooks log it and stay silent),
`config unset`, and keyring errors that name the secret they are about."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from loreline import config, home, keys
from loreline.errors import ConfigError, KeyringUnavailableError
from loreline.team import settings as team_settings
from tests.capture_helpers import run_hook, spool_files, worker_lock_held, write_config
from tests.conftest import loreline_exe, subprocess_env

TYPOS = """\
# my settings
[capture]
session_start_char = 2000   # a typo of session_start_chars
exclude = ["/tmp/secret-client"]

[distil]
model = "claude-haiku-4-5"
"""

BROKEN = """\
[capture]
mode = "all"
exclude = ["/tmp/a", 
review = "auto"
"""


def cli(home_dir: Path, *args: str, cwd: Path | None = None, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([loreline_exe(), *args], capture_output=True, text=True, timeout=120,
                          env=subprocess_env(home_dir, **env), cwd=cwd)


def test_unknown_keys_and_tables_are_named_with_the_closest_known_one(loreline_home: Path) -> None:
    path = write_config(loreline_home, TYPOS + "[ui]\n[capture.extra]\nx = 1\n")
    found = config.unknown(path)
    assert [(u.key, u.table, u.suggestion) for u in found] == [
        ("capture.session_start_char", False, "capture.session_start_chars"),
        ("capture.extra", True, None),  # a table inside [capture]: its parent is no suggestion
        ("distil", True, "distill"),  # the table once, not each of its keys
        ("ui", True, None),
    ]
    line = found[0].line(path)
    assert str(path) in line and "did you mean capture.session_start_chars?" in line
    assert "loreline config unset capture.session_start_char" in line
    assert "did you mean [distill]?" in found[2].line(path)
    write_config(loreline_home, '[capture]\nexclude = ["/x"]\ninclude = []\n[distill]\nmodel = "m"\n')
    assert config.unknown(path) == []  # hand-edited lists and known keys are not unknown


def test_every_command_names_unknown_keys_once_on_stderr_and_status_lists_them(loreline_home: Path,
                                                                               tmp_path: Path) -> None:
    write_config(loreline_home, TYPOS)
    for args in (("memories",), ("config", "list"), ("config", "get", "capture.session_start_chars")):
        done = cli(loreline_home, *args, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        lines = done.stderr.splitlines()
        assert len(lines) == 2, (args, done.stderr)
        assert "unknown key capture.session_start_char; did you mean capture.session_start_chars?" in lines[0]
        assert "unknown table [distil]; did you mean [distill]?" in lines[1]
    assert cli(loreline_home, "config", "get", "capture.session_start_chars").stdout.strip() == "4000"
    status = cli(loreline_home, "status", cwd=tmp_path)
    assert status.returncode == 0 and status.stderr == ""
    assert "!! 2 unknown settings in" in status.stdout and str(loreline_home / "config.toml") in status.stdout
    assert "capture.session_start_char  did you mean capture.session_start_chars?" in status.stdout
    assert "[distil]  did you mean [distill]?" in status.stdout


def test_invalid_toml_stops_every_command_with_the_same_line(loreline_home: Path, tmp_path: Path) -> None:
    path = write_config(loreline_home, BROKEN)
    answers = {args: cli(loreline_home, *args, cwd=tmp_path) for args in (
        ("memories",), ("status",), ("recall", "deploy"), ("config", "list"), ("config", "get", "capture.mode"),
        ("config", "set", "capture.mode", "all"), ("show", "1"), ("worker", "--drain"))}
    lines = {done.stderr for done in answers.values()}
    assert len(lines) == 1, lines
    line = lines.pop()
    assert line.count("\n") == 1 and line.startswith(f"loreline: the config file {path} is not valid TOML at line 4")
    assert "column" in line and "fix or remove it" in line
    assert all(done.returncode == 2 and done.stdout == "" for done in answers.values())
    assert path.read_text() == BROKEN  # nothing was changed
    with pytest.raises(ConfigError) as engine_side:
        config.load()
    assert str(engine_side.value) == line.removeprefix("loreline: ").rstrip("\n")  # the same words, from tomlkit too


def test_a_hook_logs_the_same_line_and_stays_silent(loreline_home: Path, tmp_path: Path) -> None:
    path = write_config(loreline_home, BROKEN)
    project = tmp_path / "proj"
    project.mkdir()
    with worker_lock_held(loreline_home):
        for event in ("SessionStart", "Stop"):
            done = run_hook(loreline_home, event, stdin={"session_id": "s1", "cwd": str(project), "source": "startup"})
            assert done.returncode == 0 and done.stdout == b"" and done.stderr == b""
    assert spool_files(loreline_home) == []  # a broken exclusion list captures nothing
    logged = (loreline_home / "state" / "hook-errors.log").read_text()
    assert f"the config file {path} is not valid TOML at line 4" in logged


def test_config_unset_keeps_the_files_comments_and_formatting(loreline_home: Path) -> None:
    path = write_config(loreline_home, TYPOS + "\n# top comment\n\n[distill]\n# the model\nmodel = \"x\"   # cheap\n"
                                       "max_retries  =  2\n\n[limits]\ndaily_unattended_calls = 5\n")
    before = path.read_text()
    done = cli(loreline_home, "config", "unset", "distill.max_retries")
    assert done.returncode == 0 and "Removed distill.max_retries" in done.stdout and "default, 4" in done.stdout
    assert path.read_text() == before.replace("max_retries  =  2\n", "")
    assert config.load().get("distill.max_retries") == 4
    cli(loreline_home, "config", "unset", "limits.daily_unattended_calls")  # the table goes with its last key
    assert path.read_text() == before.replace("max_retries  =  2\n", "").replace(
        "[limits]\ndaily_unattended_calls = 5\n", "")
    typo = cli(loreline_home, "config", "unset", "capture.session_start_char")  # the fix the warning names
    assert typo.returncode == 0 and typo.stderr.count("\n") == 1 and "[distil]" in typo.stderr
    assert "session_start_char" not in path.read_text() and 'exclude = ["/tmp/secret-client"]' in path.read_text()
    assert cli(loreline_home, "config", "unset", "distil").returncode == 0  # an unknown table goes whole
    known_table = cli(loreline_home, "config", "unset", "capture")  # a known one does not
    assert known_table.returncode == 2 and "unset its keys one at a time" in known_table.stderr
    assert 'exclude = ["/tmp/secret-client"]' in path.read_text()
    assert config.unknown(path) == []
    again = cli(loreline_home, "config", "unset", "distill.max_retries")
    assert again.returncode == 0 and "is not set" in again.stdout
    unknown = cli(loreline_home, "config", "unset", "distill.modle")
    assert unknown.returncode == 2 and unknown.stderr.count("\n") == 1
    assert "unknown config key 'distill.modle'" in unknown.stderr and "did you mean distill.model" in unknown.stderr
    assert stat_mode(path) == 0o600


def stat_mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


@pytest.fixture
def no_keyring(monkeypatch: pytest.MonkeyPatch) -> None:
    import keyring
    from keyring.backends import fail

    monkeypatch.setattr(keyring, "get_keyring", lambda: fail.Keyring())


def test_keyring_errors_name_the_secret_they_are_about(no_keyring: Any) -> None:
    secret = team_settings.secret("postgresql://ana@db.example:5432/team")
    with pytest.raises(KeyringUnavailableError) as team_error:
        keys.save_secret(secret, "hunter2")
    said = str(team_error.value)
    assert "the team server's password" in said and "PGPASSWORD" in said and "~/.pgpass" in said
    assert "ANTHROPIC_API_KEY" not in said and "--api-key" not in said and "hunter2" not in said
    with pytest.raises(KeyringUnavailableError) as key_error:
        keys.save_key("sk-ant-" + "x" * 30)
    said = str(key_error.value)
    assert "the Anthropic API key" in said and "ANTHROPIC_API_KEY" in said and "PGPASSWORD" not in said


def test_team_connect_without_a_keyring_names_the_password_and_saves_nothing(loreline_home: Path,
                                                                            tmp_path: Path) -> None:
    done = subprocess.run([loreline_exe(), "team", "connect", "postgresql://ana@127.0.0.1:1/team", "--password-stdin"],
                          input="hunter2\n", capture_output=True, text=True, timeout=120, cwd=tmp_path,
                          env=subprocess_env(loreline_home, PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring"))
    assert done.returncode == 1 and done.stderr.count("\n") == 1
    assert "no usable OS keyring" in done.stderr and "the team server's password" in done.stderr
    assert "PGPASSWORD" in done.stderr and "ANTHROPIC_API_KEY" not in done.stderr and "hunter2" not in done.stderr
    assert not home.config_path().exists()  # the DSN was not recorded either
