"""The CLI's entry, quickly: which module builds each command's parser, the hook script beside
`loreline`, and the team commands without a server (the fast tier's representative of them; the
team suites need PostgreSQL). The demo, which runs offline end to end, and the curation commands' one-line
errors stand for the CLI suites that import sessions in many processes (tests/test_cli.py,
tests/test_cli_curate.py)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.conftest import loreline_exe, subprocess_env


def test_each_command_is_built_from_the_module_that_registers_it() -> None:
    """A run builds only its command's module's parsers (`main.COMMANDS`): the map must name, for
    every command of the full parser, the module whose `register` adds it."""
    import argparse
    import importlib

    from loreline.cli import main

    found: dict[str, str] = {}
    for name in main.COMMAND_MODULES:
        parser = argparse.ArgumentParser()
        sub = parser.add_subparsers()
        importlib.import_module(f"loreline.cli.{name}").register(sub)
        found.update(dict.fromkeys(sub.choices, name))
    full = next(a for a in main.build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    assert found == main.COMMANDS and set(full.choices) == set(main.COMMANDS)
    assert main.command_of(["--version"]) is None and main.command_of(["-h", "memories"]) is None
    assert main.command_of(["memories", "--all"]) == "memories"


def test_the_hook_script_is_found_beside_loreline_whatever_the_venv_is_called(loreline_home: Path,
                                                                              tmp_path: Path) -> None:
    """Tests find `loreline-hook` beside `loreline` by file name only: a venv whose path holds the
    word "loreline" (here `loreline-env/bin`) must not send them to a folder that does not exist."""
    from tests.conftest import VENV_BIN, hook_exe

    bin_dir = tmp_path / "loreline-env" / "bin"
    bin_dir.mkdir(parents=True)
    for name in ("loreline", "loreline-hook"):
        (bin_dir / name).symlink_to(VENV_BIN / name)
    hook = hook_exe(str(bin_dir / "loreline"))
    assert hook == str(bin_dir / "loreline-hook")
    done = subprocess.run([hook], input=json.dumps({"hook_event_name": "Stop", "session_id": "s-1", "cwd": str(tmp_path)}),
                          capture_output=True, text=True, env=subprocess_env(loreline_home), cwd=tmp_path, timeout=60)
    assert done.returncode == 0 and done.stderr == ""


def test_team_status_without_a_server_says_how_to_connect(loreline_home: Path, tmp_path: Path) -> None:
    """The team commands' fast-tier representative (the team suites need a PostgreSQL server)."""
    env = subprocess_env(loreline_home)
    said = subprocess.run([loreline_exe(), "team", "status"], capture_output=True, text=True, env=env, cwd=tmp_path,
                          timeout=60)
    assert said.returncode == 0 and "not connected" in said.stdout and "loreline team connect" in said.stdout
    state = json.loads(subprocess.run([loreline_exe(), "team", "status", "--json"], capture_output=True, text=True,
                                      env=env, cwd=tmp_path, timeout=60).stdout)
    assert state["enabled"] is False and state["published"] == state["received"] == 0


def test_demo_runs_offline_and_shows_memories_recall_and_provenance(loreline_home: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LORELINE_RULES_SUGGEST")  # the demo shows what a user gets by default
    out = _cli(loreline_home, "demo").stdout
    assert "Imported 3 sessions" in out
    # the offline rules only suggest; what was said in two sessions is active before any approval
    suggested, approved = out.split("Memories, per project")
    assert "said again in a later session:\n  ✓ In this repo we use pnpm, never npm" in suggested
    assert "suggested by the offline rules" in suggested and "? Please don't use default exports" in suggested
    assert "Please don't use default exports" in approved
    assert "recalled for" in out and "Provenance of memory" in out
    assert "2 sources:" in out
    assert "3 unchanged" in out
    assert not (loreline_home / "loreline.db").exists()  # the demo never touches the user's home


def test_curation_of_a_memory_that_is_not_there_is_one_line(loreline_home: Path) -> None:
    for args in (("forget", "4242"), ("edit", "4242", "new words"), ("pin", "4242"), ("history", "4242")):
        done = _cli(loreline_home, *args, check=False)
        assert done.returncode != 0 and done.stderr.startswith("loreline: ") and "4242" in done.stderr
        assert "Traceback" not in done.stderr and done.stdout == ""
    assert _cli(loreline_home, "conflicts").stdout.strip() == "No pending conflicts."


def _cli(home: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([loreline_exe(), *args], capture_output=True, text=True, env=subprocess_env(home), timeout=120)
    if check:
        assert done.returncode == 0, done.stderr
    return done


def test_the_cli_s_fixed_choices_agree_with_the_assistant_registry() -> None:
    """The parser offers the registry's assistants without loading it (`loreline.names`)."""
    from loreline import names
    from loreline.assistants import registry as assistants

    assert names.TOOLS == assistants.names()
    assert names.CONNECTABLE == {a.name: a.label for a in assistants.ALL if a.connector is not None}
    assert names.NATIVE == tuple(a.name for a in assistants.ALL if a.memory_files is not None)
    assert names.HOMES == tuple((a.name, a.home_option, a.label, a.home_env or "", a.home_env_parent, a.home_default)
                                for a in assistants.ALL)
