"""Shared test setup: every test gets its own Loreline home (a real, empty directory)."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"
REAL = FIXTURES / "real"
VENV_BIN = Path(sys.executable).parent


@pytest.fixture(autouse=True)
def loreline_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "loreline-home"
    monkeypatch.setenv("LORELINE_HOME", str(home))
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("LORELINE_OFF", raising=False)
    return home


def loreline_exe() -> str:
    exe = VENV_BIN / "loreline"
    return str(exe) if exe.exists() else shutil.which("loreline") or "loreline"


def subprocess_env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CLAUDE_"))}
    env["LORELINE_HOME"] = str(home)
    env.update(extra)
    return env
