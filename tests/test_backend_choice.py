"""`--backend auto` over every login Loreline can use (an API key, Claude Code, Codex, none) and
what `loreline connect` and `loreline status` tell the person about it. The CLIs here are
scripts that must never run when a credentials file answers; the real CLIs drive the
backends in tests/e2e_real."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from loreline import backends, config
from loreline.assistants.claude_code import login as claude_code_login
from loreline.assistants.codex import login as codex
from loreline.assistants.codex.distill import CodexDistiller, strict_schema
from loreline.distill.anthropic import RECORD_MEMORIES
from tests.conftest import loreline_exe, subprocess_env

NEVER_RUN = "#!/bin/sh\necho ran >> \"${0%/*}/ran\"\nexit 3\n"


@pytest.fixture(autouse=True)
def no_keyring(failing_keyring: None) -> None:
    """No API key in an OS keyring: the backends are chosen from what each test lays out."""


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A PATH with `claude` and `codex` scripts, and a HOME with no login of either."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("claude", "codex"):
        (bin_dir / name).write_text(NEVER_RUN)
        (bin_dir / name).chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex-home"))
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    codex._LOGINS.clear()
    claude_code_login._LOGINS.clear()
    return tmp_path


def claude_login(world: Path) -> None:
    folder = world / "home" / ".claude"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / ".credentials.json").write_text("{}")


def codex_login(world: Path, auth: dict[str, object]) -> None:
    folder = world / "codex-home"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "auth.json").write_text(json.dumps(auth))


def test_auto_without_any_login_is_rules_and_says_both_clis_were_asked(world: Path) -> None:
    chosen = backends.plan()
    assert chosen.backend == "rules"
    assert chosen.reason == "auto: no API key and Claude Code is not logged in and Codex is not logged in"
    assert backends.consent().startswith("Captured sessions are distilled offline by the rules")


def test_auto_with_only_codex_logged_in_builds_the_codex_backend_and_judge(world: Path) -> None:
    codex_login(world, {"auth_mode": "chatgpt", "tokens": {"id_token": "x", "access_token": "y"}})
    choice = backends.choose()
    assert isinstance(choice.distiller, CodexDistiller) and choice.judge is not None
    assert choice.reason == (f"auto: no API key and Claude Code is not logged in; Codex is logged in (chatgpt) at "
                             f"{world / 'bin' / 'codex'}")
    assert choice.distiller.policy == "codex/codex-default/distill-v2"
    assert backends.consent().startswith(
        "Captured sessions are distilled in the background by Codex's default model through Codex under your Codex "
        "login (chatgpt): that is your ChatGPT plan, so these runs count against its usage limits, beside your own "
        "sessions. At most 100 model calls and 600,000 tokens a day")
    assert backends.describe().startswith("codex (codex-default) — auto: no API key")


def test_auto_prefers_claude_code_to_codex_and_an_api_key_to_both(world: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    codex_login(world, {"OPENAI_API_KEY": "sk-test"})
    claude_login(world)
    assert backends.plan().backend == "claude-code"
    assert ("under your Claude Code login (claude.ai): that is your Claude plan (Pro or Max), so these runs count "
            "against its usage limits") in backends.consent()
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-api03-CHOICE-0123456789")
    assert backends.plan().backend == "anthropic"  # an import run here uses the key of this shell
    said = backends.consent()  # background capture does not: it says so, and what it uses instead
    assert "under your Claude Code login (claude.ai)" in said and "through the Anthropic API" not in said
    assert "ANTHROPIC_API_KEY is set in this shell, but background capture never uses" in said
    assert "CHOICE" not in said
    assert not (world / "bin" / "ran").exists()  # the credentials files answered: no CLI was run


def test_distill_backend_pins_a_choice(world: Path) -> None:
    codex_login(world, {"OPENAI_API_KEY": "sk-test"})
    claude_login(world)
    config.set_value("distill.backend", "codex")
    chosen = backends.plan()
    assert chosen.backend == "codex" and chosen.reason.startswith("codex: chosen by config distill.backend, ")
    config.set_value("limits.daily_unattended_calls", "7")
    config.set_value("limits.daily_unattended_tokens", "12000")
    said = backends.consent()
    assert "At most 7 model calls and 12,000 tokens a day" in said
    assert "under your Codex login (apikey)." in said and "plan" not in said.split(". At most")[0]


def test_an_explicit_codex_without_a_login_is_one_clear_line(world: Path) -> None:
    from loreline.errors import AuthError

    with pytest.raises(AuthError, match=r"^Codex is not logged in: run `codex login`"):
        backends.plan("codex")
    assert (world / "bin" / "ran").read_text().strip() == "ran"  # asked `codex login status` once, offline
    config.set_value("distill.backend", "codex")
    assert backends.describe().startswith("codex (NOT LOGGED IN: imports fail) — Codex is not logged in")


def test_the_output_schema_is_strict() -> None:
    schema = strict_schema(RECORD_MEMORIES["input_schema"])
    item = schema["properties"]["memories"]["items"]
    assert schema["additionalProperties"] is False and item["additionalProperties"] is False
    assert item["properties"]["evidence"]["items"]["required"] == ["line", "quote"]
    loose = strict_schema({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}},
                           "required": ["a"]})
    assert loose["required"] == ["a", "b"] and loose["properties"]["b"]["type"] == ["integer", "null"]


def test_connect_and_status_say_who_distills_under_which_login(world: Path, loreline_home: Path) -> None:
    codex_login(world, {"auth_mode": "chatgpt", "tokens": {"access_token": "y"}})
    env = subprocess_env(loreline_home, HOME=str(world / "home"), CODEX_HOME=str(world / "codex-home"),
                         PATH=f"{world / 'bin'}{os.pathsep}{os.environ['PATH']}",
                         PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring")
    env.pop("ANTHROPIC_API_KEY", None)
    connected = subprocess.run([loreline_exe(), "connect", "claude-code"], capture_output=True, text=True,
                               env=env, check=True, cwd=world)
    assert ("Captured sessions are distilled in the background by Codex's default model through Codex under your "
            "Codex login (chatgpt): that is your ChatGPT plan") in connected.stdout
    status = subprocess.run([loreline_exe(), "status"], capture_output=True, text=True, env=env, check=True, cwd=world)
    assert "under your Codex login (chatgpt)" in status.stdout
