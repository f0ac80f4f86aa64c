"""Cursor agent transcripts, the generic role/content format, format detection, discovery of
every tool's sessions, and robustness against broken files (truncation, NUL bytes, bad
UTF-8, a 50 MB line with bounded memory, deep nesting, wrong field types)."""

from __future__ import annotations

import gc
import os
import tracemalloc
from pathlib import Path
from typing import Any

import orjson
import pytest

from loreline.errors import TranscriptMissingError, UnknownFormatError
from loreline.models import ParseStats
from loreline.samples.builder import ClaudeSession
from loreline.assistants.cursor import sessions as cursor
from loreline.assistants.registry import DETECTORS, READERS, detect, parse
from loreline.transcripts import DETECT_RECORDS, generic
from loreline.assistants.registry import discover, discover_all
from loreline.transcripts.discover import Window
from loreline.transcripts.jsonl import MAX_LINE_BYTES, ReadPosition, iter_records
from tests.transcripts_helpers import (
    REAL_ROOT, cursor_assistant, cursor_user, response, session_meta, shape, text, tool_use, write_jsonl,
)

UUID = "7c9e6679-7425-40de-944b-e07fc1f90ae7"
NOW = 2_000_000_000.0
MEMORY_BLOCK = "<loreline-memories>\n- [preference] use pnpm, never npm\n</loreline-memories>"


# -- Cursor ---------------------------------------------------------------------------


def _cursor_session(folder: Path) -> Path:
    return write_jsonl(folder / UUID / f"{UUID}.jsonl", [
        cursor_user("<user_info>OS: linux</user_info>\n<attached_files>a.py</attached_files>\n"
                    "<user_query>\nAlways add type hints to new functions.\n</user_query>", wrap=False),
        cursor_assistant(text("[REDACTED]"), tool_use("Read", path="src/app.py")),
        cursor_assistant(text("I'll add them."), tool_use("StrReplace", path="src/app.py", old_string="a",
                                                          new_string="b")),
        cursor_assistant(tool_use("Grep", pattern="def ", path="src"), tool_use("Shell", command="pytest -q")),
        cursor_assistant(text("Done: hints added.")),
        {"role": "tool", "message": {"content": "ok"}},
        cursor_user(f"{MEMORY_BLOCK}\nthanks", wrap=True),
        cursor_user("<user_query>\nalso the tests\n</user_query>", wrap=False),
    ])


def test_cursor_transcript_turns_files_and_unknown_cwd(tmp_path: Path) -> None:
    path = _cursor_session(tmp_path / "projects" / "Users-me-acme" / "agent-transcripts")
    assert detect(path) == "cursor"
    t = parse(path).transcript
    # an edit and a command end the agent's turn; Cursor records no results, so the command has no outcome
    assert shape(t.turns) == [
        ("user", 1, 1, "Always add type hints to"),
        ("assistant", 3, 3, "I'll add them."),
        ("action", 3, 3, "src/app.py"),
        ("action", 4, 4, "pytest -q"),
        ("assistant", 5, 5, "Done: hints added."),
        ("user", 7, 7, "thanks"),
        ("user", 8, 8, "also the tests"),
    ]
    assert (t.turns[1].files, t.turns[2].files, t.turns[2].origin, t.turns[3].origin) == (
        ("src/app.py",), ("src/app.py",), "edited", "ran")
    assert (t.tool, t.session_id, t.cwd, t.started_at) == ("cursor", UUID, None, None)
    assert t.stats.dropped == {"cursor-context": 1, "redacted": 1, "block:tool_use": 4, "role:tool": 1,
                               "loreline-memories": 1}


def test_cursor_text_without_query_tags_loses_only_the_context_blocks(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / f"{UUID}.jsonl", [
        cursor_user("<rules>be brief</rules>\nPrefer composition over inheritance here.", wrap=False),
        {"role": "assistant", "message": {"content": "Understood."}},
        {"role": "user", "message": "not an object"},
    ])
    t = parse(path).transcript
    assert [x.text for x in t.turns] == ["Prefer composition over inheritance here.", "Understood."]
    assert t.stats.dropped == {"cursor-context": 1, "bad-message": 1}


