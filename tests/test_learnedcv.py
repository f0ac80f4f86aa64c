"""The learned-scorer check (scripts/evallib/learnedcv.py): held-out scoring and its figures, by hand."""

from __future__ import annotations

import sys

import numpy as np

import pytest

from tests.conftest import ROOT

SCRIPTS = str(ROOT / "scripts")
if SCRIPTS not in sys.path:
    sys.path.insert(0, SCRIPTS)

from evallib.learnedcv import Statement, held_out_scores, measure, word_features  # noqa: E402

pytestmark = pytest.mark.slow  # the big evaluation suite (the learned scorer's cross-validation)


def _statement(group: str, text: str, label: str | None = None, points: int = 0) -> Statement:
    labels = frozenset({("s", 1, label)}) if label else frozenset()
    return Statement(group, text, points, labels)


def test_figures_count_labels_once_and_find_the_best_cutoff() -> None:
    items = [_statement("a", "x", "L1"), _statement("a", "y", "L1"), _statement("a", "z"),
             _statement("b", "w", "L2"), _statement("b", "v")]
    scores = np.array([5.0, 4.0, 3.0, 2.0, 1.0])
    row = measure("demo", scores, items, labels=4)
    assert (row.statements, row.positives, row.labels) == (5, 3, 4)
    # the top two are both L1: precision 1.0 but one label of four
    assert row.best_recall == 0.25
    assert row.at == {}  # no cut-off of 10 or more is reached by five statements


def test_a_group_is_scored_by_a_model_that_never_saw_its_labels() -> None:
    words = ["always use pnpm", "never commit secrets", "we use ruff", "fix the typo", "run it again", "looks good"]
    items = [_statement(g, w, "L" if i < 3 else None) for g in ("a", "b") for i, w in enumerate(words)]
    x = word_features(items)
    before = held_out_scores(x, items)
    # flip every label of group b: group b's own scores must not move, group a's must
    flipped = [s if s.group == "a" else _statement("b", s.text, None if s.labels else "L") for s in items]
    after = held_out_scores(x, flipped)
    b = [i for i, s in enumerate(items) if s.group == "b"]
    a = [i for i, s in enumerate(items) if s.group == "a"]
    assert np.allclose(before[b], after[b])
    assert not np.allclose(before[a], after[a])
    # learned from group a, the positives of group b (same words) rank above its negatives
    assert min(before[b][:3]) > max(before[b][3:])


def test_word_features_carry_the_rules_score() -> None:
    x = word_features([_statement("a", "use `uv`", points=5), _statement("a", "hello there", points=0)])
    assert x[0, -1] == 1.0 and x[1, -1] == 0.0
    assert x[0, :-1].sum() > 0 and not np.array_equal(x[0, :-1], x[1, :-1])
