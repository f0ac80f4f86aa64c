"""The person's words inside tool results (rejection reasons, AskUserQuestion answers, plan
feedback), IDE blocks removed from prompts, and the Codex pairing of its two logs.

Real files: `fixtures/tool_words/` (recorded with the real Claude Code 2.1.332 TUI, see its
SOURCES.md) and `fixtures/real/` (published transcripts, Claude Code 2.0.26 and 2.1.38)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from loreline.chunk import render
from loreline.models import ParseStats, Turn
from loreline.pipeline import clean_turns
from loreline.assistants.codex import sessions as codex
from loreline.assistants.registry import parse
from loreline.transcripts.tool_words import user_words
from tests.transcripts_helpers import (
    REAL_ROOT, cursor_user, envelope, environment, item_message, response, session_meta, shape, user_event,
    write_jsonl,
)

WORDS = Path(__file__).resolve().parent / "fixtures" / "tool_words"
CC = REAL_ROOT / "claude-code"
REJECTED = ("The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file "
            "edit, the new_string was NOT written to the file).")
SID = "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"


def said(turns: tuple[Turn, ...]) -> list[tuple[int, str, str]]:
    return [(t.line_start, t.origin, t.text) for t in turns if t.speaker == "user"]


# -- real transcripts -------------------------------------------------------------------


def test_rejection_reason_and_answers_recorded_with_claude_code_2_1_332() -> None:
    t = parse(WORDS / "cc-2.1.332-rejection-and-answers.jsonl").transcript
    assert said(t.turns) == [
        (6, "prompt", "please install the deps"),
        (20, "rejection", "use uv, not pip"),
        (29, "prompt", "ok, set up linters"),
        (33, "answer", "Which linters should we set up? → ruff only, mypy later\n"
                       "Where should the config live? → pyproject.toml"),
    ]
    assert shape(t.turns)[1:4] == [("action", 15, 15, "Bash: pip install requests"),  # the refused call
                                   ("user", 20, 20, "use uv, not pip"),
                                   ("assistant", 22, 22, "Understood, I will follow that.")]
    # both tool results hold the person's words, so none is counted as dropped tool output
    assert "block:tool_result" not in t.stats.dropped
    assert t.stats.dropped["block:tool_use"] == 2


def test_plan_feedback_recorded_with_claude_code_2_1_332() -> None:
    t = parse(WORDS / "cc-2.1.332-plan-feedback.jsonl").transcript
    assert said(t.turns) == [
        (6, "prompt", "add a health endpoint"),
        (25, "plan-feedback", "no database check in the health endpoint, keep it under /api/health"),
    ]
    # the Write of the plan file is ordinary tool output
    assert t.stats.dropped["block:tool_result"] == 1


def test_published_2_0_26_answer_and_plan_feedback_typed_after_a_bare_rejection() -> None:
    t = parse(CC / "cc-2.0.26-toolresult-image-interrupt.jsonl").transcript
    assert [(x.line_start, x.line_end, x.origin, x.text) for x in t.turns
            if x.origin != "prompt" and x.speaker == "user"] == [
        (19, 19, "answer",
         "Where exactly should the + button be positioned relative to the search input? → Right of ⌘J kbd"),
        # line 22 rejects ExitPlanMode without a word, line 23 is the interrupt marker, line 25 says how instead
        (25, 25, "plan-feedback", "Completely outside the search bar entirely"),
    ]
    assert not [turn for turn in t.turns if turn.line_start == 22]
    # the prompts before the plan was rejected and after the assistant answered stay prompts
    assert [(x.line_start, x.origin) for x in t.turns if x.speaker == "user" and x.line_start in (14, 38)] == [
        (14, "prompt"), (38, "prompt")]


def test_published_2_1_38_rejections_without_reason_stay_dropped() -> None:
    t = parse(CC / "cc-2.1.38-short-local-command.jsonl").transcript
    # no words of the person's: only the refused calls themselves are kept, as action lines
    assert [(turn.speaker, turn.origin) for turn in t.turns] == [
        ("user", "prompt"), ("assistant", "prompt"), ("action", "denied"), ("action", "denied")]
    assert t.stats.dropped["block:tool_result"] == 2


def test_origin_survives_cleaning_and_chunk_rendering_is_unchanged() -> None:
    t = parse(WORDS / "cc-2.1.332-rejection-and-answers.jsonl").transcript
    cleaned = clean_turns(t.turns)
    assert [c.origin for c in cleaned] == [x.origin for x in t.turns]
    assert render(cleaned[2]) == render(Turn("user", "use uv, not pip", 20, 20))
    assert render(cleaned[1]) == "L15 [DENIED] Bash: pip install requests"


# -- every wording -------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "tool", "expected"), [
    # 2.0.50 … 2.1.332 (checked in the released CLIs)
    (f"{REJECTED} To tell you how to proceed, the user said:\nuse uv, not pip", "Bash",
     ("rejection", "use uv, not pip")),
    (f"{REJECTED} To tell you how to proceed, the user said:\nshorter plan please", "ExitPlanMode",
     ("plan-feedback", "shorter plan please")),
    # the wording other readers of real transcripts handle (two spaces after the colon)
    (f"{REJECTED} The user provided the following reason for the rejection:  use uv, not pip", "Bash",
     ("rejection", "use uv, not pip")),
    # as `toolUseResult` writes it, and inside a tool_use_error wrapper
    (f"Error: {REJECTED} To tell you how to proceed, the user said:\nno", "Edit", ("rejection", "no")),
    (f"<tool_use_error>{REJECTED} The user provided the following reason for the rejection: too risky"
     "</tool_use_error>", None, ("rejection", "too risky")),
    # a denial from a permission prompt run outside the terminal
    ("Permission for this tool use was denied. The tool use was rejected (eg. if it was a file edit, the new_string "
     "was NOT written to the file). The user said:\nkeep the old ORM", "Bash", ("rejection", "keep the old ORM")),
    # 2.1.332 may append a note of its own after the reason
    (f"{REJECTED} To tell you how to proceed, the user said:\nuse pnpm\nNote: The user's next message may contain "
     "a correction or preference. Pay close attention.", "Bash", ("rejection", "use pnpm")),
    # ≤ 2.1.38: several answers in one result
    ('User has answered your questions: "Which linters?"="Ruff + mypy", "Where?"="pyproject.toml". You can now '
     "continue with the user's answers in mind.", "AskUserQuestion",
     ("answer", "Which linters? → Ruff + mypy\nWhere? → pyproject.toml")),
    # 2.1.332: notes on an answer, an unselected option with notes, a free reply
    ('Your questions have been answered: "Which DB?"="Postgres" notes: only in prod. You can now continue with these '
     "answers in mind.", "AskUserQuestion", ("answer", "Which DB? → Postgres; notes: only in prod")),
    ('The user answered: "Colour?"=(no option selected) notes: any works. Read the answers carefully — they may '
     "request clarification.", "AskUserQuestion", ("answer", "Colour? → notes: any works")),
    ("The user responded: let's not add a linter yet", "AskUserQuestion", ("answer", "let's not add a linter yet")),
])
def test_each_wording_gives_the_persons_words(text: str, tool: str | None, expected: tuple[str, str]) -> None:
    assert user_words(text, tool) == expected


@pytest.mark.parametrize("text", [
    f"{REJECTED} STOP what you are doing and wait for the user to tell you how to proceed.",
    f"{REJECTED} To tell you how to proceed, the user said:\n   ",
])
def test_a_rejection_without_words_says_so(text: str) -> None:
    assert user_words(text, "Bash") == ("rejection", "")
    assert user_words(text, "ExitPlanMode") == ("plan-feedback", "")


@pytest.mark.parametrize("text", [
    # Claude Code fills the reason slot itself when questions are dismissed
    f'{REJECTED} To tell you how to proceed, the user said:\nThe user wants to clarify these questions.\n'
    '    Questions asked:\n- "Colour?"\n  (No answer provided)',
    "User has approved your plan. You can now start coding.",
    "The user did not answer the questions.",
    "File created successfully at: /home/dev/proj/app.py",
    "Exit code 1\nThe user doesn't want to proceed with this tool use.",
])
def test_tool_output_without_the_persons_words_is_none(text: str) -> None:
    assert user_words(text, "Bash") is None


def test_structured_answers_are_preferred_and_multi_select_joined() -> None:
    structured = {"answers": {"Which checks?": ["ruff", "mypy"], "Config?": "pyproject.toml"},
                  "annotations": {"Config?": {"notes": "one file"}}}
    text = 'User has answered your questions: "Which checks?"="ruff,mypy". You can now continue.'
    assert user_words(text, "AskUserQuestion", structured) == (
        "answer", "Which checks? → ruff, mypy\nConfig? → pyproject.toml; notes: one file")


# -- Claude Code: tool results in a line of their own, IDE blocks --------------------------


def _cc(tmp_path: Path, records: list[dict[str, Any]]) -> Path:
    lines = []
    for n, (kind, content, extra) in enumerate(records, start=1):
        message: dict[str, Any] = {"role": kind, "content": content}
        if kind == "assistant":
            message.update(id=f"msg_{n}", model="claude-x")
        lines.append({"type": kind, "uuid": f"u{n}", "sessionId": "s1", "cwd": "/home/dev/proj",
                      "timestamp": f"2026-11-30T10:00:{n:02d}Z", "message": message, **extra})
    return write_jsonl(tmp_path / "s1.jsonl", lines)


def _result(call: str, text: str) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": call, "content": [{"type": "text", "text": text}], "is_error": True}


def test_the_prompt_after_a_bare_rejection_takes_its_origin_until_the_assistant_speaks(tmp_path: Path) -> None:
    bare = f"{REJECTED} STOP what you are doing and wait for the user to tell you how to proceed."
    path = _cc(tmp_path, [
        ("assistant", [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "npm i"}}], {}),
        ("user", [_result("t1", bare)], {}),
        ("user", [{"type": "text", "text": "[Request interrupted by user for tool use]"}], {}),
        ("user", "use pnpm", {}),
        ("assistant", [{"type": "tool_use", "id": "t2", "name": "Bash", "input": {"command": "pnpm i"}}], {}),
        ("user", [_result("t2", bare)], {}),
        ("assistant", [{"type": "text", "text": "Stopped."}], {}),
        ("user", "now write the tests", {}),
    ])
    t = parse(path).transcript
    assert said(t.turns) == [(4, "rejection", "use pnpm"), (8, "prompt", "now write the tests")]
    assert t.stats.dropped["block:tool_result"] == 2


def test_parallel_results_each_become_a_turn_on_their_line_and_typed_text_follows(tmp_path: Path) -> None:
    path = _cc(tmp_path, [
        ("assistant", [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "pip install x"}},
                       {"type": "tool_use", "id": "t2", "name": "ExitPlanMode", "input": {}}], {}),
        ("user", [_result("t1", f"{REJECTED} To tell you how to proceed, the user said:\nuse uv"),
                  _result("t2", f"{REJECTED} To tell you how to proceed, the user said:\nsmaller steps"),
                  {"type": "text", "text": "and pin versions"}], {}),
        ("user", [{"type": "tool_result", "tool_use_id": "t9", "content": "ok"}], {"toolUseResult": {"stdout": "ok"}}),
    ])
    t = parse(path).transcript
    assert said(t.turns) == [(2, "rejection", "use uv"), (2, "plan-feedback", "smaller steps"),
                             (2, "prompt", "and pin versions")]
    assert t.stats.dropped["block:tool_result"] == 1


IDE_OPENED = ("<ide_opened_file>The user opened the file /home/dev/proj/src/app.py in the IDE. This may or may not "
              "be related to the current task.</ide_opened_file>")
IDE_SELECTION = ("<ide_selection>The user selected the lines 3 to 5 from /home/dev/proj/src/db.py:\n"
                 "def connect():\n    return engine\n\nThis may or may not be related to the current task."
                 "</ide_selection>")


def test_ide_blocks_leave_the_prompt_and_name_the_file(tmp_path: Path) -> None:
    path = _cc(tmp_path, [
        ("user", [{"type": "text", "text": IDE_OPENED}, {"type": "text", "text": "why is this slow"}], {}),
        ("user", [{"type": "text", "text": f"{IDE_SELECTION}\nuse a pool here"}], {}),
        ("user", [{"type": "text", "text": IDE_OPENED}], {}),
        ("user", f'<ide_opened_file id="7">The user opened the file /home/dev/proj/a.py in the IDE.</ide_opened_file>'
                 "rename it", {}),
    ])
    t = parse(path).transcript
    assert [(x.line_start, x.text, x.files) for x in t.turns] == [
        (1, "why is this slow", ("/home/dev/proj/src/app.py",)),
        (2, "use a pool here", ("/home/dev/proj/src/db.py",)),
        (4, "rename it", ("/home/dev/proj/a.py",)),
    ]
    assert "def connect" not in " ".join(x.text for x in t.turns)
    assert t.stats.dropped == {"ide-context": 4}


def test_text_that_only_mentions_an_ide_tag_is_kept_and_a_truncated_block_is_not(tmp_path: Path) -> None:
    path = _cc(tmp_path, [("user", "what does <ide_selection> do in the transcript?", {}),
                          ("user", [{"type": "text", "text": "<ide_selection>The user selected the lines 1 to 2"}],
                           {})])
    t = parse(path).transcript
    assert [x.text for x in t.turns] == ["what does <ide_selection> do in the transcript?"]
    assert t.stats.dropped == {"ide-context": 1}


# -- Codex: pairing and hard-wrapped prompts -------------------------------------------------


WRAPPED = ("We can keep the old ORM while we\ngradually move everything to drizzle,\nbut new tables go\n"
           "straight to drizzle.")


def test_real_codex_0_171_hard_wrapped_prompt_is_one_turn_and_agents_md_is_not_a_prompt() -> None:
    t = parse(WORDS / "codex-0.171.0-agents-md-wrapped-prompt.jsonl").transcript
    assert (t.tool, t.session_id, t.cwd) == ("codex", "01a22f82-467a-7822-8a2b-cb1c0920b5f2", "/home/dev/cproj")
    assert [(x.speaker, x.line_start, x.line_end, x.text) for x in t.turns] == [
        ("user", 8, 8, WRAPPED),
        ("assistant", 11, 11, "Understood: we will use pnpm in this repo."),
    ]
    assert t.stats.dropped["agents-md"] == 1 and t.stats.dropped["environment-context"] == 1
    assert "injected-context" not in t.stats.dropped


def test_real_codex_0_171_pairing_alone_catches_injected_context(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the known `# AGENTS.md` / `<environment_context>` openings, the AGENTS.md message
    on line 4 (a `response_item` the UI log never shows) is still no prompt."""
    monkeypatch.setattr(codex, "INJECTED_USER", ())
    monkeypatch.setattr(codex, "_INJECTED_STARTS", ())
    t = parse(WORDS / "codex-0.171.0-agents-md-wrapped-prompt.jsonl").transcript
    assert [(x.speaker, x.line_start) for x in t.turns] == [("user", 8), ("assistant", 11)]
    assert t.stats.dropped["injected-context"] == 1


