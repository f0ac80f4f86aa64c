"""Leave-one-group-out on the real set's tuning half (scripts/evallib/realcv.py), worked by hand.

A two-group set in a temporary directory: each group is scored at the threshold the other group
picks and with the cues drafted from it switched off; pooled figures add the held-out groups up.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import orjson

import pytest

from loreline.chunk import chunk
from loreline.distill import rules_patterns as pat
from loreline.distill.rules import RulesDistiller
from loreline.models import Turn
from tests.conftest import ROOT

SCRIPTS = str(ROOT / "scripts")
if SCRIPTS not in sys.path:
    sys.path.insert(0, SCRIPTS)

from evallib import realcv  # noqa: E402

pytestmark = pytest.mark.slow  # the big evaluation suite (leave-one-group-out over the real set)


def _session(path: Path, texts: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = []
    for n, text in enumerate(texts, start=1):
        lines.append(orjson.dumps({"type": "user", "uuid": f"u{n}", "parentUuid": f"u{n - 1}" if n > 1 else None,
                                   "sessionId": path.stem, "cwd": "/home/dev/app",
                                   "timestamp": f"2026-01-01T10:00:{n:02d}Z", "isSidechain": False,
                                   "message": {"role": "user", "content": text}}) + b"\n")
    path.write_bytes(b"".join(lines))


def _two_groups(tmp_path: Path) -> Path:
    real = tmp_path / "real"
    _session(real / "sessions" / "a" / "one.jsonl", ["ok let's go with esbuild for the bundle"])  # 4 points
    _session(real / "sessions" / "b" / "two.jsonl", ["never commit generated files",  # 4 points, labelled
                                                      "we'll use your idea going forward"])  # 4 points, unlabelled
    (real / "split.json").write_text(json.dumps({"tune": ["a/one.jsonl", "b/two.jsonl"], "test": ["c/x.jsonl"]}))
    labels = {"positives": [
        {"session": "a/one.jsonl", "line": 1, "kind": "decision", "gist": "esbuild", "keywords": ["esbuild"]},
        {"session": "b/two.jsonl", "line": 1, "kind": "preference", "gist": "generated", "keywords": ["generated"]},
    ], "forbidden": []}
    (real / "labels.json").write_text(json.dumps(labels))
    return real


def test_each_group_is_scored_at_the_threshold_the_others_choose(tmp_path: Path) -> None:
    results, pooled, tally = realcv.cross_validate(_two_groups(tmp_path))
    a, b = results
    # b alone reaches precision 0.5 at every threshold, so a gets the highest; a is precise at 2, so b gets 2
    assert (a.group, a.threshold, a.memories, a.hits, a.found) == ("a", 4, 1, 1, 1)
    assert (b.group, b.threshold, b.memories, b.hits, b.found) == ("b", 2, 2, 1, 1)
    assert (pooled.memories, pooled.hits, pooled.found, pooled.labels) == (3, 2, 2, 2)
    assert abs(pooled.precision - 2 / 3) < 1e-9 and pooled.recall == 1.0
    assert tally["from now on"].misfires == {"b": 1}
    assert "pooled" in realcv.render(results, pooled, tally) and "| b | 1 |" in realcv.markdown(results, pooled)


def test_the_test_half_is_never_read(tmp_path: Path) -> None:
    real = _two_groups(tmp_path)  # the test half names a session that does not exist: reading it would fail
    results, _, _ = realcv.cross_validate(real)
    assert [r.group for r in results] == ["a", "b"]


def test_precision_comes_first_when_choosing_a_threshold() -> None:
    assert realcv.choose({2: (10, 8, 8, 20), 3: (5, 5, 5, 20), 4: (1, 1, 1, 20)}) == 3
    assert realcv.choose({2: (10, 5, 5, 20), 3: (4, 2, 2, 20)}) == 3  # none is precise enough: the strictest
    assert realcv.choose({2: (0, 0, 0, 20), 3: (0, 0, 0, 20)}) == 3


def test_groups_are_authors_and_fixtures_their_source_repository() -> None:
    assert realcv.group_of("brain_explore/x-full.jsonl") == "brain_explore"
    assert realcv.group_of("fixtures/cc-2.1.42-stop-hook-summary.jsonl") == "fixtures:claude-code-log"
    assert realcv.group_of("fixtures/codex-0.40.0-tool-calls.jsonl") == "fixtures:agentcmd"


def test_cues_of_a_left_out_origin_do_not_fire() -> None:
    piece = chunk([Turn("user", "never commit generated files", 1, 1)], session_id="s", path="p")[0]
    assert RulesDistiller().distill(piece)
    assert RulesDistiller(without=frozenset({pat.PRIOR})).distill(piece) == []
    drafted = {cue.name: cue.origin for cue in pat.CUES if cue.origin != pat.PRIOR}
    assert drafted == {"make sure to X as well / when Y": "claude_transcript"}  # the one that carried over
