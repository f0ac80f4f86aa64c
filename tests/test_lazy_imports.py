"""The everyday commands stay cheap to start: each runs in a fresh interpreter and the modules it
loaded are read from `sys.modules` at its end. Not timed (timings live in `scripts/bench --only
startup`); what is checked is that nothing heavy is imported on the way: numpy and the sentence
model, sqlite-vec's Python package, the SDKs (anthropic, mcp, pygls), the keyring's backends,
tomlkit, the import pipeline and the belief layer; and, on the read path (`memories`, `show`,
`config`, `--help`), dataclasses, typing, the embedder and, without a settings file, its
readers. `status` keeps its slow answers (is Claude Code logged in, does the keyring hold the
key) in the state folder, and asks again when what decides them changes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from tests.capture_helpers import remembered_project
from tests.conftest import ROOT, subprocess_env

#: what no everyday command may load: numpy (the sentence model runs on it), the SDKs, the keyring's backends, the
#: round-trip TOML editor, and the engine's heavy layers
HEAVY = ("numpy", "sqlite_vec", "anthropic", "httpx", "pydantic", "mcp", "pygls", "lsprotocol", "keyring",
         "tomlkit", "claude_agent_sdk", "psycopg", "loreline.pipeline",
         "loreline.beliefs", "loreline.distill", "loreline.recall", "loreline.transcripts",
         "loreline.privacy.redact", "loreline.privacy.sanitize", "loreline_lsp", "loreline_mcp")
#: `--help` builds the parser and nothing else: not even the store
HELP_ONLY = (*HEAVY, "apsw", "loreline.store", "loreline.models", "loreline.config", "dataclasses", "pathlib",
             "orjson")
#: what reading memories and settings does without: the standard library's slow starters (dataclasses, with
#: inspect, ast and dis behind it; typing; shutil, which loads the compressors; subprocess; tempfile) and the
#: embedder; the records of `loreline.records` stand in for dataclasses
LEAN = (*HEAVY, "dataclasses", "inspect", "typing", "shutil", "subprocess", "tempfile", "loreline.embed")
#: what a run reads the settings with: none of it when there is no settings file
SETTINGS_READERS = ("tomllib", "loreline.config", "loreline.keys", "loreline.assistants")

RUN = """
import json, sys
from loreline.cli.main import main
try:
    code = main(sys.argv[2:])
except SystemExit as done:
    code = done.code
with open(sys.argv[1], "w") as out:
    json.dump({"code": code, "modules": sorted(sys.modules)}, out)
