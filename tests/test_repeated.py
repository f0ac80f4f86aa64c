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


def test_a_model_is_told_which_lines_say_again_an_earlier_sessions_wish(tmp_path: Path) -> None:
    """A wish phrased as a task is never a rules candidate, but said in a second session a model
    is told so (loosely matched), and keeps it whatever its wording."""
    import json

    import orjson

    from loreline import backends
    from loreline.distill.recorded import AnswerSet

    def session(name: str, texts: list[str]) -> Path:
        path = tmp_path / f"{name}.jsonl"
        rows = []
        for n, text in enumerate(texts, start=1):
            role = "user" if n % 2 else "assistant"
            rows.append(orjson.dumps({"type": role, "uuid": f"{name}{n}", "sessionId": name, "cwd": "/home/dev/app",
                                      "timestamp": f"2026-01-0{len(name) % 9 + 1}T10:00:{n:02d}Z", "isSidechain": False,
                                      "message": {"role": role, "content": text if role == "user" else
                                                  [{"type": "text", "text": text}]}}) + b"\n")
        path.write_bytes(b"".join(rows))
        return path

    first = session("aaaaaaaa-0000-4000-8000-000000000001",
                    ["Reduce the padding of the candidates list to be more compact.", "Done: padding is 4px now."])
    second = session("bbbbbbbb-0000-4000-8000-000000000002",
                     ["Add a filter to the page.", "Added.", "Reduce the padding of the candidates list, it is not compact.",
                      "Done."])
    folder = tmp_path / "answers"
    folder.mkdir()
    (folder / "set.json").write_text(json.dumps({"model": "m"}))
    choice = backends.choose(f"recorded:{folder}")
    with Store(tmp_path / "l.db") as store:
        options = pipeline.Options(distiller=choice.distiller, judge=choice.judge)
        pipeline.import_sessions(store, [(first, "claude-code"), (second, "claude-code")], options)
    sent = [AnswerSet(folder).request(k)["user"] for k in AnswerSet(folder).keys()]
    later = next(u for u in sent if "Add a filter" in u)
    assert "The developer's words at L3 say again what they said in an earlier session" in later
    assert not any("say again" in u for u in sent if "Add a filter" not in u)
