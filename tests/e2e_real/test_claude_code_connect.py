"""The real Claude Code CLI, headless and offline, runs the hooks `loreline connect` wrote where
it wrote them: `--project` into `.claude/settings.local.json` (the personal file), and the user
settings through a dotfiles symlink that stays a link."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.e2e_real.fake_models import Replies
from tests.e2e_real.harness import Clients, Isolation, Sandbox, wait_for

pytestmark = pytest.mark.real_clients

REPLIES = Replies("Noted.", ())
PROMPT = "In this repo we use pnpm, never npm."


@pytest.fixture
def box(real_clients: Clients, isolation: Isolation, tmp_path: Path) -> Sandbox:
    return Sandbox(tmp_path / "box", real_clients, isolation)


def spooled_events(box: Sandbox) -> list[str]:
    wait_for(lambda: any(r["event"] == "SessionEnd" for r in box.spool_records()),
             "the SessionEnd hook to write its spool file", timeout=20)
    return [r["event"] for r in box.spool_records()]


def test_project_hooks_in_settings_local_json_run(box: Sandbox) -> None:
    connected = box.loreline("connect", "claude-code", "--project")
    assert "settings.local.json" in connected.stdout
    assert not (box.repo / ".claude" / "settings.json").exists()
    assert not (box.home / ".claude" / "settings.json").exists()
    with box.worker_lock():
        box.claude("project", ["-p", PROMPT, "--output-format", "json"], REPLIES).check()
        assert spooled_events(box) == ["Stop", "SessionEnd"]
    untracked = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=box.repo,
                               env=box.base_env(), capture_output=True, text=True, check=True).stdout
    assert ".claude/" not in untracked  # git ignores the personal settings file, as Claude Code arranges
    box.loreline("disconnect", "claude-code", "--project")
    assert not (box.repo / ".claude" / "settings.local.json").exists()  # connect made it: no `{}` is left


def test_user_settings_through_a_dotfiles_symlink_run_and_the_link_stays(box: Sandbox) -> None:
    dotfiles = box.root / "dotfiles" / "claude-settings.json"
    dotfiles.parent.mkdir(parents=True)
    dotfiles.write_text('{\n    "cleanupPeriodDays": 30\n}\n')
    link = box.home / ".claude" / "settings.json"
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(os.path.relpath(dotfiles, link.parent))
    box.loreline("connect", "claude-code")
    assert link.is_symlink() and "loreline-hook Stop" in dotfiles.read_text()
    with box.worker_lock():
        box.claude("linked", ["-p", PROMPT, "--output-format", "json"], REPLIES).check()
        assert spooled_events(box) == ["Stop", "SessionEnd"]
    box.loreline("disconnect", "claude-code")
    assert link.is_symlink() and dotfiles.read_text() == '{\n    "cleanupPeriodDays": 30\n}\n'
