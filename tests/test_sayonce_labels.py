"""The say-once label file (tests/eval/sayonce/labels.json) points every repeat at a person's
words in replay order, with a claim and its facts, and the label checker catches the mistakes."""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

from tests.conftest import ROOT

SAYONCE = ROOT / "tests" / "eval" / "sayonce"

sys.path.insert(0, str(SAYONCE))
try:
    import check_labels as checker
finally:
    sys.path.remove(str(SAYONCE))


def load() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(checker.LABELS.read_text(encoding="utf-8"))
    return data


def test_every_repeat_points_at_a_persons_words_in_replay_order() -> None:
    data = load()
    assert checker.problems(data) == []
    test = data["split"]["test"]
    assert len(data["projects"]) >= 9
    assert sum(len(data["projects"][name]["repeats"]) for name in test) >= 20
    for name in test:
        project = data["projects"][name]
        if name != "claude_transcript":  # every project added to the test half is a real multi-session history
            assert len(project["repeats"]) >= 3 and len(project["sessions"]) >= 4, name
    assert all(r["claim"] and r["facts"] for p in data["projects"].values() for r in p["repeats"])


def test_the_checker_names_each_broken_label(capsys: Any, tmp_path: Path) -> None:
    data = load()
    broken = copy.deepcopy(data)
    cozy = broken["projects"]["cozy_checkout"]
    first, second, third = cozy["repeats"][:3]
    session, _, line = first["later"].rpartition(":")
    first["later"] = f"{session}:{int(line) + 1}"  # the assistant's answer, not the person's words
    second["earlier"], second["later"] = second["later"], second["earlier"]
    third["facts"] = [[]]
    broken["split"]["test"].remove("gryag")
    assert checker.problems(broken) == [
        "gryag: in the split or the projects but not both",
        f"cozy_checkout: {first['later']}: later line {int(line) + 1} is not a typed prompt (no user turn starts there)",
        f"cozy_checkout: {second['later']}: the earlier session does not come before the later one",
        f"cozy_checkout: {third['later']}: facts is not a list of lists of phrases",
    ]
    labels = tmp_path / "labels.json"
    labels.write_text(json.dumps(broken), encoding="utf-8")
    assert checker.main([str(labels)]) == 1
    assert capsys.readouterr().out.count("PROBLEM ") == 4
