"""The offline `rules` distiller on how people write: casual, wrapped, German, Spanish, tool answers.

The phrasings here are written for these tests (not taken from the real labelled set's test half,
which is only ever measured by `scripts/eval`). Phrasings a rule was once drafted for from a single
author of the tuning half ("this project also uses X", "before committing, run X") are gone with
those rules: leave-one-group-out found nothing they carried over to (see `scripts/eval --cv`).
"""

from __future__ import annotations

import pytest

from loreline import evidence
from loreline.chunk import chunk
from loreline.distill.rules import RulesDistiller, classify, own_words, score, words
from loreline.distill.rules_text import statements
from loreline.models import Chunk, Turn

#: a turn as the tool-result-aware readers build it: `origin` is a field of `Turn` itself (a record,
#: which another class does not extend with fields)
OriginTurn = Turn


def distill(*turns: Turn) -> list[tuple[str, str, int]]:
    piece = chunk(list(turns), session_id="s", path="p")[0]
    found = RulesDistiller().distill(piece)
    accepted, reasons = evidence.validate(found, piece, has_secret=lambda _: False)
    assert reasons == [], reasons  # every quote the rules make matches its line
    return [(c.kind, c.text, c.evidence[0].line) for c in accepted]


@pytest.mark.parametrize(("sentence", "kind"), [
    ("ok fine, let's go with esbuild", "decision"),
    ("we should fall back to the email when the display name is empty", "decision"),
    ("go with the second option, the sqlite one", "decision"),
    ("switch to uv for the lockfile", "decision"),
    ("lets use vite instead of webpack", "decision"),
    ("no, use httpx instead of requests", "preference"),
    ("never commit generated files", "preference"),
    ("please don't mock the database in integration tests", "preference"),
    ("no, use the staging bucket", "preference"),
    ("if the schema changes, ask me before migrating", "preference"),
    ("we use zod for all request validation", "preference"),
    ("we should never store tokens in localStorage", "preference"),
    ("let's stick to the REST endpoints", "decision"),
    ("Please clean up and use pnpm going forward.", "preference"),
    ("make sure to run the linter whenever you touch the schema", "preference"),
    ("Secrets in log lines are not allowed.", "preference"),
    ("no, we use poetry in this repo", "preference"),
    ("avoid global state in the request handlers", "preference"),
    ("Force pushes to main are not allowed.", "preference"),
    ("we don't mock the database in integration tests", "preference"),
    ("The schema file is the source of truth for the API types.", "fact"),
    ("for future reference, the CI runners have no network access", "fact"),
    ("fyi the staging database is read-only after 6pm", "fact"),
    ("the frontend is deployed to Netlify from the main branch", "fact"),
    ("whenever a field is missing, log it and skip the row", "preference"),
    # German
    ("Wir verwenden immer pytest, nie unittest.", "preference"),
    ("Bitte nie direkt auf main pushen.", "preference"),
    ("Lass uns bei SQLite bleiben, das reicht für die Tests.", "decision"),
    ("Wir sollten auf Postgres 16 wechseln.", "decision"),
    ("Die Tests laufen mit tox auf drei Python-Versionen.", "fact"),
    # Spanish
    ("Siempre usa comillas dobles en el código Python.", "preference"),
    ("Nunca uses print para depurar, usa logging.", "preference"),
    ("Usemos FastAPI en lugar de Flask.", "decision"),
    ("Deberíamos cambiar a Poetry para las dependencias.", "decision"),
    ("Las pruebas corren con pytest-xdist en CI.", "fact"),
])
def test_casual_and_non_english_statements_are_kept(sentence: str, kind: str) -> None:
    assert classify(sentence) == kind


