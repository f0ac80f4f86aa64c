"""Recorded model answers: the set's files, replay without a model, recording a real client.

A set answers a request only when everything that was sent is the same (system prompt, user
message, tool, model); a request it lacks is written to the set, counted, and never answered
in its place. Recording goes through the real SDK against the fake Messages API server.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from loreline import backends
from loreline.distill.recorded import (AnswerSet, MissingAnswerError, RecordedCaller, RecordedDistiller,
                                       render_request, request_key)
from loreline.distill.schema import problems
from loreline.errors import ConfigError, ModelOutputError
from loreline.models import Chunk, Turn
from tests.conftest import FIXTURES
from tests.fake_anthropic import FakeAnthropic, fake_anthropic  # noqa: F401  (fixture)

TOOL = {"name": "pick", "description": "Pick one.", "input_schema": {
    "type": "object", "properties": {"choice": {"type": "string", "enum": ["a", "b"]}}, "required": ["choice"]}}


def _set(tmp_path: Path, model: str = "m1") -> AnswerSet:
    folder = tmp_path / "answers"
    folder.mkdir(exist_ok=True)
    (folder / "set.json").write_text(json.dumps({"model": model, "written_by": "a test"}))
    return AnswerSet(folder)


def test_the_key_changes_with_every_part_of_the_request() -> None:
    base = request_key(TOOL, "system", "user", "m1")
    assert base == request_key(dict(TOOL), "system", "user", "m1")  # same content, same key
    changed_tool = {**TOOL, "description": "Pick two."}
    assert len({base, request_key(TOOL, "system!", "user", "m1"), request_key(TOOL, "system", "user!", "m1"),
                request_key(changed_tool, "system", "user", "m1"), request_key(TOOL, "system", "user", "m2")}) == 5


def test_a_missing_answer_is_written_down_and_refused_never_invented(tmp_path: Path) -> None:
    answers = _set(tmp_path)
    caller = RecordedCaller(answers)
    with pytest.raises(MissingAnswerError):
        caller.call_tool(TOOL, "Choose.", "a or b?")
    with pytest.raises(MissingAnswerError):  # asked twice: listed once
        caller.call_tool(TOOL, "Choose.", "a or b?")
    assert len(caller.missing) == 1 and answers.pending() == caller.missing
    request = answers.request(caller.missing[0])
    assert request["user"] == "a or b?" and request["model"] == "m1" and request["tool"] == TOOL
    # the system prompt is stored once, by its hash, and the request reads as the model reads it
    shown = render_request(answers, caller.missing[0])
    assert "Choose." in shown and "a or b?" in shown and '"enum"' in shown
    answers.save_answer(caller.missing[0], {"choice": "b"}, "a test")
    answer, spent = caller.call_tool(TOOL, "Choose.", "a or b?")
    assert answer == {"choice": "b"} and spent.calls == 1 and spent.input_tokens > 0
    assert answers.pending() == []


def test_a_recorded_answer_is_held_to_the_schema_like_a_live_one(tmp_path: Path) -> None:
    answers = _set(tmp_path)
    key = request_key(TOOL, "s", "u", "m1")
    answers.save_request(key, TOOL, "s", "u", "m1")
    answers.save_answer(key, {"choice": "c"}, "a test")
    with pytest.raises(ModelOutputError, match="breaks its schema"):
        RecordedCaller(answers).call_tool(TOOL, "s", "u")
    (answers.folder / "answers" / f"{key}.json").write_text("{not json")
    with pytest.raises(ModelOutputError, match="unreadable"):
        RecordedCaller(answers).call_tool(TOOL, "s", "u")


def test_the_schema_check_names_each_problem() -> None:
    schema = {"type": "object", "required": ["items"], "additionalProperties": False, "properties": {
        "items": {"type": "array", "maxItems": 2, "items": {"type": "object", "required": ["line"],
                                                           "properties": {"line": {"type": "integer"}}}}}}
    assert problems({"items": [{"line": 3}]}, schema) == []
    found = problems({"items": [{"line": "3"}, {}, {"line": True}], "extra": 1}, schema)
    assert any("length is 3, above 2" in p for p in found)
    assert any("items[0].line is a string" in p for p in found)
    assert any("items[1] lacks 'line'" in p for p in found)
    assert any("items[2].line is a boolean" in p for p in found)  # a bool is not an integer
    assert any("'extra'" in p for p in found)
    assert problems([], schema) == ["answer is an array, not object"]


def test_a_set_without_its_model_is_one_clear_line(tmp_path: Path) -> None:
    folder = tmp_path / "empty"
    folder.mkdir()
    with pytest.raises(ConfigError, match="names no model"):
        backends.choose(f"recorded:{folder}")
    with pytest.raises(ConfigError, match="no answer set"):
        backends.choose(f"recorded:{tmp_path / 'nowhere'}")


def test_the_recorded_backend_distills_with_the_same_contract_and_its_own_policy(tmp_path: Path) -> None:
    answers = _set(tmp_path, "claude-haiku-4-5")
    choice = backends.choose(f"recorded:{answers.folder}")
    distiller = choice.distiller
    assert isinstance(distiller, RecordedDistiller) and choice.judge is not None
    assert distiller.policy.startswith("recorded/claude-haiku-4-5/") and "recorded:" in choice.reason
    turn = Turn("user", "We use pnpm, never npm.", 3, 3)
    piece = Chunk("s1", "/p.jsonl", 0, (turn,), "L3 [USER] We use pnpm, never npm.")
    with pytest.raises(ModelOutputError):
        distiller.distill(piece)
    key = answers.pending()[0]
    answers.save_answer(key, {"memories": [{"kind": "preference", "text": "Use pnpm, never npm.",
                                            "evidence": [{"line": 3, "quote": "We use pnpm, never npm."}]}]}, "t")
    [candidate] = distiller.distill(piece)
    assert candidate.text == "Use pnpm, never npm." and candidate.extractor == distiller.policy


def test_recording_writes_what_was_sent_and_what_came_back(tmp_path: Path, fake_anthropic: FakeAnthropic,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    folder = _set(tmp_path, "claude-haiku-4-5").folder
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_anthropic.url)
    monkeypatch.setenv(backends.RECORD_ENV, str(folder))
    choice = backends.choose("anthropic", api_key="sk-ant-api03-" + "R" * 20 + "fake")
    fake_anthropic.enqueue(FakeAnthropic.tool("record_memories", {"memories": []}))
    turn = Turn("user", "Hello there.", 1, 1)
    assert choice.distiller.distill(Chunk("s", "/p.jsonl", 0, (turn,), "L1 [USER] Hello there.")) == []
    answers = AnswerSet(folder)
    [key] = list(answers.keys("answers"))
    assert answers.answer(key) == {"memories": []} and "anthropic" in json.loads(
        (folder / "answers" / f"{key}.json").read_text())["by"]
    # the recorded set now replays that request with no model and no network
    replayed = backends.choose(f"recorded:{folder}").distiller
    assert replayed.distill(Chunk("s", "/p.jsonl", 0, (turn,), "L1 [USER] Hello there.")) == []
    assert len(fake_anthropic.requests) == 1


def test_import_takes_a_recorded_backend_on_the_command_line(tmp_path: Path, loreline_home: Path) -> None:
    answers = _set(tmp_path, "claude-haiku-4-5")
    session = FIXTURES / "sayonce" / "shop" / "session-1.jsonl"
    run = [sys.executable, "-m", "loreline.cli.main", "import", "sessions", "--path", str(session),
           "--backend", f"recorded:{answers.folder}", "--json"]
    done = subprocess.run(run, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["backend"] == "recorded" and report["rejected"].get("malformed-output", 0) >= 1
    assert len(answers.pending()) >= 1
    bad = subprocess.run([*run[:-3], "--backend", "recorded:"], capture_output=True, text=True, check=False)
    assert bad.returncode != 0 and "recorded:DIR" in bad.stderr
