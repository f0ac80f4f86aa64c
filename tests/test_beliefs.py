"""The belief pipeline with a model judge: the real SDK against a local Messages API server.

Distillation here uses the offline rules backend (deterministic); the judge's two tools,
`classify_relation` and `judge_conflict`, are answered by the fake server.
"""

from __future__ import annotations

import json

from collections.abc import Callable
from pathlib import Path

import pytest

from loreline import pipeline
from loreline.distill.anthropic import ModelClient, Settings
from loreline.distill.rules import RulesDistiller
from loreline.beliefs.judge import ModelJudge
from loreline.samples.builder import ClaudeSession
from loreline.store import Store
from loreline.store import memories as rows
from tests.fake_anthropic import FakeAnthropic, Recorded, Reply, fake_anthropic  # noqa: F401

OLD = "We decided to use Redis locks for the billing jobs."
NEW = "We decided to use Postgres advisory locks for the billing jobs instead of Redis."


def judge_for(fake: FakeAnthropic) -> ModelJudge:
    settings = Settings(base_url=fake.url, max_retries=1, timeout_seconds=10)
    return ModelJudge(ModelClient(settings, "sk-ant-test-fake-key", "test"))


def answers(relation: str, verdict: str = "unsure") -> Callable[[Recorded], Reply]:
    def reply(req: Recorded) -> Reply:
        tool = req.body["tool_choice"]["name"]
        if tool == "classify_relation":
            return FakeAnthropic.tool(tool, {"relation": relation, "reason": f"scripted {relation}"})
        if tool == "classify_relations":  # every pair of the chunk in one call
            pairs = json.dumps(req.body["messages"]).count("<pair n=")
            return FakeAnthropic.tool(tool, {"relations": [{"pair": n, "relation": relation, "reason": f"scripted {relation}"}
                                                           for n in range(1, pairs + 1)]})
        return FakeAnthropic.tool(tool, {"verdict": verdict, "reason": f"scripted {verdict}"})
    return reply


def two_sessions(tmp_path: Path, first: str, second: str, project: str = "/work/p") -> list[Path]:
    a = ClaudeSession(project, session_id="aaaaaaaa-0000-4000-8000-000000000001")
    a.user(first)
    b = ClaudeSession(project, session_id="bbbbbbbb-0000-4000-8000-000000000002")
    b.start = b.start.replace(day=b.start.day + 3)
    b.user(second)
    return [a.write(tmp_path / "a.jsonl"), b.write(tmp_path / "b.jsonl")]


def run(store: Store, paths: list[Path], judge: ModelJudge | None) -> pipeline.ImportReport:
    options = pipeline.Options(distiller=RulesDistiller(), judge=judge)
    return pipeline.import_sessions(store, [(p, None) for p in paths], options)


def by_text(store: Store) -> dict[str, object]:
    return {m.text: m for m in rows.query(store, rows.Filter(project="/work/p", status=None))[0]}


def actions(store: Store) -> list[tuple[str, str]]:
    return [(r[0], r[1]) for r in store.rows("SELECT actor, action FROM audit ORDER BY id")]


def test_identical_makes_a_new_version_and_supersedes_the_old(tmp_path: Path, fake_anthropic: FakeAnthropic) -> None:
    fake_anthropic.default = answers("identical")
    with Store() as store:
        report = run(store, two_sessions(tmp_path, OLD, NEW), judge_for(fake_anthropic))
        found = by_text(store)
        log = actions(store)
    old, new = found[OLD], found[NEW]
    assert (report.added, report.versioned) == (1, 1)
    assert (old.status, new.status) == ("superseded", "active")  # type: ignore[attr-defined]
    assert new.version == 2 and new.root_id == old.id and new.replaces == old.id  # type: ignore[attr-defined]
    assert old.valid_until == new.observed_at  # type: ignore[attr-defined]
    assert sorted(p.session_id[:8] for p in new.provenance) == ["aaaaaaaa", "bbbbbbbb"]  # type: ignore[attr-defined]
    assert log == [("import", "add"), ("import", "version")]
    assert [r.body["tool_choice"]["name"] for r in fake_anthropic.requests] == ["classify_relations"]
    assert OLD in fake_anthropic.requests[0].user_text and NEW in fake_anthropic.requests[0].user_text


