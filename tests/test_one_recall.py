"""One recall: the engine and the hook's standard-library reader follow the same rules
(`loreline.recall_rules`) and answer in the same shape, on the same real store."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from loreline import recall_rules
from loreline.api import Loreline
from loreline.capture.hookread import session_start_memories
from loreline.home import db_path
from loreline.store import Store

PROJECT = "/work/shop"
#: (kind, text, pinned, observed_at, scope, project): the order they are written in
MEMORIES = [
    ("fact", "The API listens on port 8080.", 0, "2026-01-05T00:00:00Z", "project", PROJECT),
    ("procedure", "Release with `make release` after the changelog.", 0, "2026-01-02T00:00:00Z", "project", PROJECT),
    ("preference", "Use pnpm, never npm.", 0, "2026-01-01T00:00:00Z", "project", PROJECT),
    ("decision", "Payments go through the queue, never inline.", 1, "2025-06-01T00:00:00Z", "project", PROJECT),
    ("decision", "Feature flags live in flags.yaml.", 0, "2026-02-01T00:00:00Z", "project", PROJECT),
    ("episode", "The outage of March came from a full disk.", 0, "2026-03-01T00:00:00Z", "project", PROJECT),
    ("fact", "Stale but pinned: the schema is in db/schema.sql.", 1, "2025-01-01T00:00:00Z", "project", PROJECT),
    ("fact", "Stale: the cron runs at 02:00.", 0, "2026-03-02T00:00:00Z", "project", PROJECT),
    ("preference", "Answer in short sentences.", 0, "2025-12-01T00:00:00Z", "user", "(user)"),
    ("fact", "Another project's note about Go modules.", 0, "2026-03-03T00:00:00Z", "project", "/work/other"),
    ("fact", "Loaded from CLAUDE.md already: tests run with vitest.", 0, "2026-03-04T00:00:00Z", "project", PROJECT),
    ("fact", "The worker image is built from docker/worker.", 0, "2025-11-01T00:00:00Z", "project", PROJECT),
    ("fact", "Forgotten: the old API ran on port 3000.", 0, "2026-03-05T00:00:00Z", "project", PROJECT),
    ("fact", "A teammate's note: the staging database resets nightly.", 0, "2025-10-01T00:00:00Z", "project", PROJECT),
]


def _id_of(store: Store, text: str) -> int:
    return int(store.rows("SELECT id FROM memories WHERE text = ?", (text,))[0][0])


@pytest.fixture()
def store_with_every_case(loreline_home: Path, tmp_path: Path) -> Path:
    """A real store (the engine's migrations, apsw) with a memory for each rule: every kind,
    pinned, newer and older, stale with and without a pin, the user's scope, another project,
    a native cover, a tied file, a forgotten one and a teammate's."""
    claude_md = tmp_path / "CLAUDE.md"
    claude_md.write_text("- tests run with vitest\n")
    with Loreline() as lore:
        for kind, text, *_ in MEMORIES:
            lore.approve(lore.remember(PROJECT, text, kind, reason="test", actor="assistant").id)
    with Store() as store, store.write():
        for kind, text, pinned, observed, scope, project in MEMORIES:
            store.conn.execute("UPDATE memories SET pinned = ?, observed_at = ?, scope = ?, project = ? WHERE text = ?",
                               (pinned, observed, scope, project, text))
        store.conn.execute("UPDATE memories SET stale = 'src/x.py changed' WHERE text LIKE 'Stale%'")
        store.conn.execute("UPDATE memories SET status = 'forgotten' WHERE text LIKE 'Forgotten%'")
        covered = _id_of(store, MEMORIES[10][1])
        info = os.stat(claude_md)
        store.conn.execute("INSERT INTO native_covered(memory_id, project, path, line, size, mtime_ns) "
                           "VALUES(?, ?, ?, 1, ?, ?)", (covered, PROJECT, str(claude_md), info.st_size,
                                                        info.st_mtime_ns))
        store.conn.execute("INSERT INTO memory_files(memory_id, path) VALUES(?, 'docker/worker/Dockerfile')",
                           (_id_of(store, MEMORIES[11][1]),))
        teammate = _id_of(store, MEMORIES[13][1])
        store.conn.execute("INSERT INTO team_links(uid, remote, root_id, author, direction, content_hash, status, "
                           "updated_at) VALUES('u1', 'r', ?, 'ana', 'in', 'h', 'active', 'now')", (teammate,))
    return claude_md


@pytest.mark.parametrize("files", [(), ("docker/worker/Dockerfile",)])
def test_the_hook_reader_and_the_engine_offer_the_same_session_start(store_with_every_case: Path,
                                                                     files: tuple[str, ...]) -> None:
    hook = session_start_memories(str(db_path()), PROJECT, 50, files)
    with Loreline() as lore:
        engine = lore.session_notes(PROJECT, files, 50)
    assert engine == hook
    notes, covered = engine
    texts = [text for _, _, text in notes]
    assert covered == 1 and not any("CLAUDE.md" in t or "Forgotten" in t or "Another" in t for t in texts)
    assert "Stale: the cron runs at 02:00." not in texts and "Stale but pinned: the schema is in db/schema.sql." in texts
    assert [kind for _, kind, _ in notes] == sorted((kind for _, kind, _ in notes), key=recall_rules.kind_rank)
    decisions = [text for _, kind, text in notes if kind == "decision"]
    assert decisions == ["Payments go through the queue, never inline.", "Feature flags live in flags.yaml."]
    assert "A teammate's note: the staging database resets nightly. (team: ana)" in texts
    assert "Answer in short sentences." in texts  # the user's scope is offered in every project
    facts = [text for _, kind, text in notes if kind == "fact"]
    tied = "The worker image is built from docker/worker."
    assert (facts[0] == tied) == bool(files) and tied in facts


def test_they_agree_when_the_cover_no_longer_holds_and_auto_memory_is_off(store_with_every_case: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """An edited native file proves nothing: the memory is offered again, by both."""
    store_with_every_case.write_text("- tests run with vitest, and lint with biome\n")
    monkeypatch.setenv("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "1")
    hook = session_start_memories(str(db_path()), PROJECT, 50)
    with Loreline() as lore:
        assert lore.session_notes(PROJECT, (), 50) == hook
    assert hook[1] == 0 and any("vitest" in text for _, _, text in hook[0])


def test_a_query_hit_answers_in_the_hooks_note_shape(store_with_every_case: Path) -> None:
    with Loreline() as lore:
        hits = lore.recall(PROJECT, "which package manager, pnpm or npm?", limit=3)
    assert hits and hits[0].note == (hits[0].memory.id, "preference", "Use pnpm, never npm.")


def test_the_hook_and_the_engine_share_one_set_of_rules() -> None:
    """The numbers the hook's words path and the engine's recall use are the shared ones."""
    from loreline import prompt_notes, recall
    from loreline_hooks import recall as hook

    assert hook.relevant is recall_rules.relevant and hook.terms is recall_rules.terms
    assert hook.FLOOR == recall_rules.WORD_SHARE_FLOOR and hook.MAX_ROWS == recall_rules.MAX_INDEXED
    assert (recall.RRF_K, recall.STALE_WEIGHT, recall.USER_SCOPE) == (recall_rules.RRF_K, recall_rules.STALE_WEIGHT,
                                                                      recall_rules.USER_SCOPE)
    assert (prompt_notes.FLOOR, prompt_notes.WORD_FLOOR) == (recall_rules.MEANING_FLOOR,
                                                             recall_rules.MEANING_WORD_FLOOR)

