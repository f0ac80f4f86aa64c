"""What the offline rules find, answers and rejection reasons included, is suggested; said again
in a later session of the project, a suggestion becomes active, injected and recalled."""

from __future__ import annotations

from pathlib import Path

import pytest

from loreline import pipeline
from loreline.beliefs import suggestions
from loreline.capture.hookread import session_start_memories
from loreline.chunk import chunk
from loreline.distill.rules import RulesDistiller
from loreline.models import Turn
from loreline.samples.builder import ClaudeSession
from loreline.store import Store
from loreline_hooks.recall import by_words
from tests.conftest import FIXTURES

REJECTED = ("The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file "
            "edit, the new_string was NOT written to the file). To tell you how to proceed, the user said:\n")
ANSWERED = 'User has answered your questions: "{}"="{}". You can now continue with the user\'s answers in mind.'
SUGGESTED_DECISION = "We decided to keep Postgres advisory locks because each billing job needs exactly one worker."


@pytest.fixture(autouse=True)
def default_policy(monkeypatch: pytest.MonkeyPatch) -> None:
    """The policy a user gets: suggestions on (the suite's other tests store everything active)."""
    monkeypatch.delenv("LORELINE_RULES_SUGGEST", raising=False)


def test_the_recorded_answers_and_rejection_are_kept_as_suggestions() -> None:
    """Recorded with the real Claude Code 2.1.332: a rejection reason and the answers are read as
    the person's words and kept, each only as a suggestion."""
    from loreline.assistants.registry import parse

    t = parse(FIXTURES / "tool_words" / "cc-2.1.332-rejection-and-answers.jsonl").transcript
    turns = [*pipeline.clean_turns(t.turns), Turn("user", "Which approach should we take? → the second one",
                                                        999, 999, origin="answer")]
    found = [c for piece in chunk(turns, session_id=t.session_id, path=t.path) for c in RulesDistiller().distill(piece)]
    assert {c.text: c.confidence >= suggestions.ACTIVE_CONFIDENCE for c in found} == {
        "use uv, not pip": False,
        "Which linters should we set up? → ruff only, mypy later": False,
        "Where should the config live? → pyproject.toml": False,
        "Which approach should we take? → the second one": False,
    }


def test_an_import_holds_every_answer_and_rejection_reason(tmp_path: Path) -> None:
    s = ClaudeSession(str(tmp_path / "shop"))
    s.user("set up the project and refactor the parser")
    s.assistant("Two questions first.", tools=[
        ("AskUserQuestion", {"questions": [{"question": "Which approach should we take?"}]},
         ANSWERED.format("Which approach should we take?", "Option 2: refactor the parser")),
        ("AskUserQuestion", {"questions": [{"question": "Which package manager should we use?"}]},
         ANSWERED.format("Which package manager should we use?", "pnpm")),
        ("Bash", {"command": "rm -rf vendor"}, REJECTED + "No, don't delete that folder, I need it"),
        ("Bash", {"command": "pip install -r requirements.txt"}, REJECTED + "use uv, not pip"),
    ])
    path = s.write(tmp_path / "shop.jsonl")
    with Store() as store:
        pipeline.import_sessions(store, [(path, "claude-code")], pipeline.Options(distiller=RulesDistiller()))
        status = {str(text): str(st) for st, text in store.rows("SELECT status, text FROM memories")}
    assert status == {
        "Which approach should we take? → Option 2: refactor the parser": "held",
        "Which package manager should we use? → pnpm": "held",
        "No, don't delete that folder, I need it": "held",
        "use uv, not pip": "held",
    }


def two_sessions(tmp_path: Path, first: str, second: str) -> tuple[Path, Path, str]:
    project = str(tmp_path / "billing")
    paths = []
    for n, said in enumerate((first, second), start=1):
        s = ClaudeSession(project)
        s.user(said)
        s.assistant("Noted.")
        s.user("thanks, now add the invoice export")
        s.assistant("Done.")
        paths.append(s.write(tmp_path / f"session-{n}.jsonl"))
    return paths[0], paths[1], project


@pytest.mark.parametrize("second", [
    SUGGESTED_DECISION,  # the same words: the held suggestion is confirmed
    "We decided to keep the Postgres advisory locks, since each billing job needs exactly one worker.",  # reworded
])
def test_a_suggestion_said_again_in_a_later_session_becomes_active_injected_and_recalled(tmp_path: Path,
                                                                                          second: str) -> None:
    first_path, second_path, project = two_sessions(tmp_path, SUGGESTED_DECISION, second)
    options = pipeline.Options(distiller=RulesDistiller())
    with Store() as store:
        pipeline.import_sessions(store, [(first_path, "claude-code")], options)
        assert [str(st) for (st,) in store.rows("SELECT status FROM memories")] == ["held"]  # said once: suggested
        pipeline.import_sessions(store, [(second_path, "claude-code")], options)
        statuses = {str(text): str(st) for st, text in store.rows("SELECT status, text FROM memories")}
        db = str(store.path)
    assert statuses[second] == "active"
    injected, _ = session_start_memories(db, project, 50)
    assert second in [text for _, _, text in injected]
    assert second in [text for _, _, text in by_words(db, project, ["postgres", "advisory", "locks"])]
    # a hold a person asked for (`capture.review = "ask"`) is theirs to release, repeated or not
    with Store(tmp_path / "review.db") as store:
        asked = pipeline.Options(distiller=RulesDistiller(), hold="review asked")
        pipeline.import_sessions(store, [(first_path, "claude-code"), (second_path, "claude-code")], asked)
        assert {str(st) for (st,) in store.rows("SELECT status FROM memories")} == {"held"}