def test_complementary_adds_both(tmp_path: Path, fake_anthropic: FakeAnthropic) -> None:
    fake_anthropic.default = answers("complementary")
    with Store() as store:
        report = run(store, two_sessions(tmp_path, OLD, NEW), judge_for(fake_anthropic))
        statuses = {t: m.status for t, m in by_text(store).items()}  # type: ignore[attr-defined]
        pending = store.scalar("SELECT count(*) FROM conflicts")
    assert report.added == 2 and statuses == {OLD: "active", NEW: "active"} and pending == 0


@pytest.mark.parametrize(("verdict", "old_status", "new_status", "conflict_status"), [
    ("keep_new", "superseded", "active", "resolved"),
    ("keep_existing", "active", "superseded", "resolved"),
    ("keep_both", "active", "active", "resolved"),
    ("unsure", "active", "active", "pending"),
])
def test_contradiction_is_judged_once_right_away(tmp_path: Path, fake_anthropic: FakeAnthropic, verdict: str,
                                                 old_status: str, new_status: str, conflict_status: str) -> None:
    fake_anthropic.default = answers("contradictory", verdict)
    with Store() as store:
        report = run(store, two_sessions(tmp_path, OLD, NEW), judge_for(fake_anthropic))
        found = by_text(store)
        conflict = store.one("SELECT a, b, status, resolution, decided_by, reason FROM conflicts")
        log = actions(store)
    old, new = found[OLD], found[NEW]
    assert (old.status, new.status) == (old_status, new_status)  # type: ignore[attr-defined]
    assert conflict is not None
    assert conflict[:3] == (old.id, new.id, conflict_status)  # type: ignore[attr-defined]
    assert report.conflicts == 1
    tools = [r.body["tool_choice"]["name"] for r in fake_anthropic.requests]
    assert tools == ["classify_relations", "judge_conflict"]
    judged = fake_anthropic.requests[1].user_text
    assert "2026-11-02" in judged and "2026-11-05" in judged  # both timestamps reach the judge
    if verdict == "unsure":
        assert conflict[3:5] == (None, None)
        assert log[-1] == ("import", "conflict")
    else:
        assert conflict[3:] == (verdict, "judge", f"scripted {verdict}")
        assert log[-1] == ("judge", f"resolve:{verdict}")
    if verdict == "keep_new":
        assert old.valid_until == new.observed_at  # type: ignore[attr-defined]


def test_reversal_across_two_sessions_leaves_the_newer_decision_active(
        tmp_path: Path, fake_anthropic: FakeAnthropic) -> None:
    fake_anthropic.default = answers("contradictory", "keep_new")
    paths = two_sessions(tmp_path, OLD, NEW)
    with Store() as store:
        run(store, paths, judge_for(fake_anthropic))
        active = [m.text for m in rows.query(store, rows.Filter(project="/work/p"))[0]]
        history = [m.text for m in rows.query(store, rows.Filter(project="/work/p", status="superseded"))[0]]
    assert active == [NEW] and history == [OLD]


def test_no_judge_for_far_memories_or_other_projects(tmp_path: Path, fake_anthropic: FakeAnthropic) -> None:
    fake_anthropic.default = answers("contradictory", "keep_new")
    far = two_sessions(tmp_path, OLD, "The fix was to pin openssl to 3.0 in the Dockerfile.")
    other = ClaudeSession("/work/elsewhere")
    other.user(NEW)
    with Store() as store:
        report = run(store, [*far, other.write(tmp_path / "c.jsonl")], judge_for(fake_anthropic))
    assert report.added == 3 and fake_anthropic.requests == []


def test_without_a_model_near_identical_is_versioned(tmp_path: Path) -> None:
    with Store() as store:
        run(store, two_sessions(tmp_path, "We decided to use Postgres advisory locks for billing jobs.",
                                "We decided to use Postgres advisory locks for the billing jobs."), None)
        statuses = sorted((m.version, m.status) for m in by_text(store).values())  # type: ignore[attr-defined]
    assert statuses == [(1, "superseded"), (2, "active")]