@pytest.mark.parametrize("sentence", [
    "ok", "sounds good", "continue", "looks good, commit it",
    "lets move to phase 4",
    "let's do it",
    "ok let's do this",
    "make it faster",
    "maybe we should switch to Redis?",
    "should we go with esbuild?",
    "i think we could use pnpm but i'm not sure",
    "use pnpm for now",
    "let's just use the mock this time",
    "can you switch to the other branch",
    "why are we using parallel tasks now",
    "Vielleicht sollten wir auf Rust wechseln?",
    "¿Deberíamos usar Go?",
    "Quizás usemos Redis.",
    "fix the failing test in auth.py",
    "The button should be blue.",
    "if it fails, run it again",
    "remember to push when you're done",
    "we use it for the demo",
    "no worries",
    "Remember it for next time.",
    "let's do option B",
    "ok let's do the sqlite approach",
    "don't push this branch yet",
    "don't touch the current changes in main",
    "So we should edit `main.py` so that it runs without errors.",
    "I just ran the migration with --force",
    "For user rows, if the name is missing, we don't need the avatar",
    "the stop hook is never going to work like this",
    "stop the dev server",
    "it never works on the first try",
    "i always forget how the release script works",
    "whenever I run it, it crashes",
    "don't change anything else",
    "we'll use the output to debug the parser",
    "we should use the new endpoint",
    "we use it for the demo only",
])
def test_questions_hedges_and_one_off_requests_are_not(sentence: str) -> None:
    assert classify(sentence) is None


def test_a_codex_prompt_wrapped_over_four_lines_is_one_statement() -> None:
    text = ("Please look at the user table. We keep the old ORM while we\n  move to drizzle, and from now\n  on "
            "we use drizzle for every\n  new table.")
    assert statements(text)[1] == ("We keep the old ORM while we move to drizzle, and from now on we use drizzle "
                                   "for every new table.")
    kept = distill(Turn("user", text, 3, 3))
    assert [(k, line) for k, _, line in kept] == [("decision", 3)]
    assert "drizzle for every new table" in kept[0][1]


def test_list_items_stay_apart_and_code_fences_are_not_read() -> None:
    text = ("Setup notes:\n- we're using pnpm so we should not use npm install\n- tests run with vitest\n"
            "```\nnever commit generated files\n```")
    assert statements(text) == ["Setup notes:", "we're using pnpm so we should not use npm install",
                                "tests run with vitest"]


def test_an_abbreviation_does_not_end_a_sentence_however_long_the_sentence() -> None:
    text = ("We lint with ruff, mypy etc. and always run them before pushing. Then ship it.\n\n"
            "Set the timeout to approx. 30 seconds. It was fine.")
    assert statements(text) == ["We lint with ruff, mypy etc. and always run them before pushing.", "Then ship it.",
                                "Set the timeout to approx. 30 seconds.", "It was fine."]


def test_fences_intros_and_spacing_are_read_whatever_the_whitespace() -> None:
    fenced = "\t```\nnever commit generated files\n\u00a0```\nok let's go with esbuild"
    assert statements(fenced) == ["ok let's go with esbuild"]
    pasted = "the docs say:   \nalways run the migrations by hand\n\nok let's go with alembic"
    assert statements(pasted) == ["ok let's go with alembic"]
    inline = "the docs say: always run the migrations by hand"  # the colon does not end the line: no paste follows
    assert statements(inline) == [inline]
    assert statements("use  pnpm\u00a0\u00a0for\tinstalls") == ["use pnpm for installs"]


def test_words_are_runs_of_letters_in_any_script_with_one_apostrophe() -> None:
    assert words("DON'T Use `pnpm` v2, rock'n'roll!") == {"don't", "use", "pnpm", "v", "rock'n", "roll"}
    assert words("don\u2019t mock") == {"don't", "mock"}
    assert words("Wir verwenden immer pytest für Tests") == {"wir", "verwenden", "immer", "pytest", "für", "tests"}


def test_a_question_or_hedge_stops_a_sentence_a_cue_matched() -> None:
    assert score("we always use pnpm for installs") == ("preference", 5)
    assert score("we always use pnpm for installs, maybe") is None
    assert score("do we always use pnpm for installs?") is None


