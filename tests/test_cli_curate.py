"""Curation commands end to end in subprocesses: forget, edit, pin, history, conflicts, resolve, revert."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from loreline.beliefs import conflicts
from loreline.samples.builder import ClaudeSession
from loreline.store import Store
from tests.test_cli import cli

pytestmark = pytest.mark.slow  # every curation command in its own CLI process


def _seed(home: Path, tmp_path: Path) -> dict[str, int]:
    s = ClaudeSession("/work/cur")
    s.user("We decided to use Redis for job locks.")
    s.user("We decided to use Postgres advisory locks.")
    s.user("In this repo we use pnpm, never npm.")
    cli(home, "import", "sessions", "--path", str(s.write(tmp_path / "s.jsonl")))
    listed = json.loads(cli(home, "memories", "--project", "/work/cur", "--json").stdout)
    return {m["text"]: m["id"] for m in listed}


def test_forget_edit_pin_history(loreline_home: Path, tmp_path: Path) -> None:
    ids = _seed(loreline_home, tmp_path)
    pnpm = ids["In this repo we use pnpm, never npm."]
    assert "superseded by" in cli(loreline_home, "edit", str(pnpm), "Use pnpm 9 everywhere; never npm.").stdout
    history = json.loads(cli(loreline_home, "history", str(pnpm), "--json").stdout)
    assert [(v["version"], v["status"]) for v in history] == [(1, "superseded"), (2, "active")]
    newest = history[-1]["id"]
    assert "Pinned" in cli(loreline_home, "pin", str(newest)).stdout
    listed = json.loads(cli(loreline_home, "memories", "--project", "/work/cur", "--json").stdout)
    assert listed[0]["id"] == newest and listed[0]["pinned"] is True
    assert "will not come back" in cli(loreline_home, "forget", str(newest)).stdout
    remaining = {m["text"] for m in json.loads(cli(loreline_home, "memories", "--project", "/work/cur",
                                                   "--json").stdout)}
    assert remaining == {"We decided to use Redis for job locks.", "We decided to use Postgres advisory locks."}


def test_conflicts_resolve_and_revert(loreline_home: Path, tmp_path: Path) -> None:
    ids = _seed(loreline_home, tmp_path)
    with Store(loreline_home / "loreline.db") as store, store.write():
        cid = conflicts.record(store, "/work/cur", ids["We decided to use Redis for job locks."],
                               ids["We decided to use Postgres advisory locks."], "both pick the lock backend")
    pending = json.loads(cli(loreline_home, "conflicts", "--project", "/work/cur", "--json").stdout)
    assert [c["id"] for c in pending] == [cid]
    text = cli(loreline_home, "conflicts", "--all").stdout
    assert f"conflict #{cid}" in text and "both pick the lock backend" in text
    assert "resolved: merge" in cli(loreline_home, "resolve", str(cid), "--merge",
                                    "Job locks: Postgres advisory locks, not Redis.").stdout
    active = {m["text"] for m in json.loads(cli(loreline_home, "memories", "--project", "/work/cur",
                                                "--json").stdout)}
    assert "Job locks: Postgres advisory locks, not Redis." in active
    assert "pending again" in cli(loreline_home, "revert", str(cid)).stdout
    assert "resolved: keep_new" in cli(loreline_home, "resolve", str(cid), "--keep", "new").stdout
    again = cli(loreline_home, "resolve", str(cid), "--keep", "both", check=False)
    assert again.returncode == 1 and "already resolved" in again.stderr
    assert cli(loreline_home, "conflicts", "--all").stdout.strip() == "No pending conflicts."
