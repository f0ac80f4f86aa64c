"""Per-prompt recall (`loreline-hook UserPromptSubmit`) through the installed hook in a
subprocess, against a store the real importer wrote; and SessionStart's ranking of memories
tied to the files the current git branch changes."""

from __future__ import annotations

import json
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from loreline.store import Store
from loreline.store import memories as store_memories
from tests.capture_helpers import (
    event,
    hook_env,
    import_into_store,
    remembered_project,
    remembered_session,
    run_hook,
    worker_lock_held,
    write_config,
)

PNPM = "In this repo we use pnpm, never npm."


def _ids(loreline_home: Path) -> dict[str, int]:
    with Store(loreline_home / "loreline.db") as store:
        return {str(text): int(i) for i, text in store.rows("SELECT id, text FROM memories")}


@pytest.fixture
def project(loreline_home: Path, tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    """A project whose store holds two preferences, a decision and a fact; a prompt payload."""
    return remembered_project(tmp_path)


def _prompt(loreline_home: Path, payload: dict[str, Any], prompt: str, session_id: str = "fresh-session",
            **env: str) -> subprocess.CompletedProcess[bytes]:
    stdin = {**payload, "session_id": session_id, "prompt": prompt}
    with worker_lock_held(loreline_home):
        result = run_hook(loreline_home, "UserPromptSubmit", stdin=stdin, env=hook_env(loreline_home, **env))
    assert result.returncode == 0 and result.stderr == b""
    return result


def _block(result: subprocess.CompletedProcess[bytes]) -> str:
    out = json.loads(result.stdout)
    assert out["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"
    block = out["hookSpecificOutput"]["additionalContext"]
    assert isinstance(block, str)
    return block


def test_a_prompt_about_a_memory_gets_it_with_its_id(loreline_home: Path, project: tuple[Path, dict[str, Any]]) -> None:
    _, payload = project
    block = _block(_prompt(loreline_home, payload, "How do I add the lodash dependency with pnpm?"))
    assert block.startswith("<loreline-memories>\n") and block.endswith("\n</loreline-memories>")
    assert "not instructions" in block
    lines = [line for line in block.splitlines() if line.startswith("- ")]
    assert lines == [f"- #{_ids(loreline_home)[PNPM]} preference: {PNPM}"]
    assert len(block) <= 1200 + 400


def test_an_unrelated_prompt_gets_nothing(loreline_home: Path, project: tuple[Path, dict[str, Any]]) -> None:
    _, payload = project
    for prompt in ("What is the capital of France?", "Please fix the failing code in this file.", "thanks!", ""):
        assert _prompt(loreline_home, payload, prompt).stdout == b"", prompt


def test_a_memory_is_never_offered_twice_in_one_session(loreline_home: Path,
                                                        project: tuple[Path, dict[str, Any]]) -> None:
    _, payload = project
    assert _prompt(loreline_home, payload, "Why SQLite on laptops?", session_id="s-1").stdout != b""
    assert _prompt(loreline_home, payload, "Is SQLite still right for laptops?", session_id="s-1").stdout == b""
    assert _prompt(loreline_home, payload, "Is SQLite still right for laptops?", session_id="s-2").stdout != b""


def test_what_session_start_injected_is_not_injected_again(loreline_home: Path,
                                                           project: tuple[Path, dict[str, Any]]) -> None:
    _, payload = project
    start = {**payload, "hook_event_name": "SessionStart", "session_id": "s-start", "source": "startup"}
    with worker_lock_held(loreline_home):
        shown = run_hook(loreline_home, "SessionStart", stdin=start)
    assert PNPM in shown.stdout.decode()
    assert _prompt(loreline_home, payload, "Add lodash with pnpm", session_id="s-start").stdout == b""
    assert PNPM in _block(_prompt(loreline_home, payload, "Add lodash with pnpm", session_id="s-other"))


def test_only_active_memories_are_offered(loreline_home: Path, project: tuple[Path, dict[str, Any]]) -> None:
    _, payload = project
    ids = _ids(loreline_home)
    with Store(loreline_home / "loreline.db") as store, store.write():
        store_memories.forget(store, ids[PNPM])
        store_memories.supersede(store, ids["The fix was to pin node to 20 in .nvmrc."], "2026-01-01T00:00:00Z")
    assert _prompt(loreline_home, payload, "Add lodash with pnpm").stdout == b""
    assert _prompt(loreline_home, payload, "Which node version goes in .nvmrc?").stdout == b""
    assert _prompt(loreline_home, payload, "Why SQLite on laptops?").stdout != b""


def test_loreline_off_and_an_excluded_project_get_nothing(loreline_home: Path,
                                                          project: tuple[Path, dict[str, Any]]) -> None:
    folder, payload = project
    prompt = "How do I add the lodash dependency with pnpm?"
    assert _prompt(loreline_home, payload, prompt, LORELINE_OFF="1").stdout == b""
    write_config(loreline_home, f'[capture]\nexclude = ["{folder}"]\n')
    assert _prompt(loreline_home, payload, prompt).stdout == b""


def test_a_missing_or_damaged_store_gets_nothing_and_never_fails(loreline_home: Path, tmp_path: Path) -> None:
    payload = {"session_id": "s", "hook_event_name": "UserPromptSubmit", "cwd": str(tmp_path),
               "prompt": "use pnpm?"}
    assert _prompt(loreline_home, payload, "use pnpm?").stdout == b""
    loreline_home.mkdir(exist_ok=True)
    (loreline_home / "loreline.db").write_bytes(b"this is not a database" * 100)
    assert _prompt(loreline_home, payload, "use pnpm?").stdout == b""
    assert "UserPromptSubmit" in (loreline_home / "state" / "hook-errors.log").read_text()


def test_garbage_prompts_and_payloads_never_fail(loreline_home: Path, project: tuple[Path, dict[str, Any]]) -> None:
    _, payload = project
    for prompt in ('"pnpm" OR NEAR(', "pnpm* ^ - : (", "ünïcödé pnpm 🙂", "x" * 200_000):
        _prompt(loreline_home, payload, prompt)
    for stdin in (b"not json", b"[]", json.dumps({**payload, "prompt": 42}).encode()):
        result = run_hook(loreline_home, "UserPromptSubmit", stdin=stdin)
        assert result.returncode == 0 and result.stderr == b"" and result.stdout == b""


def test_the_floor_weighs_words_by_how_few_memories_hold_them() -> None:
    from loreline_hooks import recall

    def ranked(*held: set[str]) -> list[tuple[int, str, str, frozenset[str]]]:
        return [(n, "fact", f"m{n}", frozenset(terms)) for n, terms in enumerate(held, start=1)]

    counts = {"repo": 15, "sqlite": 2, "wal": 1}  # "repo" is in 15 of 20
    rows = ranked({"repo"}, {"repo", "sqlite"}, {"repo", "sqlite", "wal"})
    assert recall.relevant(20, counts, rows) == [(3, "fact", "m3"), (2, "fact", "m2")]  # largest share first
    one_everyday_word = {"name": 2, "pet": 0, "turtle": 0, "food": 0}
    assert recall.relevant(100, one_everyday_word, ranked({"name"}, {"name"})) == []
    assert recall.relevant(100, {"lockfile": 1, "pnpm": 2}, ranked({"lockfile", "pnpm"}, {"pnpm"})) == \
        [(1, "fact", "m1"), (2, "fact", "m2")]


def test_stop_words_are_not_searched() -> None:
    from loreline_hooks import recall

    assert recall.terms("Could you please fix the pnpm lockfile? I don't know why it's broken") == \
        ["pnpm", "lockfile", "broken"]


# ---- SessionStart ranks memories tied to the branch's changed files first ---------------------


def _git(folder: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(folder), *args], check=True, capture_output=True,
                   env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t",
                        "GIT_COMMITTER_EMAIL": "t@x", "HOME": str(folder), "PATH": "/usr/bin:/bin"})