def test_quoted_and_pasted_material_is_not_the_persons_statement() -> None:
    quoted = "> always use yarn, never pnpm\nhmm, that's from an old README"
    pasted = "the docs say:\nalways run the migrations by hand\n\nok let's go with alembic"
    log = "main-1  | always use the cache, never the network\nwhat does that mean"
    assert distill(Turn("user", quoted, 1, 1)) == []
    assert distill(Turn("user", log, 1, 1)) == []
    assert [t for _, t, _ in distill(Turn("user", pasted, 1, 1))] == ["ok let's go with alembic"]


def test_editor_and_harness_blocks_are_not_the_persons_words() -> None:
    text = ("<ide_selection>The user selected: never use tabs, always use spaces</ide_selection>\n"
            "ok let's go with esbuild\n<system-reminder>Always run the linter.</system-reminder>")
    assert statements(text) == ["ok let's go with esbuild"]
    kept = distill(Turn("user", text, 7, 7))
    assert kept == [("decision", "ok let's go with esbuild", 7)]
    unclosed = "<task-notification><summary>Never push to main from CI jobs.</summary>"
    assert statements(unclosed) == []


@pytest.mark.parametrize("text", [
    "Base directory for this skill: /x\n\n# Brainstorming\nAlways use the Skill tool.",
    "Stop hook feedback:\nWe should always update progress.md.",
    "This session is being continued from a previous conversation. We decided to use Redis because…",
    "<session-start-hook>never skip the checklist</session-start-hook>",
    "# Session Catchup\n\n" + "Always read CLAUDE.md first. " * 30,
    "# Review\n\nAlways check the diff before you commit.",
])
def test_injected_bodies_are_skipped_whole(text: str) -> None:
    assert not own_words(text)
    assert distill(Turn("user", text, 1, 1)) == []


def test_only_the_persons_lines_are_read() -> None:
    said = distill(Turn("assistant", "We'll use Redis; let's go with Redis locks.", 1, 2),
                   Turn("user", "ok let's go with Postgres locks", 3, 3))
    assert said == [("decision", "ok let's go with Postgres locks", 3)]


def test_a_rejection_reason_is_a_correction_even_when_bare() -> None:
    reason = OriginTurn("user", "use uv, not pip", 12, 12, origin="rejection")
    assert distill(reason) == [("preference", "use uv, not pip", 12)]
    bare = OriginTurn("user", "keep the tests next to the code", 9, 9, origin="rejection")
    assert distill(bare) == [("preference", "keep the tests next to the code", 9)]
    assert distill(Turn("user", "keep the tests next to the code", 9, 9)) == []  # typed, it is a task
    go_back = OriginTurn("user", "go back and read the whole file first", 10, 10, origin="rejection")
    assert distill(go_back) == []  # a one-off redirection, not a standing correction


def test_plan_feedback_reads_like_a_rejection() -> None:
    feedback = OriginTurn("user", "Looks fine. Don't add a new dependency for this.", 4, 4, origin="plan-feedback")
    assert distill(feedback) == [("preference", "Don't add a new dependency for this.", 4)]


def test_answers_keep_the_question_with_the_choice() -> None:
    text = "Which linters should we set up? → Ruff + mypy\nShould I commit now? → ok"
    answer = OriginTurn("user", text, 20, 20, origin="answer")
    assert distill(answer) == [("decision", "Which linters should we set up? → Ruff + mypy", 20)]
    assert distill(OriginTurn("user", "Proceed? → yes", 21, 21, origin="answer")) == []


def test_context_lines_give_nothing_new() -> None:
    ts = (Turn("user", "never commit generated files", 1, 1), Turn("user", "thanks", 5, 5))
    piece = Chunk("s", "p", 0, ts, "", context_until=2)
    assert RulesDistiller().distill(piece) == []


def test_secrets_and_redactions_are_never_kept() -> None:
    assert classify("we always use the key [REDACTED:aws-key] for staging") is None


def test_cleaning_keeps_the_origin_the_reader_gave() -> None:
    from loreline.pipeline import clean_turns

    (cleaned,) = clean_turns([OriginTurn("user", "  use uv, not pip  ", 12, 12, origin="rejection")])
    assert getattr(cleaned, "origin", None) == "rejection" and cleaned.text == "use uv, not pip"
