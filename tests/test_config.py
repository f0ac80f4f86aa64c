"""Settings: typed defaults, validation, and edits that keep the user's comments and order."""

from __future__ import annotations

import stat
import subprocess
import sys
from pathlib import Path

import pytest

from loreline import config, home
from loreline.assistants import registry  # the assistants' settings (and distill.backend) join the schema
from loreline.distill.anthropic import Settings
from loreline.errors import ConfigError
from tests.conftest import loreline_exe, subprocess_env

HAND_WRITTEN = """\
# My Loreline settings — keep these comments.

[limits]
# background capture must stay cheap
daily_unattended_calls = 20  # per day

[distill]
model = "claude-haiku-4-5"   # cheap and good enough
some_future_key = "kept"     # a key this version does not know

[ui]
theme = "dark"
"""


def test_defaults_without_a_file() -> None:
    cfg = config.load()
    assert not home.config_path().exists()
    assert cfg.get("distill.backend") == "auto" and cfg.source("distill.backend") == "default"
    assert cfg.get_int("limits.daily_unattended_calls") == 100
    assert cfg.get_str("distill.model") == "claude-haiku-4-5"
    assert isinstance(cfg.get_float("distill.timeout_seconds"), float)


def test_set_keeps_comments_order_and_unknown_keys() -> None:
    path = home.config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HAND_WRITTEN, encoding="utf-8")
    config.set_value("limits.daily_unattended_calls", "5")
    config.set_value("distill.max_retries", "2")
    assert path.read_text(encoding="utf-8") == HAND_WRITTEN.replace("= 20  # per day", "= 5  # per day").replace(
        'some_future_key = "kept"     # a key this version does not know\n',
        'some_future_key = "kept"     # a key this version does not know\nmax_retries = 2\n')
    cfg = config.load()
    assert cfg.get("limits.daily_unattended_calls") == 5 and cfg.source("limits.daily_unattended_calls") == "file"
    assert cfg.get("distill.max_retries") == 2
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_new_file_gets_a_header_and_a_table() -> None:
    config.set_value("distill.backend", "rules")
    text = home.config_path().read_text(encoding="utf-8")
    assert text.startswith("# Loreline settings.") and '[distill]\nbackend = "rules"\n' in text


def test_values_are_checked_against_their_type_and_range() -> None:
    assert config.parse_value("distill.timeout_seconds", "2.5") == 2.5
    assert config.parse_value("distill.max_retries", " 3 ") == 3
    with pytest.raises(ConfigError, match="must be an integer, not 'three'"):
        config.set_value("distill.max_retries", "three")
    with pytest.raises(ConfigError, match="must be one of auto, anthropic, claude-code, codex, gemini, openai-compatible, rules"):
        config.set_value("distill.backend", "gpt")
    with pytest.raises(ConfigError, match="at least 0"):
        config.set_value("limits.daily_unattended_calls", "-1")
    assert not home.config_path().exists()  # nothing written on a bad value


def test_unknown_key_lists_close_matches() -> None:
    with pytest.raises(ConfigError) as caught:
        config.set_value("distill.modle", "x")
    assert "unknown config key 'distill.modle'" in str(caught.value) and "distill.model" in str(caught.value)
    with pytest.raises(ConfigError, match="config list"):
        config.load().get("nothing.like.this")


def test_a_bad_file_is_one_clear_error() -> None:
    path = home.config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("[distill\nmodel = 1\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="is not valid TOML"):
        config.load()
    path.write_text("[distill]\nmax_retries = \"many\"\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"distill.max_retries must be an integer.*loreline config set"):
        config.load()
    path.write_text("[distill]\ntimeout_seconds = 5\n", encoding="utf-8")
    assert config.load().get("distill.timeout_seconds") == 5.0  # an int is a fine float


def test_config_knows_no_assistant_and_the_registry_adds_theirs(loreline_home: Path, tmp_path: Path) -> None:
    """`config` defines Loreline's own settings and imports no assistant; the registry adds each
    assistant's (and the backend choice). A file read before the registry was imported keeps
    those values and checks them when they are asked for."""
    home.config_path().parent.mkdir(parents=True, exist_ok=True)
    home.config_path().write_text('[distill]\nbackend = "codex"\ncodex_path = "/opt/codex"\nclaude_path = 3\n')
    code = ("import sys\nfrom loreline import config\n"
            "assert 'loreline.assistants.registry' not in sys.modules\n"
            "assert 'distill.codex_path' not in config.SCHEMA\n"
            "cfg = config.load()\n"
            "from loreline.assistants import registry\n"
            "print(cfg.get_str('distill.backend'), cfg.get_str('distill.codex_path'), cfg.source('distill.codex_path'))\n"
            "try:\n    cfg.get('distill.claude_path')\nexcept config.ConfigError as err:\n    print(err)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          env=subprocess_env(loreline_home))
    assert done.returncode == 0, done.stderr
    first, second = done.stdout.splitlines()
    assert first == "codex /opt/codex file"
    assert "distill.claude_path must be a string, not 3" in second
    assert set(registry.schema()) >= {"distill.backend", "distill.codex_path", "distill.claude_code_model"}
    assert registry.schema()["distill.backend"].choices == ("auto", "anthropic", "claude-code", "codex", "gemini", "openai-compatible", "rules")


def test_other_modules_can_define_settings() -> None:
    key = "capture.test_only_flag"
    config.define(key, config.Setting(bool, False, "a setting another module adds"))
    try:
        assert config.load().get(key) is False
        config.set_value(key, "yes")
        assert config.load().get(key) is True
        with pytest.raises(ValueError):
            config.define(key, config.Setting(int, 1, "a different definition"))
    finally:
        del config.SCHEMA[key]


def test_endpoint_comes_from_config_then_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9/env")
    assert Settings.from_config(config.load()).base_url == "http://127.0.0.1:9/env"
    config.set_value("distill.base_url", "http://127.0.0.1:9/config")
    config.set_value("distill.retry_max_seconds", "0.01")
    settings = Settings.from_config(config.load())
    assert settings.base_url == "http://127.0.0.1:9/config" and settings.retry_max_seconds == 0.01


def test_cli_config_commands(loreline_home: Path) -> None:
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([loreline_exe(), "config", *args], capture_output=True, text=True, timeout=60,
                              env=subprocess_env(loreline_home))

    assert run("path").stdout.strip() == str(loreline_home / "config.toml")
    assert run("set", "distill.model", "claude-sonnet-4-5").returncode == 0
    assert run("get", "distill.model").stdout.strip() == "claude-sonnet-4-5"
    listed = run("list").stdout
    assert 'distill.model = "claude-sonnet-4-5"' in listed and "limits.daily_unattended_calls = 100" in listed
    bad = run("set", "distill.modle", "x")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "did you mean distill.model" in bad.stderr
