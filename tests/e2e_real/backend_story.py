"""What the login-backend stories (Claude Code, Codex, Gemini CLI) have a person say, and the
memories their scripted model answers with."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Protocol

PREFERENCE = "In this repo we use pnpm, never npm."
DECISION = "We'll keep Postgres advisory locks because each billing job needs exactly one worker."
REPEAT = "Reminder: installs go through pnpm here and never through npm."
LATER = "From now on the CI runs on Node 22."
PNPM = "The shop repo installs packages with pnpm, never npm."
PNPM_AGAIN = "The shop repo installs packages with pnpm and never with npm."


def memory(kind: str, text: str, line: int, quote: str) -> dict[str, Any]:
    """One memory as the model states it, citing `line` with `quote`."""
    return {"kind": kind, "text": text, "evidence": [{"line": line, "quote": quote}]}


def record(*memories: dict[str, Any]) -> str:
    """A `record_memories` answer as JSON text (what a CLI with a JSON-schema answer returns)."""
    return json.dumps({"memories": list(memories)})


class Told(Protocol):
    """A backend story as its tests read it: each step's import report and the sessions it read."""

    reports: dict[str, dict[str, Any]]
    sessions: dict[str, Path]


def deferred_reason(story: Told, step: str) -> str:
    """Why `step`'s import deferred the third session: nothing imported, nothing failed, nothing lost."""
    report = story.reports[step]
    assert report["sessions"]["imported"] == 0 and report["sessions"]["failed"] == [], report
    [(path, reason)] = [(d["path"], d["reason"]) for d in report["sessions"]["deferred"]]
    assert path == str(story.sessions["third"])
    return str(reason)