def test_codex_pairs_item_and_event_user_messages(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / f"rollout-2025-10-02T10-00-00-{SID}.jsonl", [
        session_meta(SID, "/home/dev/proj"),
        environment("/home/dev/proj"),
        response("user", "Project notes: the deploy script lives in ops/; run it from the root."),
        response("user", WRAPPED),
        user_event(WRAPPED),
        response("assistant", "Noted."),
        envelope("event_msg", {"type": "agent_message", "message": "Noted."}),
        response("user", "  ok, go   with drizzle  "),
        user_event("ok, go with drizzle"),
    ])
    t = parse(path).transcript
    assert shape(t.turns) == [
        ("user", 4, 4, "We can keep the old"),
        ("assistant", 6, 6, "Noted."),
        ("user", 8, 8, "ok, go with drizzle"),
    ]
    assert t.turns[0].text == WRAPPED
    assert t.stats.dropped["injected-context"] == 1
    assert t.stats.dropped["environment-context"] == 1


def test_codex_without_user_events_keeps_every_item_message(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / f"rollout-2025-10-02T10-00-00-{SID}.jsonl", [
        session_meta(SID, "/home/dev/proj"),
        envelope("response_item", item_message("user", WRAPPED)),
        envelope("response_item", item_message("assistant", "Noted.")),
    ])
    t = parse(path).transcript
    assert [(x.line_start, x.line_end, x.text) for x in t.turns][0] == (2, 2, WRAPPED)
    assert "injected-context" not in t.stats.dropped


