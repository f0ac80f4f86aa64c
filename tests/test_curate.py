"""A person's curation: forget with tombstones, edits as versions, pins, conflicts and reverts."""

from __future__ import annotations

from pathlib import Path

import pytest

from loreline import pipeline

from loreline.beliefs import conflicts

from loreline.beliefs import curate
from loreline.distill.rules import RulesDistiller
from loreline.errors import LorelineError
from loreline.samples.builder import ClaudeSession
from loreline.store import Store
from loreline.store import memories as rows


def _import(store: Store, tmp_path: Path, *lines: str, name: str = "s.jsonl") -> Path:
    s = ClaudeSession("/work/p")
    for line in lines:
        s.user(line)
    path = s.write(tmp_path / name)
    pipeline.import_sessions(store, [(path, None)], pipeline.Options(distiller=RulesDistiller()))
    return path


def _ids(store: Store) -> dict[str, int]:
    return {m.text: m.id for m in rows.query(store, rows.Filter(project="/work/p", status=None))[0]}


def _audit_actions(store: Store) -> list[str]:
    return [r[0] for r in store.rows("SELECT action FROM audit ORDER BY id")]


def test_forget_is_a_tombstone_no_import_brings_back(tmp_path: Path) -> None:
    with Store() as store:
        path = _import(store, tmp_path, "In this repo we use pnpm, never npm.")
        mid = _ids(store)["In this repo we use pnpm, never npm."]
        curate.forget(store, mid)
        path.unlink()
        _import(store, tmp_path, "In this repo we use pnpm, never npm.", name="again.jsonl")
        statuses = [r[0] for r in store.rows("SELECT status FROM memories")]
        actions = _audit_actions(store)
    assert statuses == ["forgotten"]
    assert actions == ["add", "forget"]


def test_edit_makes_a_new_version_and_history_shows_the_chain(tmp_path: Path) -> None:
    with Store() as store:
        _import(store, tmp_path, "In this repo we use pnpm, never npm.")
        mid = _ids(store)["In this repo we use pnpm, never npm."]
        new = curate.edit(store, mid, "Use pnpm (v9) for every package in this repo; never npm.")
        versions = curate.chain(store, new.id)
        old = rows.get(store, mid)
    assert [v.version for v in versions] == [1, 2]
    assert (old.status, new.status) == ("superseded", "active")
    assert old.valid_until is not None and new.replaces == mid and new.root_id == mid
    assert new.provenance and new.provenance[0].line_start == 1
    with Store() as store, pytest.raises(LorelineError, match="superseded"):
        curate.edit(store, mid, "again")


def test_pin_is_audited_and_sorts_first(tmp_path: Path) -> None:
    with Store() as store:
        _import(store, tmp_path, "In this repo we use pnpm, never npm.", "The fix was to pin openssl to 3.0.")
        mid = _ids(store)["In this repo we use pnpm, never npm."]
        curate.pin(store, mid)
        first = rows.query(store, rows.Filter(project="/work/p"))[0][0]
        assert "pin" in _audit_actions(store)
    assert first.id == mid and first.pinned


@pytest.fixture
def conflicted(tmp_path: Path) -> tuple[Store, int, int, int]:
    store = Store()
    _import(store, tmp_path, "We decided to use Redis for job locks.", "We decided to use Postgres advisory locks.")
    ids = _ids(store)
    old, new = ids["We decided to use Redis for job locks."], ids["We decided to use Postgres advisory locks."]
    with store.write():
        cid = conflicts.record(store, "/work/p", old, new, "both choose the lock backend")
    return store, cid, old, new


def _status(store: Store, *ids: int) -> list[str]:
    return [rows.get(store, i).status for i in ids]


@pytest.mark.parametrize(("verdict", "expected"), [
    ("keep_new", ["superseded", "active"]),
    ("keep_existing", ["active", "superseded"]),
    ("keep_both", ["active", "active"]),
])
def test_each_resolution_and_its_revert(conflicted: tuple[Store, int, int, int], verdict: str,
                                        expected: list[str]) -> None:
    store, cid, old, new = conflicted
    assert conflicts.listing(store, "/work/p")[0].id == cid
    resolved = conflicts.resolve(store, cid, verdict)
    assert (resolved.status, resolved.resolution, resolved.decided_by) == ("resolved", verdict, "user")
    assert _status(store, old, new) == expected
    if verdict == "keep_new":
        assert rows.get(store, old).valid_until is not None
    conflicts.revert(store, cid)
    assert _status(store, old, new) == ["active", "active"]
    assert rows.get(store, old).valid_until is None
    assert conflicts.get(store, cid).status == "pending"
    assert _audit_actions(store)[-3:] == ["conflict", f"resolve:{verdict}", "revert"]
    store.close()


def test_merge_supersedes_both_and_revert_removes_the_merge(conflicted: tuple[Store, int, int, int]) -> None:
    store, cid, old, new = conflicted
    conflicts.resolve(store, cid, "merge", merge_text="Job locks use Postgres advisory locks; Redis was dropped.")
    active = rows.query(store, rows.Filter(project="/work/p"))[0]
    assert [m.text for m in active] == ["Job locks use Postgres advisory locks; Redis was dropped."]
    assert active[0].replaces == old and active[0].version == 2
    with pytest.raises(LorelineError, match="already resolved"):
        conflicts.resolve(store, cid, "keep_new")
    conflicts.revert(store, cid)
    texts = sorted(m.text for m in rows.query(store, rows.Filter(project="/work/p"))[0])
    assert texts == ["We decided to use Postgres advisory locks.", "We decided to use Redis for job locks."]
    store.close()


def test_reverting_a_pending_conflict_is_a_clear_error(conflicted: tuple[Store, int, int, int]) -> None:
    store, cid, _, _ = conflicted
    with pytest.raises(LorelineError, match="not resolved"):
        conflicts.revert(store, cid)
    store.close()


def test_revert_refuses_to_undo_a_later_forget_or_edit(conflicted: tuple[Store, int, int, int]) -> None:
    store, cid, _old, new = conflicted
    conflicts.resolve(store, cid, "keep_both")
    edited = curate.edit(store, new, "We decided to use Postgres advisory locks for every job.")
    with pytest.raises(LorelineError, match="newer version"):
        conflicts.revert(store, cid)
    curate.forget(store, edited.id)
    with pytest.raises(LorelineError, match="forgotten"):
        conflicts.revert(store, cid)
    assert rows.get(store, new).status == "forgotten"
    store.close()