def test_cwd_from_slug_is_a_last_resort_that_only_answers_when_unambiguous(tmp_path: Path) -> None:
    project = tmp_path / "work" / "my.app" / "sub_dir"
    project.mkdir(parents=True)
    (tmp_path / "work" / "twin-a").mkdir()
    (tmp_path / "work" / "twin_a").mkdir()

    def transcript_for(folder: Path) -> Path:
        slug = "".join(c if c.isascii() and c.isalnum() else "-" for c in str(folder)).lstrip("-")
        return tmp_path / ".cursor" / "projects" / slug / "agent-transcripts" / f"{UUID}.jsonl"

    assert cursor.cwd_from_slug(transcript_for(project)) == str(project)
    assert cursor.cwd_from_slug(transcript_for(tmp_path / "work" / "twin-a")) is None  # two folders match
    assert cursor.cwd_from_slug(transcript_for(tmp_path / "gone")) is None
    assert cursor.cwd_from_slug(tmp_path / "projects" / "empty-window" / "agent-transcripts" / "x.jsonl") is None
    assert parse(_cursor_session(transcript_for(project).parent)).transcript.cwd is None  # the reader never guesses


# -- generic --------------------------------------------------------------------------


def test_generic_role_content_lines(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "chat.jsonl", [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "We version the API in the URL, never in headers.", "cwd": "/work/api",
         "timestamp": "2025-08-01T12:00:00Z"},
        {"role": "assistant", "content": [text("Noted."), tool_use("Edit", file_path="/work/api/routes.py"),
                                          {"type": "thinking", "thinking": "hm"}]},
        {"role": "tool", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "ok"}]},
        {"role": "assistant", "content": "Routes updated."},
        {"role": "user", "content": [{"type": "image", "source": {"type": "base64", "data": "AAAA"}}]},
        {"role": "user", "content": 42},
    ])
    assert detect(path) == "generic"
    t = parse(path).transcript
    assert shape(t.turns) == [("user", 2, 2, "We version the API in"), ("assistant", 3, 3, "Noted."),
                              ("assistant", 5, 5, "Routes updated.")]
    assert t.turns[1].files == ("/work/api/routes.py",)
    assert (t.cwd, t.session_id, t.started_at, t.turns[0].timestamp) == (
        "/work/api", "chat", "2025-08-01T12:00:00Z", "2025-08-01T12:00:00Z")
    assert t.stats.dropped == {"role:system": 1, "role:tool": 1, "block:tool_use": 1, "block:thinking": 1,
                               "block:image": 1, "bad-content": 1}


# -- detection ------------------------------------------------------------------------


def _every_fixture_record() -> list[tuple[str, dict[str, Any]]]:
    out: list[tuple[str, dict[str, Any]]] = []
    for path in sorted(REAL_ROOT.rglob("*.jsonl")):
        tool = {"codex": "codex", "gemini": "gemini"}.get(path.parent.name, "claude-code")
        out.extend((tool, orjson.loads(line)) for line in path.read_bytes().splitlines())
    return out


def test_detectors_are_disjoint_on_every_real_and_synthetic_record(tmp_path: Path) -> None:
    records = _every_fixture_record()
    cursor_file = _cursor_session(tmp_path)
    records += [("cursor", orjson.loads(line)) for line in cursor_file.read_bytes().splitlines()]
    records += [("generic", {"role": "user", "content": "hi"}), ("generic", {"role": "tool", "content": []})]
    records += [("codex", {"record_type": "state"}), ("codex", {"id": UUID, "timestamp": "t", "instructions": ""}),
                ("codex", {"type": "message", "role": "user", "content": []})]
    for tool, record in records:
        matches = [name for name, looks_like in DETECTORS.items() if looks_like(record)]
        assert matches in ([tool], []), (tool, matches, str(record)[:200])
    assert sum(1 for tool, r in records if DETECTORS[tool](r)) > 0.9 * len(records)