"""


def _run(home: Path, tmp_path: Path, *args: str, cwd: Path | None = None, **env: str) -> set[str]:
    """Run `loreline ARGS` in a fresh interpreter; the modules it had loaded at its end."""
    report = tmp_path / "modules.json"
    done = subprocess.run([sys.executable, "-c", RUN, str(report), *args], capture_output=True, timeout=120,
                          cwd=cwd or tmp_path, env=subprocess_env(home, PYTHONPATH=_path(), **env))
    assert done.returncode == 0, done.stderr.decode()
    found = json.loads(report.read_text(encoding="utf-8"))
    assert found["code"] in (0, None), done.stderr.decode()
    return set(found["modules"])


def _path() -> str:
    return os.pathsep.join([str(ROOT / "engine"), str(ROOT / "lsp"), str(ROOT / "hooks"),
                            os.environ.get("PYTHONPATH", "")])


def _heavy(modules: set[str], names: tuple[str, ...] = HEAVY) -> list[str]:
    return sorted(m for m in modules if any(m == n or m.startswith(n + ".") for n in names))


def test_help_builds_the_parser_and_loads_nothing_else(loreline_home: Path, tmp_path: Path) -> None:
    assert _heavy(_run(loreline_home, tmp_path, "--help"), HELP_ONLY) == []
    assert _heavy(_run(loreline_home, tmp_path, "import", "sessions", "--help"), HELP_ONLY) == []


def test_memories_show_and_config_load_no_heavy_module(loreline_home: Path, tmp_path: Path) -> None:
    folder, _ = remembered_project(tmp_path)
    listing = _run(loreline_home, tmp_path, "memories", "--project", str(folder))
    assert "loreline.store.memories" in listing  # it did read the store
    assert _heavy(listing) == []
    assert _heavy(_run(loreline_home, tmp_path, "memories", "--all", "--json")) == []
    assert _heavy(_run(loreline_home, tmp_path, "show", "1")) == []
    assert _heavy(_run(loreline_home, tmp_path, "config", "list")) == []
    assert _heavy(_run(loreline_home, tmp_path, "config", "get", "distill.backend")) == []


def test_the_read_path_needs_no_dataclasses_typing_embedder_or_settings_reader(loreline_home: Path,
                                                                                tmp_path: Path) -> None:
    folder, _ = remembered_project(tmp_path)
    reads = [("memories", "--project", str(folder)), ("show", "1")]
    for args in reads:
        assert _heavy(_run(loreline_home, tmp_path, *args), (*LEAN, *SETTINGS_READERS)) == [], args
    for args in [("memories", "--all", "--json"), ("show", "1", "--json")]:  # orjson brings dataclasses itself
        assert _heavy(_run(loreline_home, tmp_path, *args), (*HEAVY, *SETTINGS_READERS, "loreline.embed")) == [], args
    for args in [("config", "list"), ("config", "get", "distill.backend"), ("--help",)]:
        assert _heavy(_run(loreline_home, tmp_path, *args), (*LEAN, "apsw", "loreline.store")) == [], args
    (loreline_home / "config.toml").write_text('[distill]\nbackend = "rules"\n', encoding="utf-8")
    for args in [*reads, ("config", "list")]:
        modules = _run(loreline_home, tmp_path, *args)
        assert "loreline.config" in modules, args  # the file was read
        assert _heavy(modules, tuple(n for n in LEAN if n != "typing")) == [], args  # tomllib imports typing


def test_status_keeps_the_keyring_answer_and_loads_no_heavy_module(loreline_home: Path, tmp_path: Path) -> None:
    _run(loreline_home, tmp_path, "status")  # the first run asks the keyring
    assert (loreline_home / "state" / "remembered" / "keyring-holds-key.json").is_file()
    again = _run(loreline_home, tmp_path, "status")
    assert _heavy(again) == []  # keyring among them: the answer was kept
    assert _heavy(again, ("dataclasses", "inspect", "tempfile")) == []


FAKE_CLAUDE = """#!/bin/sh
echo asked >> "{log}"
echo '{{"loggedIn": true, "authMethod": "claude.ai"}}'
"""


def test_status_asks_claude_code_once_until_the_cli_or_its_login_changes(loreline_home: Path,
                                                                         tmp_path: Path) -> None:
    bin_dir, log = tmp_path / "bin", tmp_path / "asked.log"
    bin_dir.mkdir()
    cli = bin_dir / "claude"
    cli.write_text(FAKE_CLAUDE.format(log=log), encoding="utf-8")
    cli.chmod(0o755)
    config_dir = tmp_path / "claude-config"
    config_dir.mkdir()
    env = {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "CLAUDE_CONFIG_DIR": str(config_dir)}

    def asked() -> int:
        return len(log.read_text(encoding="utf-8").splitlines()) if log.exists() else 0

    def status() -> str:
        done = subprocess.run([sys.executable, "-m", "loreline.cli.main", "status"], capture_output=True,
                              timeout=120, cwd=tmp_path, env=subprocess_env(loreline_home, PYTHONPATH=_path(), **env))
        assert done.returncode == 0, done.stderr.decode()
        return done.stdout.decode()

    assert "Claude Code is logged in (claude.ai)" in status()
    assert asked() == 1
    status()
    assert asked() == 1  # the second run used the kept answer
    stamp = time.time() + 5
    os.utime(cli, (stamp, stamp))  # an upgrade of the CLI
    status()
    assert asked() == 2
    env["CLAUDE_CODE_OAUTH_TOKEN"] = "a token in the environment"  # another way of being logged in
    status()
    assert asked() == 3
    kept = (loreline_home / "state" / "remembered" / "claude-login.json").read_text(encoding="utf-8")
    assert "a token in the environment" not in kept and "claude.ai" in kept
    (config_dir / ".credentials.json").write_text("{}", encoding="utf-8")  # logged in through the file
    status()
    assert asked() == 3  # the file answers without asking the CLI


