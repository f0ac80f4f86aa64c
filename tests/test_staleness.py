"""Staleness tied to the code, in a real git repository: memories imported from a session that
read a file are anchored to it; edits, deletions, renames and branch switches flag them, and
going back or confirming clears them. The CLI runs in subprocesses against the same store."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from loreline import pipeline, staleness
from loreline.capture.hookread import session_start_memories
from loreline.distill.rules import RulesDistiller
from loreline.home import db_path
from loreline.samples.builder import ClaudeSession
from loreline.store import Store
from loreline.store import memories as rows
from tests.conftest import loreline_exe, subprocess_env

APP = "\n".join(f"def step_{i}(queue):\n    return queue.push({i})\n" for i in range(20))


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True,
                          env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t",
                               "GIT_COMMITTER_EMAIL": "t@e", "HOME": str(repo.parent), "PATH": "/usr/bin:/bin"})
    return done.stdout


def cli(home: Path, *args: str, cwd: Path) -> str:
    done = subprocess.run([loreline_exe(), *args], capture_output=True, text=True, env=subprocess_env(home), cwd=cwd,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text(APP)
    (root / "src" / "other.py").write_text("print('other')\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "start")
    return root


def import_session(tmp_path: Path, repo: Path, said: str, read: str = "src/app.py") -> int:
    """Import a session in which the user said `said` and the assistant read `read`; the id."""
    s = ClaudeSession(str(repo))
    s.user(said)
    s.assistant("Reading it.", tools=[("Read", {"file_path": str(repo / read)}, "x")])
    path = s.write(tmp_path / f"s{abs(hash(said))}.jsonl")
    with Store() as store:
        pipeline.import_sessions(store, [(path, "claude-code")], pipeline.Options(distiller=RulesDistiller()))
        found = store.scalar("SELECT id FROM memories WHERE text = ?", (said,))
    assert found is not None
    return int(found)


def memory(memory_id: int) -> rows.Memory:  # type: ignore[name-defined]
    with Store() as store:
        return rows.get(store, memory_id)


def check(repo: Path, *paths: str) -> staleness.CheckReport:
    with Store() as store:
        return staleness.check(store, str(repo), list(paths) if paths else None)


def test_a_memory_is_anchored_to_the_blob_git_has(tmp_path: Path, repo: Path) -> None:
    mid = import_session(tmp_path, repo, "In this repo we use pnpm, never npm.")
    with Store() as store:
        blob, commit = store.one("SELECT blob, anchor_commit FROM memory_files WHERE memory_id = ?", (mid,)) or ()
    assert blob == git(repo, "hash-object", "src/app.py").strip()
    assert commit == git(repo, "rev-parse", "HEAD").strip()
    assert memory(mid).stale is None


def test_unrelated_and_small_changes_never_flag(tmp_path: Path, repo: Path) -> None:
    mid = import_session(tmp_path, repo, "In this repo we use pnpm, never npm.")
    (repo / "src" / "other.py").write_text("print('rewritten entirely')\n")
    app = repo / "src" / "app.py"
    app.write_text(APP.replace("push(3)", "push(33)") + "\ndef added():\n    return 1\n")
    report = check(repo)
    assert report.checked == 1 and report.flagged == ()
    assert memory(mid).stale is None


def test_a_substantial_edit_flags_and_undoing_it_clears(tmp_path: Path, repo: Path, loreline_home: Path) -> None:
    mid = import_session(tmp_path, repo, "In this repo we use pnpm, never npm.")
    app = repo / "src" / "app.py"
    app.write_text("\n".join(f"async def task_{i}():\n    await run({i})\n" for i in range(20)))
    assert check(repo, str(app)).flagged == (mid,)
    stale = memory(mid).stale
    assert stale is not None and stale.startswith("src/app.py changed (")
    listed = cli(loreline_home, "memories", cwd=repo)
    assert "may be stale: src/app.py changed" in listed
    shown = json.loads(cli(loreline_home, "show", str(mid), "--json", cwd=repo))
    assert shown["stale"] == stale and shown["last_seen"]
    git(repo, "checkout", "--", "src/app.py")
    assert check(repo, "src/app.py").cleared == (mid,)
    assert memory(mid).stale is None


def test_stale_memories_are_left_out_of_injection_unless_pinned(tmp_path: Path, repo: Path) -> None:
    mid = import_session(tmp_path, repo, "In this repo we use pnpm, never npm.")
    (repo / "src" / "app.py").write_text("completely different\n")
    check(repo)
    assert session_start_memories(str(db_path()), str(repo), 50) == ([], 0)
    with Store() as store, store.write():
        rows.set_pinned(store, mid, True)
    assert [text for _, _, text in session_start_memories(str(db_path()), str(repo), 50)[0]] == [memory(mid).text]


def test_deleted_file_flags(tmp_path: Path, repo: Path) -> None:
    mid = import_session(tmp_path, repo, "In this repo we use pnpm, never npm.")
    git(repo, "rm", "-q", "src/app.py")
    check(repo)
    assert memory(mid).stale == "src/app.py deleted"


def test_a_git_rename_is_followed_and_confirm_moves_the_tie(tmp_path: Path, repo: Path, loreline_home: Path) -> None:
    mid = import_session(tmp_path, repo, "In this repo we use pnpm, never npm.")
    git(repo, "mv", "src/app.py", "src/main.py")
    git(repo, "commit", "-q", "-m", "rename")
    check(repo)
    assert memory(mid).stale == "src/app.py renamed to src/main.py"
    out = cli(loreline_home, "confirm", str(mid), cwd=repo)
    assert f"Confirmed #{mid}" in out
    confirmed = memory(mid)
    assert confirmed.stale is None and confirmed.files == ("src/main.py",)
    assert confirmed.confirmed_by is not None and confirmed.confirmed_by.endswith("via cli")
    with Store() as store:
        action, after = store.one("SELECT action, after FROM audit WHERE memory_id = ? ORDER BY id DESC", (mid,)) or ()
    assert action == "confirm" and json.loads(after)["by"] == confirmed.confirmed_by
    (repo / "src" / "main.py").write_text("all new\n")
    check(repo, "src/main.py")
    assert memory(mid).stale == "src/main.py changed (100% of its lines)"


def test_a_branch_switch_flags_and_switching_back_clears(tmp_path: Path, repo: Path) -> None:
    mid = import_session(tmp_path, repo, "In this repo we use pnpm, never npm.")
    git(repo, "checkout", "-q", "-b", "rewrite")
    (repo / "src" / "app.py").write_text("\n".join(f"class Step{i}:\n    pass\n" for i in range(20)))
    git(repo, "commit", "-qam", "rewrite")
    assert check(repo, "src/app.py").flagged == (mid,)
    git(repo, "checkout", "-q", "main")
    assert check(repo, "src/app.py").cleared == (mid,)
    git(repo, "checkout", "-q", "rewrite")
    assert check(repo).flagged == (mid,)


def _spelling_embedder() -> None:
    from loreline import home

    home.config_path().parent.mkdir(parents=True, exist_ok=True)
    home.config_path().write_text('[embed]\nmodel = "hashing"\n')


def test_recall_puts_a_stale_memory_below_an_equal_fresh_one(tmp_path: Path, repo: Path) -> None:
    # two memories equally close to the query (no tool named, so no cue tells them apart): only
    # trust orders them
    _spelling_embedder()
    stale_id = import_session(tmp_path, repo, "In this repo we run the queue workers with the blue runner, never the old one.")
    fresh_id = import_session(tmp_path, repo, "In this repo we run the queue workers with the green runner, never the old one.", read="src/other.py")
    from loreline.recall import recall

    with Store() as store:
        before = [h.memory.id for h in recall(store, "queue workers", str(repo))]
    (repo / "src" / "app.py").write_text("gone\n")
    check(repo)
    with Store() as store:
        after = [h.memory.id for h in recall(store, "queue workers", str(repo))]
    assert before == [stale_id, fresh_id]  # equal relevance and age: the older id first
    assert after == [fresh_id, stale_id]


def test_recall_prefers_a_recently_confirmed_memory(tmp_path: Path, repo: Path) -> None:
    _spelling_embedder()  # two memories equally close to the query, so only trust orders them
    first = import_session(tmp_path, repo, "In this repo we run the queue workers with the blue runner, never the old one.")
    second = import_session(tmp_path, repo, "In this repo we run the queue workers with the green runner, never the old one.")
    from loreline.api import Loreline

    with Loreline() as lore:
        before = [h.memory.id for h in lore.recall(str(repo), "queue workers")]
        lore.confirm(second, "tester via test")
        after = [h.memory.id for h in lore.recall(str(repo), "queue workers")]
    assert before == [first, second] and after == [second, first]


def test_the_share_that_counts_as_substantial() -> None:
    lines = staleness.line_hashes(("\n".join(f"line {i}" for i in range(10))).encode())
    anchor = staleness.sketch(lines)
    two_gone = staleness.line_hashes(("\n".join(f"line {i}" for i in range(2, 10)) + "\nnew a\nnew b").encode())
    one_gone = staleness.line_hashes(("\n".join(f"  line {i}" for i in range(1, 10))).encode())
    assert staleness.gone_share(anchor, two_gone) == pytest.approx(0.2)
    assert staleness.gone_share(anchor, one_gone) == pytest.approx(0.1)
    assert staleness.blob_id(b"hello\n") == "ce013625030ba8dba906f756967f9e9ca394464a"


def test_an_import_checks_the_project_and_loreline_check_reports(tmp_path: Path, repo: Path,
                                                                 loreline_home: Path) -> None:
    mid = import_session(tmp_path, repo, "In this repo we use pnpm, never npm.")
    (repo / "src" / "app.py").write_text("rewritten\n")
    import_session(tmp_path, repo, "In this repo we run the queue workers with the green runner, never the old one.",
                   read="src/other.py")
    assert memory(mid).stale == "src/app.py changed (100% of its lines)"
    git(repo, "checkout", "--", "src/app.py")
    found = json.loads(cli(loreline_home, "check", "--json", cwd=repo))
    assert found["cleared"] == [mid] and found["flagged"] == [] and found["stale"] == []
    (repo / "src" / "app.py").unlink()
    out = cli(loreline_home, "check", cwd=repo)
    assert "1 newly may be stale" in out and "src/app.py deleted" in out


def test_the_hook_reads_a_store_older_than_file_anchors(tmp_path: Path) -> None:
    """A store no Loreline with anchors has opened yet (no `stale` column) still injects."""
    import sqlite3

    old = tmp_path / "old.db"
    conn = sqlite3.connect(old)
    conn.execute("CREATE TABLE memories(id INTEGER PRIMARY KEY, project TEXT, scope TEXT, kind TEXT, text TEXT, "
                 "status TEXT, pinned INTEGER, observed_at TEXT, created_at TEXT)")
    conn.execute("INSERT INTO memories VALUES(1, '/p', 'project', 'fact', 'old but fine', 'active', 0, NULL, 'x')")
    conn.commit()
    conn.close()
    assert session_start_memories(str(old), "/p", 10) == ([(1, "fact", "old but fine")], 0)


def test_a_file_that_cannot_be_read_now_is_not_called_deleted(tmp_path: Path, repo: Path) -> None:
    """A tied file still there but past the size Loreline reads: its state is left as it was."""
    mid = import_session(tmp_path, repo, "In this repo we use pnpm, never npm.")
    (repo / "src" / "app.py").write_bytes(b"x" * (staleness.MAX_FILE_BYTES + 1))
    assert check(repo).flagged == ()
    assert memory(mid).stale is None
    (repo / "src" / "app.py").unlink()
    assert check(repo).flagged == (mid,)