def test_every_real_fixture_is_detected_as_its_tool() -> None:
    for path in sorted(REAL_ROOT.rglob("*.jsonl")):
        named = {"codex": "codex", "gemini": "gemini"}.get(path.parent.name, "claude-code")
        expected = None if path.stat().st_size == 0 else named
        assert detect(path) == expected, path
    assert set(READERS) == set(DETECTORS) == {"claude-code", "codex", "cursor", "gemini", "generic"}


def test_unknown_formats_name_the_file_and_degenerate_files_parse_empty(tmp_path: Path) -> None:
    odd = write_jsonl(tmp_path / "metrics.jsonl", [{"metric": "cpu", "value": i} for i in range(40)])
    with pytest.raises(UnknownFormatError, match="metrics.jsonl"):
        parse(odd)
    late = write_jsonl(tmp_path / "late.jsonl", [{"x": i} for i in range(DETECT_RECORDS)] +
                       [{"role": "user", "content": "too late to count"}])
    with pytest.raises(UnknownFormatError, match=f"looked at {DETECT_RECORDS} lines"):
        detect(late)
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_bytes(b"not json\n\x00\x01\x02\n[1, 2]\n\xff\xfe\n")
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    for path in (garbage, empty):
        t = parse(path).transcript
        assert t.turns == () and t.tool == "claude-code"
    assert parse(garbage).transcript.stats.dropped == {"invalid-json": 2, "not-an-object": 1, "invalid-utf8": 1}
    with pytest.raises(TranscriptMissingError, match="no such transcript"):
        parse(tmp_path / "gone.jsonl")
    with pytest.raises(TranscriptMissingError, match="not a file"):
        parse(tmp_path)


# -- robustness -----------------------------------------------------------------------


def _claude_lines() -> tuple[ClaudeSession, list[bytes]]:
    s = ClaudeSession("/work/acme")
    s.user("First, keep commits small.")
    s.assistant("OK.")
    s.user("Second, squash before merging.")
    return s, [line.encode() for line in s.text().splitlines(keepends=True)]


def test_truncated_nul_invalid_utf8_crlf_and_blank_lines_are_skipped_and_counted(tmp_path: Path) -> None:
    _, (one, two, three) = _claude_lines()
    path = tmp_path / "s.jsonl"
    path.write_bytes(one.replace(b"\n", b"\r\n") + b"\n" + b'{"type": "user", "x": "a\x00b"}\n' +
                     b"\x00\x00\x00\n" + two[:40] + b"\xc3\x28\n" + two + b"   \n" + three[:-30])
    t = parse(path).transcript
    assert shape(t.turns) == [("user", 1, 1, "First, keep commits small."), ("assistant", 6, 6, "OK.")]
    assert t.stats.dropped == {"invalid-json": 3, "invalid-utf8": 1, "blank-line": 2}
    assert (t.stats.bad_lines, t.stats.lines, t.lines_total) == (4, 8, 7)  # the unterminated tail is no watermark
    tail = parse(path, include_partial_tail=False)
    assert tail.end.line == 7 and tail.end.offset == path.stat().st_size - len(three[:-30])
    assert tail.transcript.stats.dropped == {"invalid-json": 2, "invalid-utf8": 1, "blank-line": 2}


def test_a_50_mb_line_is_skipped_with_bounded_memory(tmp_path: Path) -> None:
    _, (one, two, three) = _claude_lines()
    path = tmp_path / "huge.jsonl"
    with open(path, "wb") as handle:
        handle.write(one)
        handle.write(b'{"type": "user", "message": {"role": "user", "content": "')
        chunk = b"A" * (1024 * 1024)
        for _ in range(50):
            handle.write(chunk)
        handle.write(b'"}}\n')
        handle.write(two)
    del chunk
    gc.collect()
    tracemalloc.start()
    try:
        t = parse(path).transcript
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert path.stat().st_size > 50 * 1024 * 1024
    assert shape(t.turns) == [("user", 1, 1, "First, keep commits small."), ("assistant", 3, 3, "OK.")]
    assert t.stats.dropped == {"oversized-line": 1} and t.stats.bad_lines == 1
    assert peak < MAX_LINE_BYTES + 4 * 1024 * 1024, f"peak {peak / 1e6:.1f} MB"


