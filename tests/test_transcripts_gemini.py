"""Gemini CLI sessions (`assistants.gemini.sessions`), on files the released CLI 0.61.0 wrote
(`fixtures/real/gemini`, see SOURCES.md): turns with provenance at the line that holds their
final text, nothing read twice across a resume or an incremental import, injected context left
out, the working folder from `.project_root`, and discovery under `~/.gemini/tmp`."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

from loreline.assistants.registry import detect, parse
from loreline.assistants.registry import discover_all
from loreline.transcripts.discover import Window
from loreline.transcripts.jsonl import ReadPosition
from tests.conftest import REAL

GEMINI = REAL / "gemini"
TOOL_RESUME = GEMINI / "gemini-0.61.0-prompt-tool-resume.jsonl"
HOOKS = GEMINI / "gemini-0.61.0-hooks-resume-toolcall.jsonl"


def _line(path: Path, number: int) -> str:
    return path.read_text(encoding="utf-8").splitlines()[number - 1]


def test_turns_point_at_a_line_that_holds_their_final_text() -> None:
    parsed = parse(TOOL_RESUME).transcript
    assert parsed.tool == "gemini" and parsed.session_id == "fb0c175a-d604-46a8-b2ef-b305d2744c20"
    said = [(t.speaker, t.text) for t in parsed.turns]
    assert said == [
        ("user", "We use tabs in Makefiles, always. Please check the Makefile follows that."),
        ("assistant", "Understood, noted."),
        ("user", "Also: CI runs make lint before the tests."),
        ("assistant", "Understood, noted."),
    ]
    for turn in parsed.turns:
        assert turn.text in json.loads(_line(TOOL_RESUME, turn.line_start)).__repr__()
    # the resume re-lists the first exchange: its turns point at that (last) listing, once each
    assert parsed.turns[0].line_start == parsed.turns[1].line_start == 15
    assert parsed.turns[1].files == ("Makefile",)  # read_file's argument, from the reply's tool call
    assert parsed.turns[0].timestamp == "2026-12-01T16:05:05.911Z"  # when it was first written
    assert parsed.stats.dropped == {"session-context": 1, "tool-result": 1}


def test_an_incremental_read_keeps_only_messages_new_since_the_watermark() -> None:
    whole = parse(TOOL_RESUME)
    first = parse(TOOL_RESUME, start=ReadPosition(11, 0))
    assert [t.text for t in first.transcript.turns] == [t.text for t in whole.transcript.turns[2:]]
    assert parse(TOOL_RESUME, start=whole.end).transcript.turns == ()


def test_hook_context_and_the_session_preamble_are_never_the_person_s_words() -> None:
    parsed = parse(HOOKS).transcript
    users = [t.text for t in parsed.turns if t.speaker == "user"]
    assert users == ["Which CI step runs mypy, and how do we indent the Makefile?",
                     "Ask Loreline about our Makefile conventions."]
    assert not any("loreline-memories" in t.text or "session_context" in t.text for t in parsed.turns)
    assert parsed.stats.dropped["hook-context"] == 2


def test_detected_as_gemini_and_the_working_folder_read_from_project_root(tmp_path: Path) -> None:
    assert detect(TOOL_RESUME) == detect(HOOKS) == "gemini"
    chats = tmp_path / ".gemini" / "tmp" / "proj" / "chats"
    chats.mkdir(parents=True)
    (chats.parent / ".project_root").write_text("/home/dev/proj")
    copy = chats / TOOL_RESUME.name.replace("gemini-0.61.0-prompt-tool-resume", "session-2026-12-01T16-05-fb0c175a")
    shutil.copy(TOOL_RESUME, copy)
    assert parse(copy).transcript.cwd == "/home/dev/proj"
    assert parse(TOOL_RESUME).transcript.cwd is None  # no .project_root beside the fixture


def test_discovery_finds_chats_and_reports_the_old_single_document_ones(tmp_path: Path) -> None:
    now = time.time()
    chats = tmp_path / "tmp" / "proj" / "chats"
    chats.mkdir(parents=True)
    session = chats / "session-2026-12-01T16-05-fb0c175a.jsonl"
    shutil.copy(TOOL_RESUME, session)
    old = chats / "session-2025-01-01T10-00-aaaaaaaa.json"
    old.write_text('{"sessionId": "x", "messages": []}')
    live = chats / "session-2026-12-01T16-06-bbbbbbbb.jsonl"
    live.write_text(_line(TOOL_RESUME, 1) + "\n")
    for path in (session, old):
        os.utime(path, (now - 3600, now - 3600))
    found = discover_all(["gemini"], roots={"gemini": tmp_path}, window=Window(now=now))
    assert [(f.path, f.tool) for f in found.sessions] == [(session, "gemini")]
    reasons = dict(found.left_out)
    assert "single-document" in reasons[str(old)] and "still being written" in reasons[str(live)]
    assert "no Gemini CLI sessions folder" in discover_all(
        ["gemini"], roots={"gemini": tmp_path / "none"}, window=Window(now=now)).left_out[0][1]


def test_import_sessions_tool_gemini_imports_with_provenance(loreline_home: Path, tmp_path: Path) -> None:
    from tests.test_native import cli

    project = tmp_path / "proj"
    project.mkdir()
    chats = tmp_path / "gemini" / "tmp" / "proj" / "chats"
    chats.mkdir(parents=True)
    (chats.parent / ".project_root").write_text(str(project))
    session = chats / "session-2026-12-01T16-05-fb0c175a.jsonl"
    shutil.copy(TOOL_RESUME, session)
    hour_ago = time.time() - 3600
    os.utime(session, (hour_ago, hour_ago))
    out = cli(loreline_home, "import", "sessions", "--tool", "gemini", "--gemini-dir", str(tmp_path / "gemini"),
              "--backend", "rules", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["sessions"]["imported"] == 1
    listed = json.loads(cli(loreline_home, "memories", "--project", str(project), "--json").stdout)
    tabs = [m for m in listed if "tabs in Makefiles" in m["text"]]
    assert tabs, [m["text"] for m in listed]
    [source] = tabs[0]["provenance"]
    assert (source["tool"], source["session_path"]) == ("gemini", str(session))
    assert "tabs in Makefiles" in _line(session, source["line_start"])
