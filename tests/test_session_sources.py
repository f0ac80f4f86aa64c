"""No memory twice in one context: SessionStart by its `source` (startup, resume, compact,
clear), through the installed hook in a subprocess, against a store the real importer wrote.

The block is limited to 420 characters, so a startup shows the preferences only and the
decision comes with a prompt about it; what a resume, a compaction or a clear then shows is
the subject here (`loreline_hooks.context`, "No memory twice in one context")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from loreline.samples.builder import ClaudeSession
from tests.capture_helpers import import_into_store, remembered_project, run_hook, worker_lock_held, write_config

PNPM = "In this repo we use pnpm, never npm."
LINTER = "Always run the linter before committing."
SQLITE = "We decided to keep SQLite because the app runs on laptops."
NODE = "The fix was to pin node to 20 in .nvmrc."
SESSION = "resumed-session"


@pytest.fixture
def payload(loreline_home: Path, tmp_path: Path) -> dict[str, Any]:
    _, prompt = remembered_project(tmp_path)
    write_config(loreline_home, '[distill]\nbackend = "rules"\n[capture]\nsession_start_chars = 420\n'
                                'prompt_recall = "words"\n')
    return {**prompt, "session_id": SESSION}


def _hook(loreline_home: Path, name: str, stdin: dict[str, Any]) -> str:
    with worker_lock_held(loreline_home):
        result = run_hook(loreline_home, name, stdin={**stdin, "hook_event_name": name})
    assert result.returncode == 0 and result.stderr == b""
    if not result.stdout.strip():
        return ""
    out = json.loads(result.stdout)
    assert out["hookSpecificOutput"]["hookEventName"] == name
    return str(out["hookSpecificOutput"]["additionalContext"])


def _start(loreline_home: Path, payload: dict[str, Any], source: str | None) -> str:
    stdin = {k: v for k, v in payload.items() if k != "prompt"}
    return _hook(loreline_home, "SessionStart", stdin if source is None else {**stdin, "source": source})


def _ask(loreline_home: Path, payload: dict[str, Any], prompt: str) -> str:
    return _hook(loreline_home, "UserPromptSubmit", {**payload, "prompt": prompt})


def _memories(block: str) -> list[str]:
    return [line for line in block.splitlines() if line.startswith("- ")]


def _started_and_asked(loreline_home: Path, payload: dict[str, Any]) -> None:
    """A first run: SessionStart shows the preferences, a prompt brings the decision (control)."""
    first = _start(loreline_home, payload, "startup")
    assert PNPM in first and LINTER in first and SQLITE not in first and NODE not in first
    assert SQLITE in _ask(loreline_home, payload, "Why did we keep SQLite for the laptops?")


def test_a_resume_shows_nothing_the_resumed_history_holds(loreline_home: Path, payload: dict[str, Any]) -> None:
    _started_and_asked(loreline_home, payload)
    resumed = _start(loreline_home, payload, "resume")
    assert PNPM not in resumed and LINTER not in resumed and SQLITE not in resumed
    assert _memories(resumed) == [f"- fact: {NODE}"], "what the first run never showed still comes, once"
    assert _start(loreline_home, payload, "resume") == "", "a second resume has nothing new to show"
    assert _ask(loreline_home, payload, "Why did we keep SQLite for the laptops?") == ""
    assert _ask(loreline_home, payload, "Which package manager, pnpm or npm?") == ""


def test_a_resume_shows_a_memory_learned_since(loreline_home: Path, payload: dict[str, Any], tmp_path: Path) -> None:
    _started_and_asked(loreline_home, payload)
    assert _start(loreline_home, payload, "resume")  # the fact, once
    later = ClaudeSession(cwd=payload["cwd"])
    later.user("We always use ruff for formatting in this repo.")
    later.assistant("Ruff it is.")
    import_into_store(later.write(tmp_path / "sessions" / f"{later.session_id}.jsonl"))
    resumed = _start(loreline_home, payload, "resume")
    assert len(_memories(resumed)) == 1 and "ruff" in resumed
    assert PNPM not in resumed and SQLITE not in resumed and NODE not in resumed


def test_a_compaction_shows_the_block_again_and_forgets_the_prompts(loreline_home: Path,
                                                                    payload: dict[str, Any]) -> None:
    _started_and_asked(loreline_home, payload)
    compacted = _start(loreline_home, payload, "compact")
    assert PNPM in compacted and LINTER in compacted and SQLITE not in compacted
    # the summary replaced the history: the decision a prompt brought before may come again
    assert SQLITE in _ask(loreline_home, payload, "Why did we keep SQLite for the laptops?")
    # and a resume after the compaction holds what the compact block and the prompt showed
    assert _memories(_start(loreline_home, payload, "resume")) == [f"- fact: {NODE}"]


@pytest.mark.parametrize("source", ["clear", "startup", None])
def test_clear_startup_or_no_source_start_over(loreline_home: Path, payload: dict[str, Any],
                                               source: str | None) -> None:
    _started_and_asked(loreline_home, payload)
    again = _start(loreline_home, payload, source)
    assert PNPM in again and LINTER in again
    assert SQLITE in _ask(loreline_home, payload, "Why did we keep SQLite for the laptops?")


def test_a_resume_without_a_record_shows_the_whole_block(loreline_home: Path, payload: dict[str, Any]) -> None:
    """A session Loreline never saw start (its record pruned, or started before connecting)."""
    resumed = _start(loreline_home, payload, "resume")
    assert PNPM in resumed and LINTER in resumed