def test_an_oversized_unterminated_last_line_and_a_line_spanning_blocks(tmp_path: Path) -> None:
    big = "x" * (3 * 1024 * 1024)
    s = ClaudeSession("/work/acme")
    line = s.user(f"Long paste follows: {big}")
    path = s.write(tmp_path / "s.jsonl")
    with open(path, "ab") as handle:
        handle.write(b'{"type":"user","pad":"' + b"y" * (MAX_LINE_BYTES + 10))
    t = parse(path).transcript
    assert [(x.line_start, len(x.text)) for x in t.turns] == [(line, len(big) + 20)]
    assert t.stats.dropped == {"oversized-line": 1}
    held = parse(path, include_partial_tail=False)
    assert held.transcript.stats.dropped == {} and held.end.line == 1


def test_deeply_nested_json_is_one_bad_line(tmp_path: Path) -> None:
    _, (one, _, _) = _claude_lines()
    path = tmp_path / "deep.jsonl"
    path.write_bytes(one + b'{"a":' * 5000 + b"1" + b"}" * 5000 + b"\n" + b"[" * 100_000 + b"\n")
    t = parse(path).transcript
    assert len(t.turns) == 1 and t.stats.dropped == {"invalid-json": 2}


def test_iter_records_tracks_positions_for_resuming(tmp_path: Path) -> None:
    _, lines = _claude_lines()
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"".join(lines))
    position = ReadPosition(1, len(lines[0]))
    with open(path, "rb") as handle:
        handle.seek(position.offset)
        numbers = [n for n, _ in iter_records(handle, ParseStats(), position)]
    assert numbers == [2, 3] and (position.line, position.offset) == (3, path.stat().st_size)


WRONG = [None, 3, "s", [0], {"k": "v"}]


@pytest.mark.parametrize("reader", ["cursor", "generic"])
def test_cursor_and_generic_survive_wrong_field_types(reader: str, tmp_path: Path) -> None:
    records = [orjson.loads(line) for line in _cursor_session(tmp_path).read_bytes().splitlines()]
    records += [{"role": "user", "content": "hi", "cwd": "/x"}, {"role": "assistant", "content": [text("a")]}]
    instance = READERS[reader](ParseStats())
    for lineno, record in enumerate(records, start=1):
        for value in WRONG:
            for key in ("role", "message", "content", "cwd", "timestamp"):
                instance.feed(lineno, {**record, key: value})
            message = record.get("message")
            if isinstance(message, dict):
                instance.feed(lineno, {**record, "message": {"content": value}})
                instance.feed(lineno, {**record, "message": {"content": [value, {"type": value, "text": value}]}})
    assert all(turn.text for turn in instance.finish())
    assert cursor.looks_like({"role": "user", "message": {}}) and generic.looks_like({"role": "x", "content": 1})


# -- discovery ------------------------------------------------------------------------


def _touch(path: Path, age_seconds: float, body: str = '{"record_type":"state"}\n') -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(body)
    os.utime(path, (NOW - age_seconds, NOW - age_seconds))
    return path


def test_discover_codex_sessions_archived_legacy_and_compressed(tmp_path: Path) -> None:
    home = tmp_path / "codex"
    new = _touch(home / "sessions/2026/11/29" / f"rollout-2026-11-29T10-00-00-{UUID}.jsonl", 3600)
    archived = _touch(home / "archived_sessions" / f"rollout-2026-11-20T10-00-00-{UUID}.jsonl", 7200)
    legacy = _touch(home / "sessions" / f"rollout-2025-04-20-{UUID}.json", 10_800)
    zst = _touch(home / "sessions/2026/11/28" / f"rollout-2026-11-28T10-00-00-{UUID}.jsonl.zst", 3600)
    busy = _touch(home / "sessions/2026/11/29" / f"rollout-2026-11-29T11-00-00-{UUID}.jsonl", 30)
    nested_json = _touch(home / "sessions/2026/11/27" / "rollout-notes.json", 3600)
    found = discover("codex", home, now=NOW)
    assert [f.path for f in found.sessions] == [new, archived, legacy]
    assert {f.tool for f in found.sessions} == {"codex"}
    reasons = dict(found.left_out)
    assert reasons[str(zst)] == "compressed rollout (.zst), not read"
    assert "still being written" in reasons[str(busy)]
    assert reasons[str(nested_json)] == "not a rollout file"
    assert "no Codex sessions folder" in discover("codex", tmp_path / "none", now=NOW).left_out[0][1]


