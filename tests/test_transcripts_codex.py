"""Codex CLI rollouts: every real fixture's exact turns and drops; synthetic files for the
shapes no real fixture shows (event-only logs, pre-envelope JSONL, the TypeScript CLI's JSON
document, apply_patch calls, AGENTS.md and Loreline's own injected notes)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest

from loreline.errors import UnknownFormatError
from loreline.models import ParseStats
from loreline.assistants.codex import sessions as codex
from loreline.assistants.registry import detect, parse
from loreline.transcripts.jsonl import ReadPosition
from tests.transcripts_helpers import (
    REAL_ROOT, STAMP, agent_event, call_output, envelope, environment, function_call, item_message, response,
    session_meta, shape, user_event, write_jsonl,
)

CX = REAL_ROOT / "codex"
SID = "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"
MEMORY_BLOCK = "<loreline-memories>\n- [preference] use pnpm, never npm\n</loreline-memories>"

#: file -> (kept turns as (speaker, first line, last line, first words), every drop by reason)
EXPECTED: dict[str, tuple[list[tuple[str, int, int, str]], dict[str, int]]] = {
    "codex-0.135.0-exec-redacted.jsonl": (
        [
            ("user", 6, 6, '[REDACTED_PROMPT]'),
            ("assistant", 9, 9, '[REDACTED_ASSISTANT_TEXT]'),
        ],
        {'duplicate-stream': 2, 'environment-context': 1, 'event:task_complete': 1, 'event:task_started': 1,
         'event:token_count': 1, 'line-type:session_meta': 1, 'line-type:turn_context': 1, 'role:developer': 1},
    ),
    "codex-0.171.0-exec-resume-compact.jsonl": (
        [
            ("user", 9, 9, 'In this repo always use'),
            ("assistant", 12, 12, 'Understood: we will use pnpm'),
            ("user", 20, 20, 'Also: tests run with vitest.'),
            ("assistant", 23, 23, 'Understood: we will use pnpm'),
            ("user", 41, 41, 'Third prompt.'),
            ("assistant", 44, 44, 'Understood: we will use pnpm'),
        ],
        {'compacted': 1, 'compaction-output': 1, 'duplicate-stream': 6, 'environment-context': 1,
         'event:item_completed': 1, 'event:task_complete': 3, 'event:task_started': 3,
         'event:thread_settings_applied': 4, 'event:token_count': 6, 'line-type:session_meta': 1,
         'line-type:token_usage_record': 4, 'line-type:turn_context': 3, 'line-type:world_state': 2,
         'role:developer': 5},
    ),
    "codex-0.40.0-input-image.jsonl": (
        [
            ("user", 3, 3, 'When I load the dashboard,'),
            ("assistant", 104, 104, '**What You’re Seeing** - `useTeamLeads()`'),
            ("user", 105, 105, "so prefetching isn't slowing down"),
            ("assistant", 112, 112, '**Impact On Initial Load** -'),
        ],
        {'block:input_image': 1, 'duplicate-stream': 4, 'environment-context': 1, 'event:agent_reasoning': 17,
         'event:token_count': 18, 'ide-context': 2, 'line-type:session_meta': 1, 'line-type:turn_context': 18,
         'reasoning': 17, 'tool-call': 16, 'tool-output': 16},
    ),
    "codex-0.40.0-tool-calls.jsonl": (
        [
            ("user", 3, 3, 'Evaluate @packages/services and create a'),
            ("assistant", 209, 209, '**Findings** - `@repo/services` wraps Supabase'),
        ],
        {'duplicate-stream': 2, 'environment-context': 1, 'event:agent_reasoning': 32, 'event:token_count': 35,
         'ide-context': 1, 'line-type:session_meta': 1, 'line-type:turn_context': 35, 'reasoning': 33,
         'tool-call': 34, 'tool-output': 34},
    ),
}


def test_every_real_codex_file_is_covered() -> None:
    assert sorted(EXPECTED) == sorted(p.name for p in CX.glob("*.jsonl"))


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_real_rollout_turns_and_drops_are_exact(name: str) -> None:
    turns, dropped = EXPECTED[name]
    assert detect(CX / name) == "codex"
    t = parse(CX / name).transcript
    assert t.tool == "codex"
    assert shape(t.turns) == turns
    assert t.stats.dropped == dropped
    assert t.stats.bad_lines == 0


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_line_numbers_are_physical_lines_of_the_rollout(name: str) -> None:
    lines = (CX / name).read_text(encoding="utf-8").splitlines()
    t = parse(CX / name).transcript
    for turn in t.turns:
        record = orjson.loads(lines[turn.line_start - 1])
        if turn.speaker == "action":  # on its call's line
            assert record["type"] == "response_item" and record["payload"]["type"] == "function_call"
            continue
        assert record["type"] == "response_item" and record["payload"]["role"] == turn.speaker
        said = " ".join(part.get("text", "") for part in record["payload"]["content"])
        assert turn.text[:60] in said


def test_identity_comes_from_session_meta() -> None:
    t = parse(CX / "codex-0.171.0-exec-resume-compact.jsonl").transcript
    assert (t.session_id, t.cwd) == ("01a22833-07a2-76f2-ad97-67f3cb132fad", "/home/dev/cproj")
    assert t.started_at == "2026-11-29T16:46:02.666Z"
    old = parse(CX / "codex-0.40.0-input-image.jsonl").transcript
    assert (old.session_id, old.cwd) == ("01997ea4-a70d-7da3-8c20-c736db82a7c5",
                                         "/Users/jnarowski/Dev/spectora/src/spectora-labs-monorepo-v2")


def test_files_come_from_tool_calls_and_the_ide_active_file() -> None:
    t = parse(CX / "codex-0.40.0-tool-calls.jsonl").transcript
    prompt, answer = t.turns
    assert prompt.files == ("apps/spectora-labs/src/lib/prisma/db.ts",)  # "## Active file:" of the IDE wrapper
    assert len(answer.files) == 23 and answer.files[:2] == ("packages/services/src/createService.ts",
                                                             "packages/services/src/types.ts")
    assert "packages/services/eslint.config.js" in answer.files
    image = parse(CX / "codex-0.40.0-input-image.jsonl").transcript
    assert all(f.startswith("/Users/jnarowski/") and not f.endswith("/app") for f in image.turns[1].files)


def test_event_stream_is_used_when_a_file_has_no_response_messages(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / f"rollout-2025-10-02T10-00-00-{SID}.jsonl", [
        session_meta(SID, "/work/acme"),
        user_event("We deploy with fly, never heroku."),
        envelope("event_msg", {"type": "agent_reasoning", "text": "**Thinking**"}),
        function_call("shell", {"command": ["bash", "-lc", "cat fly.toml"], "workdir": "/work/acme"}),
        call_output(),
        agent_event("Using fly."),
        envelope("event_msg", {"type": "user_message", "message": "<environment_context>x</environment_context>",
                               "kind": "environment_context"}),
        envelope("event_msg", {"type": "item_completed", "item": {"type": "UserMessage", "content": [
            {"type": "text", "text": "And keep staging small."}]}}),
    ])
    t = parse(path).transcript
    assert shape(t.turns) == [("user", 2, 2, "We deploy with fly, never"), ("assistant", 6, 6, "Using fly."),
                              ("user", 8, 8, "And keep staging small.")]
    assert t.turns[1].files == ("/work/acme/fly.toml",)
    assert t.stats.dropped["environment-context"] == 1 and "duplicate-stream" not in t.stats.dropped


def test_response_stream_wins_and_the_event_copy_is_counted_once(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "r.jsonl", [
        session_meta(SID, "/work/acme"), environment("/work/acme"),
        response("user", f"{MEMORY_BLOCK}\nUse uv for Python deps."),
        user_event(f"{MEMORY_BLOCK}\nUse uv for Python deps."),
        agent_event("OK, uv."), response("assistant", "OK, uv."),
    ])
    t = parse(path).transcript
    assert shape(t.turns) == [("user", 3, 3, "Use uv for Python deps."), ("assistant", 6, 6, "OK, uv.")]
    assert t.stats.dropped["duplicate-stream"] == 2
    assert t.stats.dropped["loreline-memories"] == 1  # counted in the kept stream only


def test_injected_instructions_developer_notes_and_our_memory_block_are_never_turns(tmp_path: Path) -> None:
    agents = "# AGENTS.md instructions for /work/acme\n\n<INSTRUCTIONS>\nRun make test.\n</INSTRUCTIONS>"
    path = write_jsonl(tmp_path / "r.jsonl", [
        session_meta(SID, "/work/acme"),
        envelope("response_item", item_message("developer", MEMORY_BLOCK)),
        envelope("response_item", item_message("developer", "<permissions instructions>x</permissions instructions>")),
        response("user", agents),
        response("user", "<user_instructions>\nBe terse.\n</user_instructions>"),
        response("user", MEMORY_BLOCK),
        response("user", f"{MEMORY_BLOCK}\n<environment_context>\n<cwd>/work/acme</cwd>\n</environment_context>"),
        response("user", "<turn_aborted>interrupted</turn_aborted>"),
        response("user", "# Context from my IDE setup:\n\n## Active file: src/a.ts\n\n## Open tabs:\n- a.ts"),
        envelope("response_item", {"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": MEMORY_BLOCK},
            {"type": "input_text", "text": "Split the parser into modules."}]}),
        response("assistant", f"Splitting. {MEMORY_BLOCK}"),
    ])
    t = parse(path).transcript
    assert shape(t.turns) == [("user", 10, 10, "Split the parser into modules."), ("assistant", 11, 11, "Splitting.")]
    assert t.turns[0].files == ()
    dropped = t.stats.dropped
    assert (dropped["loreline-memories"], dropped["agents-md"], dropped["role:developer"]) == (5, 2, 1)
    assert dropped["environment-context"] == 1
    assert (dropped["interrupt"], dropped["ide-context"]) == (1, 1)


def test_apply_patch_in_every_encoding_names_its_files(tmp_path: Path) -> None:
    patch = ("*** Begin Patch\n*** Update File: src/app.py\n@@\n-a\n+b\n*** Add File: src/new.py\n+x\n"
             "*** Delete File: src/old.py\n*** Update File: src/mv.py\n*** Move to: src/moved.py\n*** End Patch")
    path = write_jsonl(tmp_path / "r.jsonl", [
        session_meta(SID, "/work/acme"), response("user", "Refactor app.py."),
        envelope("response_item", {"type": "custom_tool_call", "name": "apply_patch", "input": patch, "call_id": "c"}),
        envelope("response_item", {"type": "custom_tool_call_output", "call_id": "c", "output": "Done!"}),
        function_call("apply_patch", {"input": patch.replace("src/", "lib/")}),
        function_call("shell", {"command": ["apply_patch", patch.replace("src/", "pkg/")]}),
        function_call("exec_command", {"cmd": f"apply_patch <<'EOF'\n{patch.replace('src/', 'web/')}\nEOF",
                                       "workdir": "/work/acme"}),
        envelope("response_item", {"type": "local_shell_call", "call_id": "l", "status": "completed", "action": {
            "type": "exec", "command": ["bash", "-lc", "nl -ba docs/guide.md | head -40"]}}),
        function_call("mcp__fs__read", {"path": "/work/acme/README.md"}),
        response("assistant", "Refactored."),
    ])
    t = parse(path).transcript
    files = t.turns[-1].files
    for folder in ("src", "lib", "pkg", "web"):
        assert {f"{folder}/{n}.py" for n in ("app", "new", "old", "mv", "moved")} <= set(files)
    assert "docs/guide.md" in files and "/work/acme/README.md" in files
    assert len(files) == 22
    assert t.stats.dropped["tool-call"] == 6 and t.stats.dropped["tool-output"] == 1


def test_compaction_summary_and_summariser_output_are_derived_text(tmp_path: Path) -> None:
    summary = "Another language model started to solve this problem and produced a summary: pnpm."
    path = write_jsonl(tmp_path / "r.jsonl", [
        session_meta(SID, "/work/acme"), response("user", "Use pnpm."),
        {**response("assistant", "pnpm noted."), "metadata": {"compaction_output": True}},
        envelope("compacted", {"message": summary, "replacement_history": [item_message("user", "Use pnpm.")]}),
        envelope("event_msg", {"type": "context_compacted"}),
        response("user", "Next: vitest."),
    ])
    t = parse(path).transcript
    assert [x.text for x in t.turns] == ["Use pnpm.", "Next: vitest."]
    assert t.stats.dropped["compacted"] == 1 and t.stats.dropped["compaction-output"] == 1


def test_pre_envelope_rollout_with_state_markers(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / f"rollout-2025-06-01-{SID}.jsonl", [
        {"id": SID, "timestamp": "2025-06-01T09:00:00.000Z", "instructions": None,
         "git": {"commit_hash": "abc", "branch": "main"}},
        {"record_type": "state"},
        item_message("user", "<environment_context>\n<cwd>/work/old</cwd>\n</environment_context>"),
        item_message("user", "Prefer tabs in the Makefile."),
        {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAAA" * 200},
        {"type": "function_call", "name": "shell", "arguments": json.dumps({"command": ["cat", "Makefile"]}),
         "call_id": "c1"},
        {"type": "function_call_output", "call_id": "c1", "output": "all:"},
        {"record_type": "state"},
        item_message("assistant", "Tabs it is."),
    ])
    assert detect(path) == "codex"
    t = parse(path).transcript
    assert shape(t.turns) == [("user", 4, 4, "Prefer tabs in the Makefile."), ("assistant", 9, 9, "Tabs it is.")]
    assert t.turns[1].files == ("Makefile",)
    assert (t.session_id, t.cwd, t.started_at) == (SID, None, "2025-06-01T09:00:00.000Z")
    assert t.stats.dropped["line-type:state"] == 2 and t.stats.dropped["environment-context"] == 1


def _ts_document(path: Path, items: list[Any]) -> Path:
    doc = {"session": {"timestamp": "2025-04-20T08:00:00.000Z", "id": SID, "instructions": ""}, "items": items}
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    return path


def test_typescript_cli_json_document_uses_item_positions_as_lines(tmp_path: Path) -> None:
    path = _ts_document(tmp_path / f"rollout-2025-04-20-{SID}.json", [
        item_message("user", "Always run prettier before commit."),
        {"type": "function_call", "name": "shell", "arguments": json.dumps({"command": ["cat", "package.json"]}),
         "call_id": "c"},
        {"type": "function_call_output", "call_id": "c", "output": "{}"},
        "not an item",
        item_message("assistant", "Will do."),
    ])
    assert detect(path) == "codex"
    result = parse(path)
    t = result.transcript
    assert shape(t.turns) == [("user", 1, 1, "Always run prettier before commit."), ("assistant", 5, 5, "Will do.")]
    assert t.turns[1].files == ("package.json",)
    assert (t.session_id, t.tool, t.lines_total, t.started_at) == (SID, "codex", 5, "2025-04-20T08:00:00.000Z")
    assert t.stats.dropped["not-an-object"] == 1
    assert (result.end.line, result.end.offset) == (5, path.stat().st_size)
    again = parse(path, tool="codex", start=ReadPosition(3, 100))
    assert shape(again.transcript.turns) == shape(t.turns)  # a document is always read whole


def test_json_documents_that_are_not_codex_or_too_big(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gemini = tmp_path / "session-2025-05-01.json"
    gemini.write_text(json.dumps({"sessionId": "x", "messages": [{"type": "user", "content": "hi"}]}))
    with pytest.raises(UnknownFormatError, match="session-2025-05-01.json"):
        parse(gemini)
    big = _ts_document(tmp_path / "rollout-big.json", [item_message("user", "x" * 5000)])
    monkeypatch.setattr(codex, "MAX_DOCUMENT_BYTES", 1000)
    t = parse(big).transcript
    assert t.turns == () and t.stats.dropped == {"oversized-document": 1}
    broken = tmp_path / "rollout-broken.json"
    broken.write_text('{"session": {"id": "x"}, "items": [')
    assert parse(broken).transcript.stats.dropped == {"invalid-json": 1}
    (tmp_path / "empty.json").write_text("")
    assert parse(tmp_path / "empty.json").transcript.turns == ()


def test_resuming_mid_file_keeps_physical_numbers_and_the_name_gives_the_session(tmp_path: Path) -> None:
    source = CX / "codex-0.171.0-exec-resume-compact.jsonl"
    path = tmp_path / f"rollout-2026-11-29T16-46-02-{'01a22833-07a2-76f2-ad97-67f3cb132fad'}.jsonl"
    path.write_bytes(source.read_bytes())
    head = b"".join(source.read_bytes().splitlines(keepends=True)[:16])
    t = parse(path, tool="codex", start=ReadPosition(16, len(head))).transcript
    assert shape(t.turns) == shape(parse(source).transcript.turns)[2:]
    assert t.session_id == "01a22833-07a2-76f2-ad97-67f3cb132fad" and t.cwd == "/home/dev/cproj"


WRONG = [None, 7, "text", [1], {"a": 1}]


@pytest.mark.parametrize("value", WRONG, ids=[type(v).__name__ for v in WRONG])
def test_wrong_field_types_are_counted_never_fatal(value: Any) -> None:
    records = [orjson.loads(line) for path in sorted(CX.glob("*.jsonl")) if path.stat().st_size < 250_000
               for line in path.read_bytes().splitlines()]
    reader = codex.CodexReader(ParseStats())
    for lineno, record in enumerate(records, start=1):
        for key in record:
            reader.feed(lineno, {**record, key: value})
        payload = record.get("payload")
        if isinstance(payload, dict):
            for key in payload:
                reader.feed(lineno, {**record, "payload": {**payload, key: value}})
            reader.feed(lineno, {**payload, "type": payload.get("type"), "arguments": value, "input": value})
    turns = reader.finish()
    assert all(isinstance(turn.text, str) and turn.text for turn in turns)
