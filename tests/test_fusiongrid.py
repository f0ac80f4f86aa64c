"""The fusion grid (scripts/evallib/fusiongrid.py) ranks exactly as recall does, from one query each."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from loreline.embed.minilm import MiniLMEmbedder
from loreline.home import using as loreline_home
from loreline.recall import Fusion, recall
from loreline.store import Store
from tests.conftest import ROOT

SCRIPTS = str(ROOT / "scripts")
if SCRIPTS not in sys.path:
    sys.path.insert(0, SCRIPTS)

from evallib import fusiongrid  # noqa: E402

pytestmark = pytest.mark.slow  # the evaluation's fusion grid over the retrieval sets

SPEC = {
    "about": "tiny", "project": "/home/dev/shop", "other_project": "/home/dev/other", "distractors": 12,
    "memories": [
        {"key": "pnpm", "kind": "preference", "text": "In this repo we use pnpm, never npm or yarn."},
        {"key": "vitest", "kind": "fact", "text": "Tests run with vitest; run one file with pnpm vitest run <path>."},
        {"key": "redis", "kind": "decision", "text": "Sessions live in Redis because we need TTL expiry."},
        {"key": "fly", "kind": "decision", "text": "The API deploys to Fly.io from the main branch."},
    ],
    "other_memories": [{"key": "other", "kind": "fact", "text": "The other app uses npm."}],
    "questions": [
        {"q": "which package manager do we use", "relevant": ["pnpm"], "paraphrase": False, "split": "tune"},
        {"q": "where are user sessions kept", "relevant": ["redis"], "paraphrase": False, "split": "tune"},
        {"q": "how do I run a single test", "relevant": ["vitest"], "paraphrase": False, "split": "tune"},
        {"q": "what is the capital of France", "relevant": [], "abstain": True, "paraphrase": False, "split": "tune"},
        {"q": "where does the API deploy", "relevant": ["fly"], "paraphrase": False, "split": "test"},
    ],
}
FUSIONS = [Fusion(2.0, 0.2, 0.3, 0.4), Fusion(1.0, 0.1, 0.5, None), Fusion(4.0, 0.25, 0.25, 0.3)]


@pytest.fixture(scope="module")
def filled(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[fusiongrid.Raw]]:
    folder = tmp_path_factory.mktemp("grid")
    spec = folder / "retrieval-tiny.json"
    spec.write_text(json.dumps(SPEC), encoding="utf-8")
    return folder / "home", fusiongrid.raw_tune_half(spec, folder / "home")


def test_only_the_tuning_half_is_queried(filled: tuple[Path, list[fusiongrid.Raw]]) -> None:
    _, raws = filled
    assert len(raws) == 4 and sum(r.abstain for r in raws) == 1
    assert {frozenset({"fly"})}.isdisjoint({r.relevant for r in raws})


@pytest.mark.parametrize("fusion", FUSIONS, ids=str)
def test_the_grid_ranks_as_recall_does(filled: tuple[Path, list[fusiongrid.Raw]], fusion: Fusion) -> None:
    home, raws = filled
    questions = [q for q in SPEC["questions"] if q["split"] == "tune"]
    embedder = MiniLMEmbedder()
    with loreline_home(home), Store() as store:
        for question, raw in zip(questions, raws, strict=True):
            hits = recall(store, question["q"], SPEC["project"], limit=10, embedder=embedder, fusion=fusion)
            assert fusiongrid.ranked(raw, fusion) == [h.memory.id for h in hits], question["q"]


def test_a_point_counts_recall_and_abstention(filled: tuple[Path, list[fusiongrid.Raw]]) -> None:
    _, raws = filled
    loose = fusiongrid.score_point(raws, Fusion(2.0, 0.0, 0.0, None))
    strict = fusiongrid.score_point(raws, Fusion(2.0, 0.99, 0.99, 0.99))
    assert loose.abstention_hits == 1 and loose.recall_at_5 == 1.0  # everything shown: the answers and noise
    assert strict.abstention_hits == 0 and strict.recall_at_5 == 0.0  # nothing is that close
    assert loose.abstentions == strict.abstentions == 1