def _preferences(loreline_home: Path, folder: Path, payload: dict[str, Any]) -> list[str]:
    start = {**payload, "hook_event_name": "SessionStart", "cwd": str(folder), "source": "startup"}
    with worker_lock_held(loreline_home):
        result = run_hook(loreline_home, "SessionStart", stdin=start)
    block = json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]
    return [line for line in block.splitlines() if line.startswith("- preference:")]


def test_session_start_puts_memories_tied_to_changed_files_first(loreline_home: Path, tmp_path: Path) -> None:
    folder = tmp_path / "repo"
    folder.mkdir()
    _git(folder, "init", "-q", "-b", "main")
    for name in ("lint.cfg", "package.json"):
        (folder / name).write_text("v1\n")
    _git(folder, "add", ".")
    _git(folder, "commit", "-q", "-m", "first")
    session, path = remembered_session(folder, tmp_path / "sessions")
    import_into_store(path)
    payload = event("SessionStart", session, path)
    ids = _ids(loreline_home)
    with Store(loreline_home / "loreline.db") as store, store.write():
        store.conn.execute("INSERT INTO memory_files(memory_id, path) VALUES(?, 'lint.cfg')",
                           (ids["Always run the linter before committing."],))
        store.conn.execute("INSERT INTO memory_files(memory_id, path) VALUES(?, 'package.json')", (ids[PNPM],))
    usual = _preferences(loreline_home, folder, payload)
    pnpm = f"- preference: {PNPM}"
    assert usual[-1] == pnpm  # newest first puts the linter preference on top
    _git(folder, "checkout", "-q", "-b", "topic")
    (folder / "package.json").write_text("v2\n")
    _git(folder, "commit", "-q", "-am", "on the branch")
    assert _preferences(loreline_home, folder, payload)[0] == pnpm
    _git(folder, "checkout", "-q", "main")
    assert _preferences(loreline_home, folder, payload) == usual
    (folder / "package.json").write_text("uncommitted\n")
    assert _preferences(loreline_home, folder, payload)[0] == pnpm


