"""The third retrieval set (tests/eval/retrieval3.json) holds the shape it promises, and the
set checker reads its question kinds."""

from __future__ import annotations

import hashlib
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT

EVAL = ROOT / "tests" / "eval"
SET3 = EVAL / "retrieval3.json"

sys.path.insert(0, str(EVAL))
try:
    import check_retrieval_set as checker
finally:
    sys.path.remove(str(EVAL))


def load() -> dict[str, Any]:
    spec: dict[str, Any] = json.loads(SET3.read_text(encoding="utf-8"))
    return spec


def test_the_checker_passes_the_third_set_by_default(capsys: pytest.CaptureFixture[str]) -> None:
    assert SET3 in checker.DEFAULT_FILES
    assert checker.main([]) == 0
    out = capsys.readouterr().out
    assert "retrieval3.json: 89 memories, 8 of the other project, 140 questions" in out
    assert "PROBLEM" not in out


def test_the_set_has_the_promised_size_kinds_and_abstentions() -> None:
    spec = load()
    assert spec["split_rule"] == checker.SHA256_RULE and spec["project"] != spec["other_project"]
    assert len(spec["memories"]) >= 80
    assert {m["kind"] for m in spec["memories"]} == set(checker.KINDS)
    questions = spec["questions"]
    kinds = Counter(q["kind"] for q in questions)
    assert kinds["paraphrase"] + kinds["lexical"] >= 60
    assert kinds["near-topic"] + kinds["unrelated"] >= 0.2 * len(questions)
    for half in checker.HALVES:
        asked = Counter(q["kind"] for q in questions if q["split"] == half)
        assert all(asked[kind] > 0 for kind in checker.QUESTION_KINDS), (half, asked)
    # every half follows the digest of the question text, so nobody could pick the test half
    assert all(q["split"] == ("test" if int(hashlib.sha256(q["q"].encode()).hexdigest(), 16) % 2 else "tune")
               for q in questions)


def test_the_checker_catches_a_kind_that_disagrees_with_the_flags(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    spec = load()
    lexical = next(q for q in spec["questions"] if q["kind"] == "lexical")
    lexical["kind"] = "paraphrase"  # its flags still say it is not one
    unknown = next(q for q in spec["questions"] if q["kind"] == "unrelated")
    unknown["kind"] = "vague"
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(spec), encoding="utf-8")
    capsys.readouterr()
    assert checker.main([str(broken)]) == 1
    out = capsys.readouterr().out
    assert f"{lexical['q']!r}: kind 'paraphrase' disagrees with abstain/paraphrase" in out
    assert f"{unknown['q']!r}: kind is 'vague'" in out