def test_without_a_model_an_implicit_contradiction_waits(tmp_path: Path) -> None:
    with Store() as store:
        report = run(store, two_sessions(tmp_path, "We decided to use Redis for the billing job locks.",
                                         "We decided to use Postgres advisory locks for billing jobs."), None)
        assert store.scalar("SELECT count(*) FROM conflicts") == 0
    assert report.added == 2


def test_without_a_model_an_explicit_reversal_supersedes_revertibly(tmp_path: Path) -> None:
    from loreline.beliefs import conflicts

    within = ClaudeSession("/work/p")
    within.user("Let's use MySQL for reporting since the team knows it.")
    within.user("Actually, scrap that: we'll use Postgres for reporting because we need window functions.")
    also = ClaudeSession("/work/p")
    also.user("We'll use Redis for reporting caches too, because dashboards are slow.")
    with Store() as store:
        run(store, [within.write(tmp_path / "w.jsonl"), also.write(tmp_path / "a.jsonl")], None)
        found = by_text(store)
        mysql = found["Let's use MySQL for reporting since the team knows it."]
        postgres = found["Actually, scrap that: we'll use Postgres for reporting because we need window functions."]
        assert (mysql.status, postgres.status) == ("superseded", "active")  # type: ignore[attr-defined]
        assert mysql.valid_until == postgres.observed_at  # type: ignore[attr-defined]
        row = store.one("SELECT id, resolution, decided_by, reason FROM conflicts")
        assert row is not None and row[1:3] == ("keep_new", "judge") and "scrap that" in row[3] and "reporting" in row[3]
        assert found["We'll use Redis for reporting caches too, because dashboards are slow."].status == "active"  # type: ignore[attr-defined]
        conflicts.revert(store, int(row[0]))
        assert rows.get(store, mysql.id).status == "active"  # type: ignore[attr-defined]


def test_a_judge_answer_outside_the_contract_leaves_the_pair_unclassified(
        tmp_path: Path, fake_anthropic: FakeAnthropic) -> None:
    fake_anthropic.default = lambda req: FakeAnthropic.tool(req.body["tool_choice"]["name"], {"relation": "maybe"})
    with Store() as store:
        report = run(store, two_sessions(tmp_path, OLD, NEW), judge_for(fake_anthropic))
    assert report.added == 2 and report.failed == []


def test_going_back_to_a_superseded_decision_is_a_new_statement(tmp_path: Path, fake_anthropic: FakeAnthropic) -> None:
    fake_anthropic.default = answers("contradictory", "keep_new")
    sessions = []
    for day, text in ((2, "We decided to deploy the API to Fly."), (4, "We decided to deploy the API to Render."),
                      (6, "We decided to deploy the API to Fly.")):
        s = ClaudeSession("/work/p")
        s.start = s.start.replace(day=day)
        s.user(text)
        sessions.append(s.write(tmp_path / f"{day}.jsonl"))
    with Store() as store:
        run(store, sessions, judge_for(fake_anthropic))
        everything = rows.query(store, rows.Filter(project="/work/p", status=None))[0]
    current = [m.text for m in everything if m.status == "active"]
    assert current == ["We decided to deploy the API to Fly."]
    assert sorted((m.text[-7:], m.status) for m in everything) == [
        ("Render.", "superseded"), ("to Fly.", "active"), ("to Fly.", "superseded")]


def test_a_batched_answer_is_read_pair_by_pair_and_never_guessed() -> None:
    from loreline.beliefs.judge import _relations

    answer = {"relations": [{"pair": 1, "relation": "identical", "reason": "same"},
                            {"pair": 2, "relation": "maybe", "reason": "not a relation"},
                            {"pair": 3, "relation": "complementary", "reason": "a"},
                            {"pair": 3, "relation": "contradictory", "reason": "b"},
                            {"pair": 9, "relation": "identical", "reason": "no such pair"}]}
    # pair 2 has no valid relation, pair 3 is named twice, pair 9 does not exist: all stay unclassified
    assert _relations(answer, 4) == {1: ("identical", "same")}
