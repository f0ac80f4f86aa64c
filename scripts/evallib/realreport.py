"""Text and Markdown for the real labelled set's two halves (see `realset`)."""

from __future__ import annotations

from benchlib import docs

from .realset import HalfScore

COLUMNS = ["backend", "half", "sessions", "labels", "memories", "precision", "recall", "forbidden"]

METHOD = """Public Claude Code and Codex sessions (`tests/eval/real/`, sources in its SOURCES.md): exported
conversations converted to JSONL with the people's words verbatim, plus the real fixtures. Split by
session with a fixed seed before any rule was written (`split.json`); rules were tuned on the `tune`
half only, by leave-one-author-out within it (below), and the `test` half is reported as measured. A label is a line and keywords a stored memory
must contain; precision = memories that match a label / memories, recall = labels found / labels;
forbidden = memories citing injected text (command/skill bodies, hook feedback, summaries), subagent
files, the assistant's lines or a secret."""


def rows(scores: list[tuple[str, HalfScore]]) -> list[list[str]]:
    return [[backend, s.half, str(s.sessions), str(s.labels), str(s.memories), f"{s.precision:.2f}",
             f"{s.recall:.2f}", str(len(s.forbidden))] for backend, s in scores]


def render(scores: list[tuple[str, HalfScore]]) -> str:
    from .report import text_table

    return "\n".join(["Real labelled set (tests/eval/real)", text_table(COLUMNS, rows(scores)), ""])


def markdown(scores: list[tuple[str, HalfScore]]) -> str:
    return "\n".join(["### Extraction on real sessions: tuning half and held-out test half", "", METHOD, "",
                      docs.markdown_table(COLUMNS, rows(scores)), ""])