def test_codex_ide_wrapper_and_claude_ide_blocks_count_alike(tmp_path: Path) -> None:
    wrapped = ("# Context from my IDE setup:\n\n## Active file: src/app.py\n\n## Open tabs:\n- app.py: src/app.py\n\n"
               "## My request for Codex:\nwhy is this slow\n")
    path = write_jsonl(tmp_path / f"rollout-2025-10-02T10-00-00-{SID}.jsonl", [
        session_meta(SID, "/home/dev/proj"), response("user", wrapped), user_event(wrapped),
    ])
    t = parse(path).transcript
    assert [(x.text, x.files) for x in t.turns] == [("why is this slow", ("src/app.py",))]
    assert t.stats.dropped["ide-context"] == 1


# -- Cursor: the editor's attachments name files ---------------------------------------------


def test_cursor_attached_files_are_metadata(tmp_path: Path) -> None:
    body = ('<attached_files>\n<code_selection path="src/login.ts" lines="1-5">\nconst x = 1;\n</code_selection>\n'
            '<file_contents path="https://example.com/x">y</file_contents>\n</attached_files>\n'
            "<user_query>\nFix the bug\n</user_query>")
    path = write_jsonl(tmp_path / "agent-transcripts" / "c1.jsonl", [cursor_user(body, wrap=False)])
    t = parse(path, tool="cursor").transcript
    assert [(x.text, x.files) for x in t.turns] == [("Fix the bug", ("src/login.ts",))]
    assert t.stats.dropped == {"cursor-context": 1}


def test_parse_stats_type_is_unchanged() -> None:
    assert Turn("user", "x", 1, 1).origin == "prompt"
    assert ParseStats().dropped == {}