def test_session_start_outside_git_keeps_its_order(loreline_home: Path, project: tuple[Path, dict[str, Any]]) -> None:
    folder, payload = project
    assert _preferences(loreline_home, folder, payload) == [
        "- preference: Always run the linter before committing.", f"- preference: {PNPM}"]


def test_the_prompt_index_is_private_and_forgets_with_the_store(loreline_home: Path,
                                                                project: tuple[Path, dict[str, Any]]) -> None:
    _, payload = project
    assert _prompt(loreline_home, payload, "Add lodash with pnpm").stdout != b""
    folder = loreline_home / "state" / "prompt-index"
    [index] = list(folder.glob("*.db"))
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700 and stat.S_IMODE(index.stat().st_mode) == 0o600
    assert b"pnpm" in index.read_bytes()
    with Store(loreline_home / "loreline.db") as store, store.write():
        store_memories.forget(store, _ids(loreline_home)[PNPM])
    assert _prompt(loreline_home, payload, "Add lodash with pnpm").stdout == b""
    assert [b"pnpm" in p.read_bytes() for p in folder.glob("*.db")] == [False]
    [index] = list(folder.glob("*.db"))
    index.write_bytes(b"not an index" * 50)  # a damaged index is rebuilt, never trusted
    assert _prompt(loreline_home, payload, "Why SQLite on laptops?").stdout != b""


def test_a_prompt_hook_loads_only_light_loreline_modules(loreline_home: Path,
                                                         project: tuple[Path, dict[str, Any]]) -> None:
    from tests.test_layout import HOOK_LIGHT

    _, payload = project
    code = ("import io, json, sys\nfrom loreline_hooks import entry\n"
            "sys.stdin = io.TextIOWrapper(io.BytesIO(sys.argv[1].encode()))\n"
            "entry.main(['UserPromptSubmit'])\n"
            "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('loreline', 'apsw', 'orjson',"
            " 'sqlite_vec'))), file=sys.stderr)\n")
    stdin = json.dumps({**payload, "prompt": "Add lodash with pnpm"})
    with worker_lock_held(loreline_home):
        done = subprocess.run([sys.executable, "-c", code, stdin], capture_output=True, text=True,
                              env=hook_env(loreline_home), timeout=60)
    assert done.returncode == 0 and PNPM in done.stdout, done.stderr
    loaded = set(json.loads(done.stderr.strip().splitlines()[-1]))
    assert "loreline.capture.hookread" in loaded and loaded <= HOOK_LIGHT


def test_changed_files_in_a_linked_worktree_against_the_remote_default_branch(tmp_path: Path) -> None:
    from loreline_hooks.changed import changed_files

    origin, clone, linked = tmp_path / "origin", tmp_path / "clone", tmp_path / "linked"
    origin.mkdir()
    _git(origin, "init", "-q", "-b", "trunk")
    (origin / "a.txt").write_text("1\n")
    (origin / "b.txt").write_text("1\n")
    _git(origin, "add", ".")
    _git(origin, "commit", "-q", "-m", "first")
    _git(tmp_path, "clone", "-q", str(origin), str(clone))
    _git(clone, "worktree", "add", "-q", "-b", "topic", str(linked))
    (linked / "a.txt").write_text("2\n")
    _git(linked, "commit", "-q", "-am", "topic change")
    (linked / "b.txt").write_text("uncommitted\n")
    (linked / "sub").mkdir()
    assert sorted(changed_files(str(linked / "sub"))) == ["a.txt", "b.txt"]  # against origin/trunk
    assert changed_files(str(clone)) == []
    assert changed_files(str(tmp_path)) == [] and changed_files(None) == []
