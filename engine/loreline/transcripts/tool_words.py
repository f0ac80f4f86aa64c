"""The user's own words that Claude Code records inside tool results.

Most tool results are tool output and never become turns. Three kinds carry what the
person typed, and each becomes a user turn on the line of its tool result:

* a rejected tool call with a reason (`origin="rejection"`): `The user doesn't want to
  proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the
  new_string was NOT written to the file). To tell you how to proceed, the user said:\\n<reason>`
  (released CLIs 2.0.50 to 2.1.332), `Permission for this tool use was denied. … The user
  said:\\n<reason>`, and the same opening with `The user provided the following reason for the
  rejection:  <reason>`, which other readers of real transcripts meet. A bare rejection
  (`… STOP what you are doing and wait for the user …`) carries no words and is dropped;
  so is the reason Claude Code writes itself when questions are dismissed
  (`The user wants to clarify these questions.`).
* the same rejection of an `ExitPlanMode` call: feedback on a plan (`origin="plan-feedback"`).
  A rejection without a reason has no words of its own; the reader gives its origin to the
  person's next prompt if it comes before any assistant output (how 2.0.26 records plan
  feedback: a bare rejection, `[Request interrupted by user for tool use]`, then the prompt).
* answers to `AskUserQuestion` (`origin="answer"`): `User has answered your questions:
  "<question>"="<answer>", "<question>"="<answer>". You can now continue …` (2.0.26, 2.1.38), `Your
  questions have been answered: …` / `The user answered: …` (2.1.332, optionally with
  `notes: …` per answer) and `The user responded: <text>`. Each pair becomes one line
  `<question> → <answer>`; the record's structured `toolUseResult.answers` is preferred when
  it is there.

Only tool results pass through here, and each is first checked with a `startswith` on its
opening words, so ordinary tool output costs one string comparison.
"""

from __future__ import annotations

import re
from typing import Any

REJECTION_STARTS = ("The user doesn't want to proceed with this tool use.", "Permission for this tool use was denied.")
#: what precedes the person's words in a rejection, newest wording last
REASON_MARKERS = (
    "The user provided the following reason for the rejection:",
    "To tell you how to proceed, the user said:",
    "The user said:",
)
#: text Claude Code appends after a rejection reason; not the person's words
TRAILING_NOTES = ("\nNote: The user's next message may contain a correction or preference.",)
#: reasons Claude Code writes itself in the reason slot
GENERATED_REASONS = ("The user wants to clarify these questions.",)
ANSWER_STARTS = ("User has answered your questions:", "Your questions have been answered:", "The user answered:")
RESPONDED = "The user responded:"
ERROR_WRAPPERS = ("Error: ", "<tool_use_error>")
WORD_STARTS = REJECTION_STARTS + ANSWER_STARTS + (RESPONDED,)
#: what a tool result holding the person's words opens with (one C-level check per result)
FIRST_WORDS = WORD_STARTS + ERROR_WRAPPERS
#: how a denial by the person's permission settings opens and what it says
PERMISSION_DENIED = ("Permission to use ", " has been denied")
PLAN_TOOLS = frozenset({"ExitPlanMode", "exit_plan_mode"})
ANSWER_ARROW = " → "
#: `"question"="answer"` pairs, each ended by the next pair, the closing sentence or a note
_PAIR = re.compile(r'"(.+?)"=(?:"(.*?)"|\(no option selected\))(?: notes: (.*?))?(?=, "|\. [A-Z]|\.?\s*$)', re.S)


def result_text(content: Any) -> str:
    """The text of a tool result's content (a string, or a list of text items)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(item["text"] for item in content
                         if isinstance(item, dict) and item.get("type") == "text" and isinstance(item.get("text"), str))
    return ""


def _opening(content: Any) -> str:
    """The first text of a tool result's content, without reading the rest of a long output."""
    if isinstance(content, list):
        for item in content:
            if isinstance(item, dict) and item.get("type") == "text":
                text = item.get("text")
                return text if isinstance(text, str) else ""
        return ""
    return content if isinstance(content, str) else ""


