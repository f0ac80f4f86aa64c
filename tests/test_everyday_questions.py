"""Everyday developer questions find the memory that names the tool, on every surface: the
command line, the prompt hook by words and by meaning (the warm process), against a store the
real importer wrote; and what `questions` understands of a question."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from loreline import questions
from loreline.store import Store
from loreline_hooks import warm
from tests.capture_helpers import (DEPLOY, TESTS, UV, event, everyday_session, hook_env, run_hook, wait_for,
                                   worker_lock_held)
from tests.conftest import loreline_exe

#: (prompt, the memory it must add)
HEADLINES = (
    ("Which package manager do we use?", UV),
    ("How do I add a dependency?", UV),
    ("How do I run the tests?", TESTS),
    ("Let's add request validation to the signup endpoint. We'll need pydantic; can I pip install it?", UV),
)


def test_questions_are_understood_in_the_glossarys_categories() -> None:
    assert {"python package manager", "javascript package manager"} <= set(questions.topics("which package manager?"))
    assert "python package manager" in questions.topics("How do I add a dependency?")
    assert "python package manager" in questions.topics("We'll need pydantic; can I pip install it?")
    assert questions.topics("How do I run the tests?") == ("test framework",)
    assert "hosting and deployment platform" in questions.topics("where do we deploy?")
    assert "feature flags" in questions.topics("what do we use for feature flags?")
    assert questions.topics("What is the capital of France?") == ()
    asked = questions.understand("which package manager?")
    assert asked.text.startswith("which package manager? (") and "python package manager" in asked.text


def test_rules_memories_get_cues_from_the_glossary() -> None:
    cues = questions.glossary_cues("we use uv, never pip; tests run with vitest")
    assert "python package manager" in cues and "test runner" in cues
    assert questions.glossary_cues("we keep the lunch order short") == ""


@pytest.fixture
def project(loreline_home: Path, tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    folder = tmp_path / "proj"
    folder.mkdir()
    session, path = everyday_session(folder, tmp_path / "sessions")
    return folder, event("UserPromptSubmit", session, path)


def _ids(home: Path) -> dict[str, int]:
    with Store(home / "loreline.db") as store:
        return {str(text): int(i) for i, text in store.rows("SELECT id, text FROM memories")}


def _hook(home: Path, payload: dict[str, Any], prompt: str, how: str, session: str) -> str:
    result = run_hook(home, "UserPromptSubmit", stdin={**payload, "session_id": session, "prompt": prompt},
                      env=hook_env(home, LORELINE_PROMPT_RECALL=how))
    assert result.returncode == 0 and result.stderr == b"", result.stderr
    return str(json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]) if result.stdout.strip() else ""


def test_the_command_line_finds_the_package_manager(loreline_home: Path, project: tuple[Path, dict[str, Any]]) -> None:
    folder, _ = project
    ids = _ids(loreline_home)
    assert UV in ids
    for query, memory in (("which package manager?", UV), ("how do I add a dependency?", UV),
                          ("how do I run the tests?", TESTS), ("where do we deploy?", DEPLOY)):
        done = subprocess.run([loreline_exe(), "recall", query, "--json", "--project", str(folder)],
                              capture_output=True, text=True, env=hook_env(loreline_home), timeout=120)
        assert done.returncode == 0, done.stderr
        found = [hit["memory"]["id"] if "memory" in hit else hit["id"] for hit in json.loads(done.stdout)]
        assert ids[memory] in found[:3], (query, found)


def test_the_prompt_hook_by_words_adds_the_memory(loreline_home: Path, project: tuple[Path, dict[str, Any]]) -> None:
    _, payload = project
    ids = _ids(loreline_home)
    with worker_lock_held(loreline_home):
        for n, (prompt, memory) in enumerate(HEADLINES):
            assert f"#{ids[memory]} " in _hook(loreline_home, payload, prompt, "words", f"w-{n}"), prompt
        assert _hook(loreline_home, payload, "What is the capital of France?", "words", "w-x") == ""


@pytest.fixture
def warm_server(loreline_home: Path, project: tuple[Path, dict[str, Any]]) -> Iterator[subprocess.Popen[bytes]]:
    proc = subprocess.Popen([sys.executable, "-m", "loreline_warm"],
                            env=hook_env(loreline_home, LORELINE_PROMPT_RECALL="meaning"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    wait_for(warm.listening, 60, "the warm process to listen")
    yield proc
    proc.kill()
    proc.wait()


def test_the_prompt_hook_by_meaning_adds_the_memory(loreline_home: Path, project: tuple[Path, dict[str, Any]],
                                                    warm_server: subprocess.Popen[bytes]) -> None:
    _, payload = project
    ids = _ids(loreline_home)
    with worker_lock_held(loreline_home):
        for n, (prompt, memory) in enumerate(HEADLINES):
            assert f"#{ids[memory]} " in _hook(loreline_home, payload, prompt, "meaning", f"m-{n}"), prompt
        assert _hook(loreline_home, payload, "What is the capital of France?", "meaning", "m-x") == ""
    assert warm_server.poll() is None


def _texts() -> Iterator[str]:
    """Questions and prompts in every shape the project holds: the retrieval sets' questions, the
    model-written cue questions and the typed words of the real public sessions."""
    root = Path(__file__).parent / "eval"
    for name in ("retrieval.json", "retrieval2.json", "retrieval3.json"):
        yield from (q["q"] for q in json.loads((root / name).read_text(encoding="utf-8"))["questions"])
    for cues in json.loads((root / "cues" / "model_cues.json").read_text(encoding="utf-8")).values():
        if isinstance(cues, dict):
            yield from (q for memory in cues.values() for q in memory["questions"])
    for path in sorted((root / "real" / "sessions").rglob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                record = json.loads(line)
            except ValueError:  # a cut line of a real file
                continue
            content = record.get("message", {}).get("content") if record.get("type") == "user" else None
            if isinstance(content, str):
                yield from content[:4000].split("\n")


def test_the_literal_word_shortcut_changes_no_answer() -> None:
    """`topics` searches a phrasing's pattern only when the text holds one of its literal words
    (`questions.anchors`); over thousands of real questions and prompts, that finds exactly what
    searching every pattern finds."""
    import re

    compiled = [(re.compile(pattern), categories) for pattern, categories in questions.INTENTS]
    texts = [t for t in _texts() if t.strip()]
    assert len(texts) > 3000
    differ = []
    for text in texts:
        lowered = text.lower()
        full = {c for pattern, categories in compiled if pattern.search(lowered) for c in categories}
        fast = {c for anchors, pattern, categories in questions._intents()
                if any(a in lowered for a in anchors) and re.search(pattern, lowered) for c in categories}
        if full != fast:
            differ.append(text)
    assert differ == []
    assert all(questions.anchors(pattern) for pattern, _ in questions.INTENTS)


def test_the_prompt_index_is_built_without_the_glossarys_pattern() -> None:
    """The prompt hook builds its index with `split_cues`; compiling the glossary's pattern would
    cost it half a second. The cheap lookup finds the same categories ("Ruff's" → linter)."""
    code = ("from loreline.questions import split_cues\nfrom loreline.embed import concepts\n"
            "own, topics = split_cues(\"Ruff's DTZ rules reject naive datetimes; pnpm/yarn workspaces; "
            "pytest,and mypy.\", 'which linter?')\n"
            "assert concepts._glossary.cache_info().currsize == 0, 'compiled'\nprint(topics)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert set(done.stdout.split("\n")) >= {"linter", "javascript package manager", "test framework"}, done.stdout
