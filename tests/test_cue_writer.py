"""A model writes retrieval cues for memories no model wrote cues for (`loreline reembed --cues`).

Run against recorded answers (no model): the request carries only the memory's kind and text;
an answer that is missing or breaks the schema writes nothing; cues written once are not asked
for again. The retrieval eval's model row reads the blind cues through this same request.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from loreline.distill import cue_writer
from loreline.distill.recorded import AnswerSet, request_key
from tests.conftest import loreline_exe, subprocess_env


def _remembered(home: Path, text: str) -> None:
    """A memory the offline rules keep (a request to remember it), so no model wrote its cues."""
    import orjson

    session = home.parent / "c0ffee00-0000-4000-8000-000000000001.jsonl"
    session.write_bytes(orjson.dumps({"type": "user", "uuid": "u1", "sessionId": session.stem, "cwd": "/home/dev/app",
                                      "timestamp": "2026-01-01T10:00:00Z", "isSidechain": False,
                                      "message": {"role": "user", "content": f"Remember: {text}"}}) + b"\n")
    done = subprocess.run([loreline_exe(), "import", "sessions", "--path", str(session), "--backend", "rules"],
                          env=subprocess_env(home), capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


def test_cues_are_written_from_the_memory_alone_and_only_once(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    text = "Upgrade an Odoo module in the Docker setup with docker exec odoo-web odoo -u MODULE --stop-after-init."
    _remembered(home, text)
    env = subprocess_env(home)
    folder = tmp_path / "answers"
    folder.mkdir()
    (folder / "set.json").write_text(json.dumps({"model": "m"}))
    run = [loreline_exe(), "reembed", "--cues", "--backend", f"recorded:{folder}"]
    first = subprocess.run(run, env=env, capture_output=True, text=True, check=False)
    assert first.returncode == 0, first.stderr
    assert "Wrote cues for 0 memories; 1 answers were unusable." in first.stdout
    answers = AnswerSet(folder)
    [key] = answers.pending()
    sent = answers.request(key)
    assert sent["tool"]["name"] == "write_cues" and "docker exec odoo-web" in sent["user"]
    assert "/home/dev/app" not in sent["user"]  # the memory's kind and text, nothing else
    answers.save_answer(key, {"questions": ["how do I upgrade a module?"], "topics": ["odoo", "module upgrade"]}, "t")
    second = subprocess.run(run, env=env, capture_output=True, text=True, check=True)
    assert "Wrote cues for 1 memories." in second.stdout
    shown = subprocess.run([loreline_exe(), "recall", "how do I upgrade a module?", "--project", "/home/dev/app"],
                           env=env, capture_output=True, text=True, check=True).stdout
    assert "docker exec odoo-web" in shown
    third = subprocess.run(run, env=env, capture_output=True, text=True, check=True)
    assert "Wrote cues for 0 memories." in third.stdout and len(list(answers.keys())) == 1  # never asked again


def test_an_answer_off_the_schema_writes_nothing(tmp_path: Path) -> None:
    from loreline.distill.recorded import RecordedCaller
    from loreline.errors import ModelOutputError

    folder = tmp_path / "a"
    folder.mkdir()
    answers = AnswerSet(folder)
    user = cue_writer.user_message("fact", "The API runs on port 8080.")
    key = request_key(cue_writer.CUES_TOOL, cue_writer.instructions(), user, "m")
    answers.save_request(key, cue_writer.CUES_TOOL, cue_writer.instructions(), user, "m")
    answers.save_answer(key, {"questions": ["q"] * 9, "topics": []}, "t")
    try:
        cue_writer.write(RecordedCaller(answers, "m"), "fact", "The API runs on port 8080.")
    except ModelOutputError as err:
        assert "schema" in str(err)
    else:
        raise AssertionError("an answer with nine questions was taken")
