"""The claude-code backend's parts that need no Claude Code run: choosing it, the daily cap
before any run, the usage a result reports, discovery skipping its working directory, and
staying out of start-up paths. The runs themselves (real CLI, real SDK, offline) are in
tests/e2e_real/test_claude_code_backend.py.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from loreline.assistants import registry
from loreline import backends, config, home, pipeline, usage
from loreline.distill.anthropic import RECORD_MEMORIES
from loreline.assistants.claude_code.distill import CodeClient, CodeDistiller, CodeSettings, argv, child_env, usage_of
from loreline.distill.rules import RulesDistiller
from loreline.errors import AuthError, ConfigError
from loreline.models import Usage
from loreline.samples.builder import ClaudeSession
from loreline.store import Store
from loreline.transcripts import discover

SESSION = "0b5c8a4e-1f2a-4c3d-9e8f-7a6b5c4d3e2f.jsonl"


@pytest.fixture(autouse=True)
def no_keyring(failing_keyring: None) -> None:
    """No API key in an OS keyring: the backends are chosen from what each test lays out."""


@pytest.fixture
def no_claude(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """An empty PATH and HOME: no `claude` to find, no Claude Code credentials."""
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


def client(tmp_path: Path) -> CodeClient:
    return CodeClient(CodeSettings(cli=tmp_path / "no-such-claude", workdir=tmp_path / "work"))


# -- choosing ------------------------------------------------------------------------------------


def test_auto_prefers_an_api_key_and_says_where_it_came_from(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-api03-PLANTEST-0123456789")
    chosen = backends.plan()
    assert chosen.backend == "anthropic" and chosen.reason == "auto: an Anthropic API key is configured (ANTHROPIC_API_KEY)"
    assert "PLANTEST" not in chosen.reason
    assert backends.plan(api_key="sk-ant-api03-FLAG").reason == "auto: an Anthropic API key is configured (--api-key)"


@pytest.mark.usefixtures("no_claude")
def test_auto_without_key_or_claude_is_rules_with_the_notice() -> None:
    choice = backends.choose()
    assert isinstance(choice.distiller, RulesDistiller) and choice.judge is None
    assert choice.reason == "auto: no API key and no `claude` on PATH"
    assert choice.notice == backends.NO_KEY_NOTICE
    assert backends.describe() == "rules (offline) — auto: no API key and no `claude` on PATH"


@pytest.mark.usefixtures("no_claude")
def test_auto_with_a_claude_login_builds_the_claude_code_backend_and_judge(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    cli = tmp_path / "bin" / "claude"
    cli.parent.mkdir()
    cli.write_text("#!/bin/sh\nexit 3\n")  # never run: the credentials file already answers
    cli.chmod(0o755)
    credentials = tmp_path / "claude-config" / ".credentials.json"
    credentials.parent.mkdir()
    credentials.write_text("{}")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(credentials.parent))
    config.set_value("distill.claude_path", str(cli))
    choice = backends.choose()
    assert isinstance(choice.distiller, CodeDistiller) and choice.judge is not None
    assert choice.judge.client is choice.distiller.client  # type: ignore[attr-defined]
    assert choice.reason == f"auto: no API key; Claude Code is logged in (claude.ai) at {cli}"
    assert choice.distiller.policy == "claude-code/claude-haiku-4-5/distill-v2"
    settings = choice.distiller.client.settings  # type: ignore[attr-defined]
    assert settings.cli == cli and settings.workdir == home.distill_workdir()


def test_explicit_backends_fail_with_one_clear_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(AuthError, match="the anthropic backend needs an API key"):
        backends.plan("anthropic")
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(ConfigError, match="needs the `claude` CLI on PATH"):
        backends.plan("claude-code")
    with pytest.raises(ConfigError, match="unknown backend 'gpt'"):
        backends.plan("gpt")
    assert backends.plan("rules").reason == "rules: chosen by --backend"
    config.set_value("distill.backend", "rules")
    assert backends.plan().reason == "rules: chosen by config distill.backend"


# -- the cap, usage and bounds --------------------------------------------------------------------


def test_the_unattended_cap_defers_before_claude_code_is_started(tmp_path: Path) -> None:
    s = ClaudeSession(str(tmp_path / "shop"))
    s.user("In this repo we use pnpm, never npm.")
    path = s.write(tmp_path / "shop.jsonl")
    config.set_value(usage.CAP_KEY, "0")
    distiller = CodeDistiller(client(tmp_path))  # its CLI does not exist: starting it would fail differently
    with Store() as store:
        report = pipeline.import_sessions(store, [(path, "claude-code")],
                                          pipeline.Options(distiller=distiller, attended=False))
        assert store.scalar("SELECT count(*) FROM ledger") == 0
    assert [p for p, _ in report.deferred] == [str(path)]
    assert report.deferred[0][1].startswith("DAILY CAP REACHED: 0/0 unattended model calls today")
    assert report.model == "claude-haiku-4-5" and report.usage == Usage()


def test_usage_comes_from_the_result_message() -> None:
    result = {"usage": {"input_tokens": 80, "output_tokens": 20, "cache_read_input_tokens": 7,
                        "cache_creation_input_tokens": 3, "server_tool_use": {"web_search_requests": 0}}}
    assert usage_of(result) == Usage(1, 80, 7, 3, 20)
    assert usage_of({}) == Usage(1, 0, 0, 0, 0)  # a run that reported nothing still counts as a call
    assert usage_of({"usage": {"input_tokens": True, "output_tokens": "9"}}) == Usage(1, 0, 0, 0, 0)


def test_the_child_runs_with_capture_off_and_bounded_retries(tmp_path: Path) -> None:
    settings = CodeSettings(cli=tmp_path / "claude", workdir=tmp_path, timeout_seconds=2.5, max_retries=1)
    assert child_env(settings, 300) == {"LORELINE_OFF": "1", "CLAUDE_CODE_MAX_RETRIES": "1",
                                        "API_TIMEOUT_MS": "2500", "CLAUDE_CODE_MAX_OUTPUT_TOKENS": "300"}



def test_the_run_is_sealed_off_and_asks_for_the_tool_schema(tmp_path: Path) -> None:
    settings = CodeSettings(cli=tmp_path / "claude", workdir=tmp_path)
    line = argv(settings, RECORD_MEMORIES, "SYSTEM")
    assert line[:2] == [str(tmp_path / "claude"), "-p"]
    flags = {flag: line[i + 1] for i, flag in enumerate(line) if flag in ("--json-schema", "--tools",
                                                                      "--setting-sources", "--output-format")}
    assert flags == {"--json-schema": flags["--json-schema"], "--tools": "", "--setting-sources": "",
                     "--output-format": "json"}
    assert json.loads(flags["--json-schema"]) == RECORD_MEMORIES["input_schema"]
    assert {"--no-session-persistence", "--strict-mcp-config", "--disable-slash-commands"} <= set(line)
    system = line[line.index("--system-prompt") + 1]
    assert system.startswith("SYSTEM") and "call record_memories, call the StructuredOutput tool" in system


# -- discovery and start-up -----------------------------------------------------------------------


def test_discovery_leaves_out_the_distillation_project(tmp_path: Path) -> None:
    projects = tmp_path / "claude" / "projects"
    own = projects / re.sub(r"[^A-Za-z0-9]", "-", str(home.distill_workdir()))
    user = projects / "-home-someone-shop"
    for folder in (own, user):
        folder.mkdir(parents=True)
        (folder / SESSION).write_text('{"type":"user"}\n')
    found = registry.discover_claude(tmp_path / "claude", now=time.time() + 3600)
    assert [f.path for f in found.sessions] == [user / SESSION]
    assert (str(own / SESSION), discover.OWN_RUN) in found.left_out


def test_no_agent_sdk_is_needed_or_imported(tmp_path: Path) -> None:
    code = ("import sys, loreline.cli.main as m; m.build_parser(); from loreline import backends; "
            "backends.describe(); print('SDK' if 'claude_agent_sdk' in sys.modules else 'none')")
    env = dict(os.environ, PATH=str(tmp_path), PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    assert out.stdout.strip() == "none"


def test_a_plain_install_carries_everything_the_login_backends_need() -> None:
    import tomllib

    project = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    wanted = [*project["dependencies"], *(d for extra in project["optional-dependencies"].values() for d in extra)]
    assert not [d for d in wanted if d.startswith("claude-agent-sdk")]  # a 178 MB wheel with a second `claude`
    assert project["optional-dependencies"]["claude-code"] == []  # still installable by that name
