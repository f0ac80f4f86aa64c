"""Recall finds what a question of everyday verbs and nouns plainly asks for: "how do I upgrade a
module?" returns the procedure that upgrades an Odoo module, though the sentence model puts the
question far from a memory made mostly of a command line (`recall.covering`: a bm25 hit holding
every content word of the question is kept and answers). Through the real command line, against
a store the real importer and the belief pipeline wrote; unrelated questions still get nothing."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from loreline.api import Loreline
from loreline.project import project_key
from loreline.store import Store
from tests.capture_helpers import DEPLOY, TESTS, UV, everyday_session, hook_env
from tests.conftest import loreline_exe

ODOO = ("Upgrade an Odoo module in the Docker setup: docker exec odoo odoo -u <module> -d <db> "
        "--stop-after-init")


@pytest.fixture
def project(loreline_home: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "shop"
    folder.mkdir()
    everyday_session(folder, tmp_path / "sessions")
    with Loreline() as lore:  # what an assistant was asked to keep (MCP `remember`), approved by the person
        lore.approve(lore.remember(project_key(str(folder)), ODOO, "procedure", reason="asked", actor="assistant").id)
    return folder


def _ids(home: Path) -> dict[str, int]:
    with Store(home / "loreline.db") as store:
        return {str(text): int(i) for i, text in store.rows("SELECT id, text FROM memories WHERE status = 'active'")}


def _recall(home: Path, folder: Path, query: str) -> list[int]:
    done = subprocess.run([loreline_exe(), "recall", query, "--json", "--project", str(folder)],
                          capture_output=True, text=True, env=hook_env(home), timeout=120)
    assert done.returncode == 0, done.stderr
    return [hit["memory"]["id"] for hit in json.loads(done.stdout)]


@pytest.mark.parametrize("query", ["how do I upgrade a module?", "upgrade module", "How do we upgrade modules?",
                                   "docker"])
def test_a_question_of_everyday_words_finds_the_procedure_first(loreline_home: Path, project: Path,
                                                                 query: str) -> None:
    assert _recall(loreline_home, project, query)[:1] == [_ids(loreline_home)[ODOO]], query


@pytest.mark.parametrize(("query", "memory"), [("how do I run the tests?", TESTS), ("which package manager?", UV),
                                               ("where do we deploy the web app?", DEPLOY)])
def test_other_everyday_questions_still_find_their_memory(loreline_home: Path, project: Path, query: str,
                                                          memory: str) -> None:
    assert _ids(loreline_home)[memory] in _recall(loreline_home, project, query)[:3], query


@pytest.mark.parametrize("query", ["What is the capital of France?", "how do I upgrade the mobile app?",
                                   "which module handles payroll?"])
def test_questions_it_does_not_answer_do_not_get_the_procedure(loreline_home: Path, project: Path, query: str) -> None:
    assert _ids(loreline_home)[ODOO] not in _recall(loreline_home, project, query), query


def test_a_question_it_plainly_asks_is_answered_beside_memories_with_cues(loreline_home: Path, project: Path) -> None:
    """With cue vectors in the store (a model backend's), recall shows nothing unless a shown memory
    is close enough to the question (`Fusion.answer_floor`); the memory holding every word of it
    answers it."""
    ids = _ids(loreline_home)
    for memory in (UV, TESTS):
        edit = subprocess.run([loreline_exe(), "edit", str(ids[memory]), "--cues",
                               "which package manager do we use?; how do I add a dependency?"],
                              capture_output=True, text=True, env=hook_env(loreline_home), timeout=120)
        assert edit.returncode == 0, edit.stderr
    ids = _ids(loreline_home)  # an edit makes a new version
    assert _recall(loreline_home, project, "how do I upgrade a module?")[:1] == [ids[ODOO]]
    assert _recall(loreline_home, project, "What is the capital of France?") == []