def is_refusal(content: Any) -> bool:
    """Whether a tool result says the call was refused: a rejection by the person, with or
    without a reason, or a denial by their permission settings (`Permission to use <tool> …
    has been denied`)."""
    head = _opening(content)
    for wrapper in ERROR_WRAPPERS:
        head = head.removeprefix(wrapper)
    return head.startswith(REJECTION_STARTS) or (head.startswith(PERMISSION_DENIED[0])
                                                  and PERMISSION_DENIED[1] in head[:300])


def user_words(content: Any, tool_name: str | None, structured: Any = None) -> tuple[str, str] | None:
    """`(origin, words)` when a tool result's content (a string or a list of text items)
    carries the person's own words, else None. A rejection without a reason gives
    `(origin, "")`: the person's next prompt is then how they want to go on (Claude Code
    ≤ 2.0.30 had no reason field: the feedback was typed as the next prompt).

    `tool_name` is the name of the call this result answers (when known); `structured` is
    the record's `toolUseResult`, used for AskUserQuestion answers when it holds them."""
    head = content if type(content) is str else _opening(content)
    if not head.startswith(FIRST_WORDS):
        return None
    head = result_text(content)
    for wrapper in ERROR_WRAPPERS:
        head = head.removeprefix(wrapper)
    if not head.startswith(WORD_STARTS):
        return None
    if head.startswith(REJECTION_STARTS):
        reason = rejection_reason(head)
        if reason is None:
            return None
        return ("plan-feedback" if tool_name in PLAN_TOOLS else "rejection"), reason
    if head.startswith(ANSWER_STARTS):
        lines = structured_answers(structured) or answer_lines(head)
        return ("answer", "\n".join(lines)) if lines else None
    words = head[len(RESPONDED):].strip()
    return ("answer", words) if words else None


def rejection_reason(text: str) -> str | None:
    """The words a person typed when rejecting a tool call: '' when they typed none, None
    when the reason slot holds Claude Code's own text."""
    for marker in REASON_MARKERS:
        at = text.find(marker)
        if at >= 0:
            reason = text[at + len(marker):]
            break
    else:
        return ""
    for note in TRAILING_NOTES:
        cut = reason.find(note)
        if cut >= 0:
            reason = reason[:cut]
    reason = reason.strip().removesuffix("</tool_use_error>").strip()
    return None if reason.startswith(GENERATED_REASONS) else reason


def answer_lines(text: str) -> list[str]:
    """`question → answer` lines parsed from an AskUserQuestion result's text."""
    lines: list[str] = []
    for question, answer, notes in _PAIR.findall(text):
        lines.append(answer_line(question, answer, notes))
    return [line for line in lines if line]


def structured_answers(structured: Any) -> list[str]:
    """`question → answer` lines from a `toolUseResult` holding `answers` (and `annotations`)."""
    if not isinstance(structured, dict) or not isinstance(structured.get("answers"), dict):
        return []
    notes_by_question = structured.get("annotations")
    notes_by_question = notes_by_question if isinstance(notes_by_question, dict) else {}
    lines: list[str] = []
    for question, answer in structured["answers"].items():
        if isinstance(answer, list):
            answer = ", ".join(str(a) for a in answer)
        note = notes_by_question.get(question)
        notes = note.get("notes") if isinstance(note, dict) else None
        line = answer_line(str(question), answer if isinstance(answer, str) else "",
                           notes if isinstance(notes, str) else "")
        if line:
            lines.append(line)
    return lines


def answer_line(question: str, answer: str, notes: str) -> str:
    question, answer, notes = question.strip(), answer.strip(), notes.strip()
    said = "; ".join(part for part in (answer, f"notes: {notes}" if notes else "") if part)
    return f"{question}{ANSWER_ARROW}{said}" if question and said else ""
