"""Recall: lexical and vector rankings fused within one project, with provenance."""

from __future__ import annotations

from pathlib import Path

from loreline import pipeline
from loreline.distill.rules import RulesDistiller
from loreline.recall import recall
from loreline.samples.builder import ClaudeSession
from loreline.store import Store


def _fill(tmp_path: Path, store: Store) -> None:
    a = ClaudeSession("/work/shop")
    a.user("In this repo we use pnpm, never npm.")
    a.user("We'll use Postgres advisory locks because each billing job needs one worker.")
    a.user("On macOS the build needs OPENSSL_DIR set to the brew prefix of openssl@3.")
    a.user("Please don't use default exports in TypeScript files.")
    b = ClaudeSession("/work/other")
    b.user("In this repo we use yarn, never pnpm.")
    paths = [a.write(tmp_path / "a.jsonl"), b.write(tmp_path / "b.jsonl")]
    pipeline.import_sessions(store, [(p, None) for p in paths], pipeline.Options(distiller=RulesDistiller()))


def test_recall_ranks_the_answer_first_with_provenance(tmp_path: Path) -> None:
    with Store() as store:
        _fill(tmp_path, store)
        hits = recall(store, "advisory lock for billing jobs", "/work/shop", limit=3)
    assert hits, "expected a hit"
    top = hits[0]
    assert "advisory locks" in top.memory.text
    assert top.fts_rank == 1 and top.vec_rank == 1
    assert top.memory.provenance[0].line_start == 2
    assert top.memory.provenance[0].session_path.endswith("a.jsonl")


def test_recall_never_crosses_projects(tmp_path: Path) -> None:
    with Store() as store:
        _fill(tmp_path, store)
        shop = recall(store, "pnpm yarn", "/work/shop", limit=10)
        other = recall(store, "pnpm yarn", "/work/other", limit=10)
    assert {h.memory.project for h in shop} == {"/work/shop"}
    assert [h.memory.text for h in other] == ["In this repo we use yarn, never pnpm."]


def test_recall_leaves_out_inactive_unless_asked(tmp_path: Path) -> None:
    with Store() as store:
        _fill(tmp_path, store)
        target = recall(store, "openssl macOS", "/work/shop", limit=1)[0].memory.id
        store.conn.execute("UPDATE memories SET status = 'superseded' WHERE id = ?", (target,))
        active = [h.memory.id for h in recall(store, "openssl macOS", "/work/shop")]
        everything = [h.memory.id for h in recall(store, "openssl macOS", "/work/shop", include_inactive=True)]
    assert target not in active
    assert target in everything


def test_a_query_with_no_searchable_words_returns_nothing(tmp_path: Path) -> None:
    with Store() as store:
        _fill(tmp_path, store)
        hits = recall(store, "?!", "/work/shop")
        empty_project = recall(store, "pnpm", "/nowhere")
    assert empty_project == []
    assert hits == []