def test_discover_cursor_nested_flat_subagents_and_legacy_text(tmp_path: Path) -> None:
    base = tmp_path / "cursor" / "projects" / "Users-me-acme" / "agent-transcripts"
    nested = _touch(base / UUID / f"{UUID}.jsonl", 3600)
    flat = _touch(base / "0b9f3c1e-1111-4222-8333-944455556666.jsonl", 7200)
    sub = _touch(base / UUID / "subagents" / "5d1e2f3a-0000-4000-8000-000000000001.jsonl", 3600)
    text_file = _touch(base / "old.txt", 3600)
    stray = _touch(base / UUID / "notes.jsonl", 3600)
    found = discover("cursor", tmp_path / "cursor", now=NOW)
    assert [f.path for f in found.sessions] == [nested, flat]
    reasons = dict(found.left_out)
    assert reasons[str(sub)] == "subagent sidecar, not a session"
    assert reasons[str(text_file)] == "legacy text transcript, not read"
    assert reasons[str(stray)] == "not a session file name"


def test_discover_all_shares_one_window_and_cap_across_tools(tmp_path: Path) -> None:
    claude = _touch(tmp_path / "claude/projects/-w" / f"{UUID}.jsonl", 1000)
    codex_new = _touch(tmp_path / "codex/sessions/2026/11/29" / f"rollout-x-{UUID}.jsonl", 2000)
    cursor_file = _touch(tmp_path / "cursor/projects/p/agent-transcripts" / f"{UUID}.jsonl", 3000)
    old = _touch(tmp_path / "codex/archived_sessions" / f"rollout-y-{UUID}.jsonl", 86_400 * 30)
    roots = {"claude-code": tmp_path / "claude", "codex": tmp_path / "codex", "cursor": tmp_path / "cursor",
             "gemini": tmp_path / "gemini"}
    found = discover_all(["all"], roots=roots, window=Window(days=14, max_sessions=2, now=NOW))
    assert [(f.path, f.tool) for f in found.sessions] == [(claude, "claude-code"), (codex_new, "codex")]
    reasons = dict(found.left_out)
    assert "cap of 2" in reasons[str(cursor_file)] and reasons[str(old)].startswith("older than 14 days")
    assert found.in_import_order() == [(codex_new, "codex"), (claude, "claude-code")]
    only = discover_all(["codex"], roots={"codex": tmp_path / "codex"}, window=Window(now=NOW))
    assert [f.path for f in only.sessions] == [codex_new]
    with pytest.raises(ValueError, match="unknown tool 'aider'"):
        discover_all(["aider"], window=Window(now=NOW))


def test_discovered_sessions_of_each_tool_parse(tmp_path: Path) -> None:
    rollout = write_jsonl(tmp_path / "codex/sessions/2026/11/29" / f"rollout-x-{UUID}.jsonl", [
        session_meta(UUID, "/work/acme"), response("user", "Use pnpm."), response("assistant", "OK.")])
    transcript = _cursor_session(tmp_path / "cursor/projects/p/agent-transcripts")
    for path in (rollout, transcript):
        os.utime(path, (NOW - 3600, NOW - 3600))
    found = discover_all(["codex", "cursor"], roots={"codex": tmp_path / "codex", "cursor": tmp_path / "cursor"},
                         window=Window(now=NOW))
    parsed = {tool: parse(path, tool=tool).transcript for path, tool in found.in_import_order()}
    assert parsed["codex"].cwd == "/work/acme" and len(parsed["codex"].turns) == 2
    assert parsed["cursor"].session_id == UUID and len(parsed["cursor"].turns) == 7
    assert {t.tool for t in parsed.values()} == {"cursor", "codex"}
