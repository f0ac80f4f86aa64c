"""Shared test setup: every test gets its own Loreline home (a real, empty directory)."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"
REAL = FIXTURES / "real"
VENV_BIN = Path(sys.executable).parent


#: hooks run by tests choose by words unless a test asks for the warm recall process
#: (tests/test_warm_recall.py, tests/e2e_real): otherwise every SessionStart a test runs would
#: leave a background process with the sentence model loaded
PROMPT_RECALL_IN_TESTS = "words"
#: the suite's sessions were written before the offline rules only suggested: their statements
#: are stored active unless a test asks for suggestions (tests/test_rules_suggestions.py)
RULES_SUGGEST_IN_TESTS = "0"
WARM_IDLE_IN_TESTS = "20"


@pytest.fixture(scope="session", autouse=True)
def no_warm_process_outlives_the_tests(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """End the warm recall processes this run's homes started (never one of the developer's own)."""
    base = str(tmp_path_factory.getbasetemp())
    yield
    import psutil

    for proc in psutil.process_iter(["cmdline", "environ"]):
        try:
            if "loreline_warm" in (proc.info["cmdline"] or []) and \
                    (proc.info["environ"] or {}).get("LORELINE_HOME", "").startswith(base):
                proc.kill()
        except (psutil.Error, TypeError):
            continue


@pytest.fixture(autouse=True)
def loreline_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "loreline-home"
    monkeypatch.setenv("LORELINE_HOME", str(home))
    monkeypatch.setenv("LORELINE_PROMPT_RECALL", PROMPT_RECALL_IN_TESTS)
    monkeypatch.setenv("LORELINE_WARM_IDLE_SECONDS", WARM_IDLE_IN_TESTS)
    monkeypatch.setenv("LORELINE_RULES_SUGGEST", RULES_SUGGEST_IN_TESTS)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("LORELINE_OFF", raising=False)
    return home


@pytest.fixture
def failing_keyring() -> Iterator[None]:
    """The OS keyring answers nothing in this process (keyring's fail backend), then comes back."""
    import keyring
    import keyring.backends.fail

    before = keyring.get_keyring()
    keyring.set_keyring(keyring.backends.fail.Keyring())
    yield
    keyring.set_keyring(before)


def loreline_exe() -> str:
    exe = VENV_BIN / "loreline"
    return str(exe) if exe.exists() else shutil.which("loreline") or "loreline"


def hook_exe(loreline: str | None = None) -> str:
    """The `loreline-hook` script installed beside the `loreline` one: the file next to it, whatever
    the folders above are called (a venv under `~/src/loreline/` is common)."""
    exe = Path(loreline or loreline_exe())
    return str(exe.with_name("loreline-hook")) if exe.is_absolute() else "loreline-hook"


def subprocess_env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CLAUDE_"))}
    env["LORELINE_HOME"] = str(home)
    env.update(extra)
    return env