def test_what_a_person_is_about_to_do_is_not_learned_when_said_again(tmp_path: Path) -> None:
    intent = "I am going to start a new thread."
    first_path, second_path, project = two_sessions(tmp_path, intent, intent)
    with Store() as store:
        options = pipeline.Options(distiller=RulesDistiller())
        pipeline.import_sessions(store, [(first_path, "claude-code"), (second_path, "claude-code")], options)
        assert store.scalar("SELECT count(*) FROM memories") == 0
        db = str(store.path)
    assert session_start_memories(db, project, 50)[0] == []


def test_said_again_in_other_words_the_first_suggestion_becomes_a_source_and_leaves_the_inbox(tmp_path: Path) -> None:
    first_path, second_path, _ = two_sessions(tmp_path, "No, we use uv for this project, never pip.",
                                              "We use uv for this project, never pip.")
    with Store() as store:
        options = pipeline.Options(distiller=RulesDistiller())
        pipeline.import_sessions(store, [(first_path, "claude-code")], options)
        pipeline.import_sessions(store, [(second_path, "claude-code")], options)
        rows = [(str(st), str(text), int(n)) for st, text, n in store.rows(
            "SELECT status, text, (SELECT count(*) FROM provenance p WHERE p.memory_id = m.id) FROM memories m")]
        actions = [str(a) for (a,) in store.rows("SELECT action FROM audit ORDER BY id")]
    assert rows == [("active", "We use uv for this project, never pip.", 2)]
    assert "replace" in actions


def test_a_session_saved_twice_is_not_saying_it_again(tmp_path: Path) -> None:
    """A fork, a session continued into a new file or an export saved twice holds the same turns:
    its sentences were said once, so nothing is promoted from the copy."""
    project = str(tmp_path / "billing")
    paths = []
    for n in (1, 2):
        s = ClaudeSession(project)
        for prompt in ("Set up the invoice export for the billing service, please.", SUGGESTED_DECISION,
                       "Now add the CSV writer next to the existing PDF writer.",
                       "Then wire it into the nightly job that sends the statements.", "yes", "continue"):
            s.user(prompt)
            s.assistant("Done.")
        paths.append(s.write(tmp_path / f"copy-{n}.jsonl"))
    with Store() as store:
        pipeline.import_sessions(store, [(p, "claude-code") for p in paths], pipeline.Options(distiller=RulesDistiller()))
        statuses = {str(st) for (st,) in store.rows("SELECT status FROM memories")}
    assert statuses == {"held"}


def test_sessions_sharing_only_short_replies_are_not_copies(tmp_path: Path) -> None:
    """"yes", "continue" and the like are said in every session: they do not make two sessions one."""
    project = str(tmp_path / "billing")
    paths = []
    for n, task in enumerate(("Draft the refund endpoint for the billing API.",
                              "Add pagination to the invoice list in the admin area."), start=1):
        s = ClaudeSession(project)
        for prompt in (task, SUGGESTED_DECISION, "yes", "continue", "ok go ahead"):
            s.user(prompt)
            s.assistant("Done.")
        paths.append(s.write(tmp_path / f"own-{n}.jsonl"))
    with Store() as store:
        pipeline.import_sessions(store, [(p, "claude-code") for p in paths], pipeline.Options(distiller=RulesDistiller()))
        statuses = {str(text): str(st) for st, text in store.rows("SELECT status, text FROM memories")}
    assert statuses[SUGGESTED_DECISION] == "active"


def test_folding_a_source_the_memory_already_has_keeps_one_and_imports_on(tmp_path: Path) -> None:
    from loreline.store import memories as rows

    first_path, second_path, _ = two_sessions(tmp_path, SUGGESTED_DECISION, "We use uv for this project, never pip.")
    with Store() as store:
        pipeline.import_sessions(store, [(first_path, "claude-code"), (second_path, "claude-code")],
                                 pipeline.Options(distiller=RulesDistiller()))
        (a,), (b,) = store.rows("SELECT id FROM memories ORDER BY id LIMIT 2")
        with store.write():
            rows.add_sources_of(store, int(b), int(a))
            rows.add_sources_of(store, int(b), int(a))  # the same lines again: no second source, no error
        n = store.scalar("SELECT count(*) FROM provenance WHERE memory_id = ?", (int(b),))
    assert n == 2


def test_a_held_suggestion_does_not_retire_an_active_decision_on_its_own(tmp_path: Path) -> None:
    """An offline reversal ("… instead …") that only the rules found waits with its conflict for a
    person; the decision it would replace stays active meanwhile."""
    from loreline.store import memories as rows

    project = str(tmp_path / "billing")
    s = ClaudeSession(project)
    s.user("We decided to use Redis for the job queue because it is already deployed.")
    s.assistant("Noted.")
    first = s.write(tmp_path / "first.jsonl")
    s2 = ClaudeSession(project)
    s2.user("From now on we use Postgres for the job queue instead of Redis.")
    s2.assistant("Noted.")
    second = s2.write(tmp_path / "second.jsonl")
    with Store() as store:
        pipeline.import_sessions(store, [(first, "claude-code")], pipeline.Options(distiller=RulesDistiller()))
        (decision,) = store.rows("SELECT id FROM memories")
        with store.write():
            rows.release_hold(store, int(decision[0]))  # a person approved it
        pipeline.import_sessions(store, [(second, "claude-code")], pipeline.Options(distiller=RulesDistiller()))
        status = store.scalar("SELECT status FROM memories WHERE id = ?", (int(decision[0]),))
    assert status == "active"
