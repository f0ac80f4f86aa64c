"""The review inbox: with `capture.review = "ask"` what the capture worker learns is held —
not injected, not recalled — until a person approves, edits or rejects it (`loreline review`
in a subprocess); pending conflicts are listed in the same inbox."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from loreline import capture
from loreline.capture.hookread import session_start_memories
from loreline.capture.worker import REVIEW_REASON, Worker
from loreline.distill.rules import RulesDistiller
from loreline.home import db_path
from loreline.recall import recall
from loreline.store import Store
from tests.capture_helpers import event, remembered_session, run_hook, worker_lock_held, write_config
from tests.conftest import loreline_exe, subprocess_env

pytestmark = pytest.mark.slow  # the review inbox through CLI and worker processes


def cli(home: Path, *args: str, cwd: Path, stdin: str | None = None, check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([loreline_exe(), *args], capture_output=True, text=True, env=subprocess_env(home),
                          cwd=cwd, input=stdin, timeout=120)
    assert not check or done.returncode == 0, done.stderr
    return done


def capture_one(home: Path, tmp_path: Path) -> Path:
    """A Stop hook for a session in `proj`, then one worker drain with the configured settings."""
    (tmp_path / "proj").mkdir(exist_ok=True)
    session, path = remembered_session(tmp_path / "proj", tmp_path / "sessions")
    with worker_lock_held(home):
        assert run_hook(home, "Stop", stdin=event("Stop", session, path)).returncode == 0
    report = Worker(capture.load_settings(), distiller=RulesDistiller(), horizon=0.0).drain()
    assert report is not None and report.done == 1
    return tmp_path / "proj"


def statuses() -> list[tuple[int, str, str | None]]:
    with Store() as store:
        return [(int(i), str(s), r) for i, s, r in store.rows("SELECT id, status, hold_reason FROM memories ORDER BY id")]


def test_under_ask_background_capture_waits_for_review(loreline_home: Path, tmp_path: Path) -> None:
    write_config(loreline_home, '[capture]\nreview = "ask"\n')
    proj = capture_one(loreline_home, tmp_path)
    found = statuses()
    assert found and all(s == "held" and r == REVIEW_REASON for _, s, r in found)
    assert session_start_memories(str(db_path()), str(proj), 50) == ([], 0)
    with Store() as store:
        assert recall(store, "pnpm", str(proj)) == []
    listed = json.loads(cli(loreline_home, "review", "--json", cwd=proj).stdout)
    assert [m["id"] for m in listed["held"]] == [i for i, _, _ in found]
    assert listed["held"][0]["hold_reason"] == REVIEW_REASON and listed["conflicts"] == []
    plain = cli(loreline_home, "review", cwd=proj).stdout
    assert f"{len(found)} memories held for review" in plain and "reason: from background capture" in plain


def test_approve_edit_and_reject_from_the_cli(loreline_home: Path, tmp_path: Path) -> None:
    write_config(loreline_home, '[capture]\nreview = "ask"\n')
    proj = capture_one(loreline_home, tmp_path)
    first, second, *rest = [i for i, _, _ in statuses()]
    cli(loreline_home, "review", "--approve", str(first), cwd=proj)
    cli(loreline_home, "review", "--approve", str(second), "--text", "We use pnpm for every package.", cwd=proj)
    for memory_id in rest:
        assert "Rejected" in cli(loreline_home, "review", "--reject", str(memory_id), cwd=proj).stdout
    again = cli(loreline_home, "review", "--reject", str(first), cwd=proj, check=False)
    assert again.returncode != 0 and "is not held for review (it is active)" in again.stderr
    after = {i: s for i, s, _ in statuses()}
    assert after[first] == after[second] == "active" and all(after[i] == "forgotten" for i in rest)
    injected = [text for _, _, text in session_start_memories(str(db_path()), str(proj), 50)[0]]
    assert "We use pnpm for every package." in injected and len(injected) == 2
    with Store() as store:
        # the approved wording is what recall searches: found by its words, no longer by the old ones
        found = {h.memory.id: h.memory.text for h in recall(store, "pnpm package", str(proj))}
        assert found.get(second) == "We use pnpm for every package."
        assert second not in {h.memory.id for h in recall(store, "SQLite laptops", str(proj))}
        actions = [r[0] for r in store.rows("SELECT action FROM audit WHERE actor = 'user' ORDER BY id")]
    assert actions[:2] == ["approve", "approve"] and set(actions[2:]) == {"forget"}


def test_auto_keeps_capture_active(loreline_home: Path, tmp_path: Path) -> None:
    capture_one(loreline_home, tmp_path)
    assert statuses() and all(s == "active" for _, s, _ in statuses())


def test_a_bad_review_setting_is_one_clear_error(loreline_home: Path, tmp_path: Path) -> None:
    write_config(loreline_home, '[capture]\nreview = "sometimes"\n')
    done = cli(loreline_home, "config", "list", cwd=tmp_path, check=False)
    assert done.returncode != 0 and "capture.review" in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_the_interactive_walk_on_a_terminal_is_skipped_without_one(loreline_home: Path, tmp_path: Path) -> None:
    """Piped input is not a terminal: `review` lists and changes nothing."""
    write_config(loreline_home, '[capture]\nreview = "ask"\n')
    proj = capture_one(loreline_home, tmp_path)
    before = statuses()
    cli(loreline_home, "review", cwd=proj, stdin="a\na\na\n")
    assert statuses() == before


def test_on_a_terminal_review_asks_item_by_item(loreline_home: Path, tmp_path: Path) -> None:
    """A real pseudo-terminal: approve the first held memory, edit the second, reject the rest,
    then keep both sides of the pending conflict."""
    import os
    import pty

    write_config(loreline_home, '[capture]\nreview = "ask"\n')
    proj = capture_one(loreline_home, tmp_path)
    held = [i for i, _, _ in statuses()]
    from loreline.beliefs import conflicts

    with Store() as store, store.write():
        conflicts.record(store, str(proj), held[0], held[1], "test pair")
    answers = "a\ne\nWe use pnpm, always.\n" + "r\n" * (len(held) - 2) + "b\n"
    leader, follower = pty.openpty()
    proc = subprocess.Popen([loreline_exe(), "review"], stdin=follower, stdout=follower, stderr=subprocess.PIPE,
                            env=subprocess_env(loreline_home), cwd=proj)
    os.close(follower)
    os.write(leader, answers.encode())
    out = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    assert proc.wait(timeout=60) == 0
    os.close(leader)
    prompts = proc.stderr.read().decode(errors="replace") if proc.stderr else ""  # input() prompts on stderr
    text = out.decode(errors="replace") + prompts
    assert "[a]pprove, [e]dit then approve, [r]eject" in text and "keep [n]ew, [e]xisting, [b]oth" in text
    after = {i: s for i, s, _ in statuses()}
    assert after[held[0]] == after[held[1]] == "active" and all(after[i] == "forgotten" for i in held[2:])
    with Store() as store:
        assert store.scalar("SELECT text FROM memories WHERE id = ?", (held[1],)) == "We use pnpm, always."
        assert store.scalar("SELECT resolution FROM conflicts") == "keep_both"
