"""Said again: what a person repeats from an earlier session of the project is learned."""

from __future__ import annotations

from pathlib import Path

from loreline import pipeline, repeated
from loreline.distill.rules import RulesDistiller
from loreline.store import Store
from tests.conftest import FIXTURES

SHOP = FIXTURES / "sayonce" / "shop"


def texts(store: Store) -> dict[str, str]:
    return {text: extractor for text, extractor in store.rows("SELECT text, extractor FROM memories WHERE status = 'active'")}


def test_a_statement_said_in_a_second_session_is_kept_with_its_own_words(tmp_path: Path) -> None:
    with Store(tmp_path / "l.db") as store:
        options = pipeline.Options(distiller=RulesDistiller())
        pipeline.import_sessions(store, [(SHOP / "session-1.jsonl", "claude-code")], options)
        assert "Run the e2e suite with the --headed flag." not in texts(store)  # the distiller alone passes it by
        pipeline.import_sessions(store, [(SHOP / "session-2.jsonl", "claude-code")], options)
        learned = texts(store)
        assert learned.get("Then run the e2e suite with the --headed flag.") == repeated.POLICY
        line = store.scalar("SELECT p.line_start FROM provenance p JOIN memories m ON m.id = p.memory_id "
                            "WHERE m.extractor = ?", (repeated.POLICY,))
        assert line == 5
        # a one-off request said once is not kept, nor is the pnpm rule kept twice
        assert "Add a coupon field to the cart." not in learned
        assert sum(1 for text in learned if "pnpm" in text) == 1


def test_the_option_turns_it_off(tmp_path: Path) -> None:
    with Store(tmp_path / "l.db") as store:
        options = pipeline.Options(distiller=RulesDistiller(), said_again=False)
        pipeline.import_sessions(store, [(SHOP / f"session-{i}.jsonl", "claude-code") for i in (1, 2)], options)
        assert repeated.POLICY not in texts(store).values()


def test_one_off_requests_and_questions_never_count_as_said_again() -> None:
    before = [repeated.signature("Please commit and push it to the main branch.")]
    for sentence in ("Please commit and push it to the main branch.", "Should we run the e2e suite headed?",
                     "For now, run the e2e suite with the --headed flag."):
        assert not repeated._eligible(sentence) or not repeated.says_again(repeated.signature(sentence), before)
    flag = repeated.signature("Use the --no-verify flag.")
    assert repeated.says_again(flag, [repeated.signature("You'll need to use `--no-verify`")])
    assert not repeated.says_again(flag, [repeated.signature("Use the verify step before you push.")])


def test_pasted_output_and_attachment_lists_never_count_as_said_again() -> None:
    pasted = "1 of 4 errors Next.js (14.2.30) is outdated (learn more)"
    mentions = "@Context.md @Features_List.md @PRD.md @Style_Guide.md let's pick up where we left off"
    for sentence in (pasted, mentions):
        assert not repeated._eligible(sentence)
    assert repeated._eligible("Then run the e2e suite with the --headed flag.")
    assert repeated.signature("@Context.md please keep the theme tokens") == frozenset({"keep", "theme", "tokens"})
