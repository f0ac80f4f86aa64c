"""The recorded-answers evals through the openai-compatible backend's real client: a set of
recorded answers served as an OpenAI-compatible chat server on loopback (`scripts/eval
serve-answers`) gives the figures `--backend recorded:DIR` gives, on a small set.

Say-once replays one project of the tuning half (mclaude: 19 sessions, 2 labelled repeats)
with the project's answer set; requests the set lacks for it (on this checkout: some brief
and judge requests) are first answered neutrally in a copy of the set, so both runs read the
same, complete answers. The retrieval eval's cue writer runs over the first retrieval set.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from evallib import answer_server, retrieval, sayonce, sayonce_report
from evallib.chat_server import ChatServer
from loreline.distill import recorded
from loreline.distill.recorded import AnswerSet

pytestmark = pytest.mark.slow  # say-once replays 19 sessions twice through the real hooks (about a minute)

ROOT = Path(__file__).resolve().parents[1]
ANSWERS = ROOT / "tests" / "eval" / "answers"
NEUTRAL = {"write_brief": {"sections": []}, "classify_relations": {"relations": []}, "classify_relation":
           {"relation": "complementary", "reason": "neutral"}, "judge_conflict": {"verdict": "unsure",
                                                                                   "reason": "neutral"},
           "record_memories": {"memories": []}, "write_cues": {"questions": [], "topics": []}}


@pytest.fixture
def answers(tmp_path: Path) -> Path:
    folder = tmp_path / "answers"
    shutil.copytree(ANSWERS, folder)
    return folder


@pytest.fixture
def served(answers: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ChatServer]:
    with answer_server.serve(answers) as server:
        monkeypatch.setenv("LORELINE_OPENAI_BASE_URL", server.url)
        monkeypatch.setenv("LORELINE_OPENAI_MODEL", AnswerSet(answers).model())
        yield server


def one_project(tmp_path: Path, name: str = "mclaude") -> Path:
    data = sayonce.load()
    data["split"] = {"tune": [name]}
    data["projects"] = {name: data["projects"][name]}
    path = tmp_path / "labels.json"
    path.write_text(json.dumps(data))
    return path


def fill(folder: Path) -> int:
    """Answer every request the set lacks with a neutral answer of its tool; how many there were."""
    answers = AnswerSet(folder)
    pending = answers.pending()
    for key in pending:
        answers.save_answer(key, NEUTRAL[answers.request(key)["tool"]["name"]], "a neutral filler (test)")
    return len(pending)


def say_once(backend: str, labels: Path) -> dict[str, float]:
    recorded.MISSING.clear()
    [result] = sayonce.run_labelled(backend, ("tune",), labels=labels)["tune"]
    return sayonce_report.totals([result])


def test_say_once_through_the_server_gives_the_recorded_figures(tmp_path: Path, answers: Path,
                                                               served: ChatServer) -> None:
    labels = one_project(tmp_path)
    for _ in range(3):  # fill what this checkout asks and the set lacks, until nothing is missing
        said = say_once(f"recorded:{answers}", labels)
        if not recorded.MISSING:
            break
        assert fill(answers) > 0
    assert not recorded.MISSING, recorded.MISSING[:3]
    through_server = say_once("openai-compatible", labels)
    assert not recorded.MISSING
    assert through_server == said
    assert said["model_calls"] >= 19 and said["input_tokens"] > 10_000  # the figures are a model run's
    asked = [r["body"] for r in served.requests]
    assert len(asked) >= said["model_calls"]  # and the brief writer's, which the import does not count
    assert {b["response_format"]["json_schema"]["name"] for b in asked} >= {"record_memories", "write_brief"}


def scores(result: retrieval.Result) -> list[tuple[str, str, dict[str, retrieval.HalfScore]]]:
    """What a retrieval run measured, without its timings."""
    return [(m.name, m.embedder, m.halves) for m in result.methods]


def test_retrieval_cues_through_the_server_give_the_recorded_figures(tmp_path: Path, answers: Path,
                                                                    served: ChatServer) -> None:
    spec = retrieval.SETS[0]
    recorded.MISSING.clear()
    replayed = retrieval.evaluate(tmp_path / "recorded", spec, with_cues=True, backend=f"recorded:{answers}")
    assert not recorded.MISSING, recorded.MISSING[:3]  # the set holds a cue answer for every memory
    through_server = retrieval.evaluate(tmp_path / "served", spec, with_cues=True, backend="openai-compatible")
    assert not recorded.MISSING
    assert (through_server.questions, through_server.memories) == (replayed.questions, replayed.memories)
    assert scores(through_server) == scores(replayed)
    names = {r["body"]["response_format"]["json_schema"]["name"] for r in served.requests}
    assert names == {"write_cues"} and len(served.requests) >= 40  # one per labelled memory (43)
