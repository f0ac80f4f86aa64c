"""The offline rules suggest, they don't assert: everything they find waits in the review inbox as
a suggestion (held, with its evidence), is never injected or recalled, and is confirmed or gives
way when a model reads the same lines."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from loreline import pipeline
from loreline.api import Loreline, serialize
from loreline.beliefs import suggestions
from loreline.capture.hookread import session_start_memories
from loreline.distill.anthropic import AnthropicDistiller
from loreline.chunk import chunk
from loreline.distill.rules import RulesDistiller
from loreline.models import ImportReport, Turn
from loreline.samples.builder import ClaudeSession
from loreline.store import Store
from loreline.store import memories as rows
from loreline_hooks.recall import by_words
from tests.fake_anthropic import FakeAnthropic, fake_anthropic, model_client  # noqa: F401  (fixture)

STANDING = "In this repo always use pnpm, never npm."


@pytest.fixture(autouse=True)
def default_policy(monkeypatch: pytest.MonkeyPatch) -> None:
    """The policy a user gets: config distill.rules_suggest at its default (the suite's other
    tests store what the rules find active, see tests/conftest.py)."""
    monkeypatch.delenv("LORELINE_RULES_SUGGEST", raising=False)
DECISION = "We decided to keep Postgres advisory locks because each billing job needs exactly one worker."
FACT = "The fix was to set PYTHONUTF8=1 in the CI job."


@pytest.mark.parametrize(("sentence", "origin"), [
    ("Always run the linter before pushing.", "prompt"),
    ("Never commit generated files.", "prompt"),
    ("From now on the CI runs on Node 22.", "prompt"),
    ("We use ruff, not flake8.", "prompt"),
    ("Which package manager should we use? → pnpm", "answer"),
    (DECISION, "prompt"),
    ("Let's go with esbuild.", "prompt"),
])
def test_nothing_the_rules_find_reaches_the_active_confidence(sentence: str, origin: str) -> None:
    """Not even the plainest standing instruction: on real text from authors the rules were not
    tuned on, such sentences were right one time in six (docs/benchmarks.md)."""
    found = RulesDistiller().distill(chunk([Turn("user", sentence, 3, 3, origin=origin)],
                                           session_id="s", path="p")[0])
    assert [c.text for c in found] == [sentence]  # kept, and
    assert found[0].confidence < suggestions.ACTIVE_CONFIDENCE  # only suggested


def shop(tmp_path: Path) -> tuple[Path, dict[str, int]]:
    s = ClaudeSession(str(tmp_path / "shop"))
    lines = {"standing": s.user(STANDING), "decision": s.user(DECISION), "fact": s.user(FACT)}
    s.assistant("Noted.")
    return s.write(tmp_path / "shop.jsonl"), lines


def run(store: Store, path: Path, distiller: Any) -> ImportReport:
    return pipeline.import_sessions(store, [(path, "claude-code")], pipeline.Options(distiller=distiller))


def by_status(store: Store) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for status, text in store.rows("SELECT status, text FROM memories"):
        found.setdefault(str(status), set()).add(str(text))
    return found


def test_the_rules_suggest_everything_they_find(tmp_path: Path) -> None:
    path, lines = shop(tmp_path)
    with Store() as store:
        report = run(store, path, RulesDistiller())
        assert report.added == 3
        assert by_status(store) == {"held": {STANDING, DECISION, FACT}}
        held, _ = rows.query(store, rows.Filter(project=str(tmp_path / "shop"), status="held"))
    assert {m.hold_reason for m in held} == {suggestions.SUGGESTED}
    decision = next(m for m in held if m.text == DECISION)
    assert decision.provenance[0].line_start == lines["decision"]  # the evidence travels with it
    assert "advisory locks" in decision.provenance[0].excerpt


def test_suggestions_are_in_the_inbox_payload_the_editors_read(tmp_path: Path) -> None:
    path, _ = shop(tmp_path)
    with Store() as store:
        run(store, path, RulesDistiller())
    with Loreline() as api:
        inbox = serialize.inbox(api.inbox(str(tmp_path / "shop")), camel=True)
    reasons = {m["text"]: m["holdReason"] for m in inbox["held"]}
    assert reasons == {STANDING: suggestions.SUGGESTED, DECISION: suggestions.SUGGESTED, FACT: suggestions.SUGGESTED}
    assert all(m["source"]["excerpt"] and m["sourceCount"] == 1 for m in inbox["held"])  # with its evidence


def test_suggestions_are_never_injected_nor_recalled(tmp_path: Path) -> None:
    path, _ = shop(tmp_path)
    project = str(tmp_path / "shop")
    with Store() as store:
        run(store, path, RulesDistiller())
        db = str(store.path)
    injected, _ = session_start_memories(db, project, 50)
    assert injected == []
    assert by_words(db, project, ["postgres", "advisory", "locks"]) == []
    assert by_words(db, project, ["pythonutf8", "ci", "job"]) == []
    assert by_words(db, project, ["pnpm", "npm"]) == []
    with Loreline() as api:
        hits = api.recall(project, "postgres advisory locks billing worker")
    assert DECISION not in [h.memory.text for h in hits]


def test_a_person_approves_or_rejects_a_suggestion(tmp_path: Path) -> None:
    path, _ = shop(tmp_path)
    with Store() as store:
        run(store, path, RulesDistiller())
        ids = {str(t): int(i) for i, t in store.rows("SELECT id, text FROM memories WHERE status = 'held'")}
    with Loreline() as api:
        assert api.approve(ids[DECISION]).status == "active"
        api.reject(ids[FACT])
    with Store() as store:
        assert by_status(store) == {"active": {DECISION}, "held": {STANDING}, "forgotten": {FACT}}


def test_a_model_run_over_the_same_session_replaces_the_suggestions(
        tmp_path: Path, fake_anthropic: FakeAnthropic) -> None:
    path, lines = shop(tmp_path)
    with Store() as store:
        run(store, path, RulesDistiller())
        fake_anthropic.enqueue(FakeAnthropic.tool("record_memories", {"memories": [
            {"kind": "decision", "text": DECISION, "evidence": [{"line": lines["decision"], "quote": "advisory locks"}]},
            {"kind": "fact", "text": "CI sets PYTHONUTF8=1 to fix the encoding failure.",
             "evidence": [{"line": lines["fact"], "quote": "set PYTHONUTF8=1"}]},
        ]}))
        report = run(store, path, AnthropicDistiller(model_client(fake_anthropic)))
        assert report.deferred == [] and report.failed == []
        # the decision the model states in the same words is confirmed; the guessed fact gives way
        # to the model's own wording; what the model did not state of those lines is removed
        assert by_status(store) == {"active": {DECISION, "CI sets PYTHONUTF8=1 to fix the encoding failure."}}
        actions = [str(a) for (a,) in store.rows("SELECT action FROM audit ORDER BY id")]
    assert "confirm" in actions and "replace" in actions


def test_a_deferred_model_run_leaves_the_suggestions_in_place(tmp_path: Path, fake_anthropic: FakeAnthropic) -> None:
    path, _ = shop(tmp_path)
    with Store() as store:
        run(store, path, RulesDistiller())
        fake_anthropic.enqueue(*[FakeAnthropic.error(529, "overloaded_error")] * 3)
        report = run(store, path, AnthropicDistiller(model_client(fake_anthropic, max_retries=0)))
        assert [p for p, _ in report.deferred] == [str(path.resolve())]
        assert by_status(store) == {"held": {STANDING, DECISION, FACT}}


def test_the_setting_and_the_environment_turn_suggestions_off(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from loreline import config

    path, _ = shop(tmp_path)
    config.set_value("distill.rules_suggest", "false")
    with Store() as store:
        run(store, path, RulesDistiller())
        assert by_status(store) == {"active": {STANDING, DECISION, FACT}}
    assert suggestions.enabled() is False
    monkeypatch.setenv("LORELINE_RULES_SUGGEST", "1")
    assert suggestions.enabled() is True
