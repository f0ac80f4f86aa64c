"""Claude Code transcripts: every real fixture's exact turns and drops, and the edge cases
of research/formats.md §3 that the real files do not show, written with the sample builder."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from loreline.models import ParseStats
from loreline.samples.builder import ClaudeSession
from loreline.assistants.claude_code import sessions as claude_code
from loreline.assistants.registry import parse
from tests.transcripts_helpers import REAL_ROOT, shape

CC = REAL_ROOT / "claude-code"
TREE = CC / "tree" / "-experiments-worktrees"
MEMORY_BLOCK = "<loreline-memories>\n- [preference] use pnpm, never npm\n</loreline-memories>"

#: relative path -> (kept turns as (speaker, first line, last line, first words), every drop by reason)
EXPECTED: dict[str, tuple[list[tuple[str, int, int, str]], dict[str, int]]] = {
    "cc-1.0.108-inline-sidechain.jsonl": (
        [
            ("user", 1, 1, '/orchestrator @CLAUDE.md を最新の状態にアップデートしてください'),
            ("assistant", 3, 4, "I'll help you update the"),
            ("assistant", 44, 44, "Now I'll update the CLAUDE.md"),
            ("action", 49, 49, "CLAUDE.md"),
            ("assistant", 53, 53, 'CLAUDE.mdファイルを最新の状態にアップデートしました。主な更新内容： **技術スタック更新:** - Next.js 15.5.2'),
        ],
        {'block:tool_result': 13, 'block:tool_use': 13, 'meta': 1, 'sidechain': 22},
    ),
    "cc-1.0.128-user-image.jsonl": (
        [
            ("user", 4, 4, '[Image #1] Can you please'),
            ("assistant", 5, 6, "I'll add margin-bottom to the"),
            ("assistant", 8, 8, "I can see the CSS"),
            ("action", 9, 9, "public/tokenizer.css"),
            ("assistant", 11, 11, "I've added margin-bottom to details"),
        ],
        {'block:image': 1, 'block:tool_result': 2, 'block:tool_use': 2, 'local-command': 2, 'meta': 2,
         'slash-command': 2},
    ),
    "cc-1.0.53-summaries-hook-system.jsonl": (
        [
            ("user", 4, 4, 'now we have cache so'),
            ("assistant", 5, 6, "I'll help you modify the"),
            ("assistant", 8, 9, 'Now let me examine the'),
            ("assistant", 13, 13, "Now I'll modify the `action_export_selected`"),
            ("action", 14, 14, "claude_code_log/tui.py"),
            ("assistant", 18, 18, "Now I need to remove"),
            ("action", 19, 19, "claude_code_log/tui.py"),
            ("assistant", 23, 24, 'Wait, I need to check'),
            ("assistant", 26, 26, "I see that `convert_jsonl_to_html` is"),
            ("action", 27, 27, "claude_code_log/tui.py"),
            ("assistant", 31, 31, "Now I need to remove"),
            ("action", 32, 32, "claude_code_log/tui.py"),
            ("assistant", 38, 38, "Perfect! I've successfully modified the"),
        ],
        {'block:tool_result': 9, 'block:tool_use': 9, 'line-type:summary': 3, 'line-type:system': 8},
    ),
    "cc-2.0.26-toolresult-image-interrupt.jsonl": (
        [
            ("user", 6, 6, 'please move the + button'),
            ("assistant", 7, 9, "I'll help you move the"),
            ("user", 14, 14, 'not the new session button.'),
            ("assistant", 17, 18, 'I can see the screenshot'),
            ("user", 19, 19, 'Where exactly should the +'),  # the AskUserQuestion answer
            ("assistant", 20, 21, 'Perfect! Now I understand. You'),
            ("user", 25, 25, 'Completely outside the search bar'),
            ("assistant", 26, 27, 'Got it! You want the'),
            ("action", 31, 31, "apps/web/src/client/components/CommandMenu.tsx"),
            ("assistant", 36, 36, "Perfect! I've moved the Plus"),
            ("user", 38, 38, "let's give the button a"),
            ("action", 39, 39, "apps/web/src/client/components/CommandMenu.tsx"),
            ("assistant", 41, 41, "Done! I've changed the button"),
        ],
        {'block:tool_result': 9, 'block:tool_use': 10, 'interrupt': 2, 'line-type:file-history-snapshot': 6,
         'local-command': 1, 'meta': 1, 'slash-command': 1},
    ),
    "cc-2.0.28-resumed-many-summaries.jsonl": (
        [
            ("user", 12, 12, 'search the web for the'),
            ("assistant", 15, 16, "I'll search the web for"),
            ("assistant", 22, 24, 'I see your follow-up question.'),
            ("assistant", 27, 29, 'Based on my research, I'),
        ],
        {'block:tool_result': 5, 'block:tool_use': 5, 'line-type:file-history-snapshot': 1, 'line-type:summary': 16},
    ),
    "cc-2.0.37-root-agent-warmup.jsonl": (
        [
        ],
        {'warmup-agent': 2},
    ),
    "cc-2.1.17-headless-print.jsonl": (
        [
            ("user", 3, 3, 'What are the tools that'),
            ("assistant", 4, 4, 'Here are all the tools'),
        ],
        {'line-type:progress': 1, 'line-type:queue-operation': 1},
    ),
    "cc-2.1.332-headless-continue-compact.jsonl": (
        [
            ("user", 5, 5, 'In this repo always use'),
            ("assistant", 20, 20, 'Summary: user wants pnpm, never'),
            ("user", 31, 31, 'Also: tests run with vitest.'),
            ("assistant", 33, 33, 'Understood: we will use pnpm'),
        ],
        {'compact-boundary': 1, 'compaction-summary': 1, 'hook-context': 4, 'line-type:api-request': 2,
         'line-type:api-request-blob': 2, 'line-type:api-request-shape': 1, 'line-type:atis-latch': 4,
         'line-type:attachment': 15, 'line-type:cost-state': 3, 'line-type:last-prompt': 5, 'line-type:mode': 2,
         'line-type:queue-operation': 6, 'line-type:system': 2, 'local-command': 1, 'meta': 1,
         'slash-command': 1},
    ),
    "cc-2.1.38-short-local-command.jsonl": (
        [
            ("user", 4, 4, 'mix phx.server doesnt seem to'),
            ("assistant", 7, 7, "Let me check the project"),
            ("action", 8, 8, "Bash: mix phx.server 2>&1 |"),
            ("action", 10, 10, "Glob: mix.exs"),
        ],
        {'block:thinking': 1, 'block:tool_result': 2, 'block:tool_use': 2, 'interrupt': 1,
         'line-type:file-history-snapshot': 1, 'line-type:progress': 3, 'local-command': 2},
    ),
    "cc-2.1.38-tool-heavy.jsonl": (
        [
            ("user", 4, 4, 'start phoenix in background'),
            ("action", 5, 5, "mix phx.server → running in"),
            ("assistant", 12, 13, 'Phoenix server is starting in'),
            ("user", 26, 26, 'scrolling back in xterm.js still'),
        ],
        {'block:thinking': 1, 'block:tool_result': 6, 'block:tool_use': 6, 'interrupt': 2,
         'line-type:file-history-snapshot': 3, 'line-type:progress': 10, 'line-type:queue-operation': 2,
         'local-command': 3, 'meta': 1, 'slash-command': 1},
    ),
    "cc-2.1.39-agent-acompact.jsonl": (
        [
        ],
        {'compaction-agent': 4},
    ),
    "cc-2.1.39-compaction-excerpt.jsonl": (
        [
            ("assistant", 9, 9, "The root layout doesn't render"),
            ("action", 10, 10, "lib/spotter_web/live/project_review_live.ex"),
            ("assistant", 28, 29, 'Continuing with gqc.6 — I'),
            ("action", 33, 33, "test/spotter_web/live/project_review_live_test.exs"),
            ("assistant", 44, 44, "Now let me run compile,"),
            ("action", 45, 45, "mix compile --warnings-as-errors 2>&1 →"),
            ("action", 55, 55, "mix test test/spotter_web/live/project_review_live_test.exs 2>&1 →"),
        ],
        {'block:thinking': 1, 'block:tool_result': 7, 'block:tool_use': 7, 'compact-boundary': 1,
         'compaction-summary': 1, 'line-type:progress': 50},
    ),
    "cc-2.1.42-stop-hook-summary.jsonl": (
        [
            ("user", 3, 3, "Ok, so there's isn't much"),
            ("assistant", 6, 7, 'Let me take a look'),
            ("assistant", 14, 14, 'Got it. One idea file'),
            ("user", 18, 18, 'I very much like this'),
            ("assistant", 21, 21, '- **Clear separation of concerns**'),
            ("user", 25, 25, 'OK, so, to be fair,'),
            ("assistant", 28, 28, '- **Boundary is often blurry**'),
            ("user", 32, 32, 'Fair enough. Can you write'),
            ("assistant", 33, 33, "The convention's real value is"),
            ("user", 38, 38, "I actually don't like much"),
            ("assistant", 41, 41, 'Here are 5 weak points'),
            ("user", 45, 45, 'Ok, so, to be fair,'),
            ("assistant", 48, 48, '- **Clear intent signal**: The'),
            ("user", 52, 52, 'Fair enough. Can you write'),
            ("assistant", 55, 55, 'The `dev-docs/` vs `work/` split'),
        ],
        {'block:thinking': 6, 'block:tool_result': 2, 'block:tool_use': 2, 'line-type:file-history-snapshot': 9,
         'line-type:progress': 11, 'line-type:system': 7, 'local-command': 1, 'meta': 1, 'slash-command': 1},
    ),
    "cc-empty-0-bytes.jsonl": (
        [
        ],
        {},
    ),
    "cc-file-history-snapshot-only.jsonl": (
        [
        ],
        {'line-type:file-history-snapshot': 4},
    ),
    "cc-summary-only.jsonl": (
        [
        ],
        {'line-type:summary': 1},
    ),
    "tree/-experiments-worktrees/ef958aa1-0e93-49f0-bb71-150f63befcd1/subagents/agent-a36efb2a1231c41e2.jsonl": (
        [
        ],
        {'sidechain': 18},
    ),
    "tree/-experiments-worktrees/ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl": (
        [
            ("user", 5, 5, "OK, we're going to make"),
            ("assistant", 10, 11, "I'll orchestrate this experiment. Let"),
            ("assistant", 19, 35, 'Clean master on `master` branch.'),
            ("assistant", 66, 67, 'All three teammates returned with'),
            ("action", 83, 83, "git merge --no-ff alice/research-plan-mode bob/research-teammates"),
            ("assistant", 92, 105, 'Round 1 merged cleanly. Now'),
            ("assistant", 111, 111, 'Round 2 dispatched to alice,'),
            ("user", 117, 117, 'Well, the subagents seem to'),
            ("action", 127, 127, "for d in .claude/worktrees/agent-*; do"),
            ("assistant", 134, 137, 'Worktrees are clean and still'),
            ("assistant", 148, 152, "All three round-2 agents completed."),
            ("action", 155, 155, "git fetch --all 2>&1 |"),
            ("action", 161, 161, "git merge --no-ff alice/research-plan-mode bob/research-teammates"),
            ("assistant", 170, 170, 'Experiment complete. All six tasks'),
        ],
        {'block:thinking': 14, 'block:tool_result': 40, 'block:tool_use': 40, 'hook-context': 46,
         'line-type:attachment': 3, 'line-type:file-history-snapshot': 3, 'line-type:last-prompt': 7,
         'line-type:permission-mode': 8, 'line-type:system': 6, 'local-command': 1, 'meta': 1, 'slash-command': 1},
    ),
}


def test_every_real_claude_file_is_covered() -> None:
    assert sorted(EXPECTED) == sorted(str(p.relative_to(CC)) for p in CC.rglob("*.jsonl"))


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_real_file_turns_and_drops_are_exact(name: str) -> None:
    turns, dropped = EXPECTED[name]
    t = parse(CC / name).transcript
    assert t.tool == "claude-code"
    assert shape(t.turns) == turns
    assert t.stats.dropped == dropped
    assert t.stats.bad_lines == 0


def test_identity_comes_from_the_lines_not_the_folder_name() -> None:
    t = parse(TREE / "ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl").transcript
    assert t.session_id == "ef958aa1-0e93-49f0-bb71-150f63befcd1"
    assert t.cwd == "-experiments/worktrees"  # anonymised by its publisher; never decoded from the slug
    assert t.started_at is not None and t.started_at.startswith("20")
    assert t.lines_total == 180
    empty = parse(CC / "cc-empty-0-bytes.jsonl").transcript
    assert (empty.turns, empty.session_id, empty.cwd, empty.lines_total) == ((), "cc-empty-0-bytes", None, 0)


def test_split_message_is_one_turn_and_keeps_the_files_its_tools_touched() -> None:
    t = parse(CC / "cc-2.0.26-toolresult-image-interrupt.jsonl").transcript
    first = t.turns[1]
    assert (first.line_start, first.line_end) == (7, 9)
    assert [Path(f).name for f in first.files] == ["CommandMenu.tsx", "NewSessionButton.tsx"]
    sidechains = parse(CC / "cc-1.0.108-inline-sidechain.jsonl").transcript
    assert sidechains.turns[2].files == ("/path/to/Demo/CLAUDE.md",)
    # Glob/Grep `path` is a folder searched, not a file read
    short = parse(CC / "cc-2.1.38-short-local-command.jsonl").transcript
    assert short.turns[1].files == ()


def test_slash_command_arguments_are_the_persons_words() -> None:
    t = parse(CC / "cc-1.0.108-inline-sidechain.jsonl").transcript
    assert t.turns[0].text == "/orchestrator @CLAUDE.md を最新の状態にアップデートしてください"
    s = ClaudeSession("/work/acme")
    bare = s.slash("model", "Kept model as opus")
    custom = s.user("<command-name>/deploy</command-name>\n<command-message>deploy</command-message>\n"
                    "<command-args>staging, and never on Fridays</command-args>")
    settings = s.user("<command-message>review</command-message>\n<command-name>/review</command-name>\n"
                      "<command-args>123</command-args>")
    s.raw(s._envelope("system", subtype="local_command", content="<command-name>/deploy</command-name>",
                      level="info", isMeta=False))
    t = _parse_session(s)
    assert [(x.line_start, x.text) for x in t.turns] == [(custom, "/deploy staging, and never on Fridays")]
    assert bare < custom < settings
    assert t.stats.dropped == {"slash-command": 2, "local-command": 2}


def test_loreline_memory_block_never_becomes_a_turn(tmp_path: Path) -> None:
    s = ClaudeSession("/work/acme")
    s.hook_context(MEMORY_BLOCK)
    s.raw(s._envelope("attachment", attachment={"type": "hook_success", "hookName": "SessionStart:startup",
                                                "stdout": json.dumps({"additionalContext": MEMORY_BLOCK})}))
    s.user(f"<system-reminder>\nSessionStart hook additional context: {MEMORY_BLOCK}\n</system-reminder>",
           isMeta=True)
    s.raw(s._envelope("system", content=MEMORY_BLOCK, level="info"))
    s.user(MEMORY_BLOCK)
    s.user(f"<system-reminder>{MEMORY_BLOCK}</system-reminder>")
    kept = s.user(f"{MEMORY_BLOCK}\nPlease add the retry loop to the fetcher.")
    reply, _ = s.assistant(f"Noted the recorded notes: {MEMORY_BLOCK} Adding the retry loop now.")
    t = _parse_session(s, tmp_path)
    assert [(x.speaker, x.line_start, x.text) for x in t.turns] == [
        ("user", kept, "Please add the retry loop to the fetcher."),
        ("assistant", reply, "Noted the recorded notes:  Adding the retry loop now."),
    ]
    assert all("pnpm" not in x.text and "loreline-memories" not in x.text for x in t.turns)
    assert t.stats.dropped["loreline-memories"] == 8
    assert t.stats.dropped["hook-context"] == 1


def test_user_lines_that_are_not_prompts_each_have_a_reason() -> None:
    s = ClaudeSession("/work/acme")
    s.user("<task-notification><task-id>b1</task-id><status>completed</status></task-notification>")
    s.user('<teammate-message teammate_id="devops-engineer" color="green" summary="Plan for task 2">\n'
           "Always run the build with -j8 from now on.\n</teammate-message>")
    s.user("<bash-input>git status</bash-input>")
    s.user("<bash-stdout>On branch main</bash-stdout><bash-stderr></bash-stderr>")
    s.user("<user-prompt-submit-hook>lint ok</user-prompt-submit-hook>")
    s.user("UserPromptSubmit hook additional context: the build is green")
    s.interrupt()
    s.compaction("The user asked for pnpm.")
    s.user("Caveat: The messages below were generated by the user while running local commands.", isMeta=True)
    s.user("   ")
    kept = s.user("Now make the retries exponential.")
    t = _parse_session(s)
    assert [x.line_start for x in t.turns] == [kept]
    assert t.stats.dropped == {"task-notification": 1, "teammate-message": 1, "bash-mode": 2, "hook-context": 2, "interrupt": 1,
                               "compact-boundary": 1, "compaction-summary": 1, "meta": 1}


def test_thinking_redacted_thinking_images_and_tool_results_are_not_text() -> None:
    s = ClaudeSession("/work/acme")
    image = base64.b64encode(b"\x89PNG" + bytes(3_000_000)).decode()
    prompt = s.raw(s._envelope("user", message={"role": "user", "content": [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": image}},
        {"type": "text", "text": "[Image #1] Why is the header clipped?"}]}))
    first, last = s.assistant("The header has overflow hidden.", thinking="",
                              tools=[("Read", {"file_path": "/work/acme/src/header.css"}, "h1 { }")])
    s.raw(s._envelope("assistant", message={"id": "msg_r", "type": "message", "role": "assistant",
                                            "model": "claude-opus-4-7", "content": [
                                                {"type": "redacted_thinking", "data": "EqQBCkYIBxgCKkD" * 50}]}))
    t = _parse_session(s)
    assert shape(t.turns) == [("user", prompt, prompt, "[Image #1] Why is the"),
                              ("assistant", first + 1, last, "The header has overflow hidden.")]
    assert t.turns[1].files == ("/work/acme/src/header.css",)
    assert t.stats.dropped == {"block:image": 1, "block:thinking": 1, "block:tool_use": 1, "block:tool_result": 1,
                               "block:redacted_thinking": 1}
    assert max(len(x.text) for x in t.turns) < 100


def test_message_blocks_interleaved_with_tool_results_merge_by_message_id() -> None:
    """A read between a message's blocks is no action line: the message stays one turn (an action
    ends it: tests/test_actions_readers.py)."""
    s = ClaudeSession("/work/acme")
    s.user("Rename the module.")
    start = s.next_line
    for block in ({"type": "text", "text": "Renaming."}, {"type": "tool_use", "id": "t1", "name": "Read",
                                                         "input": {"file_path": "/work/acme/a.py"}}):
        s.raw(s._envelope("assistant", message={"id": "msg_same", "role": "assistant", "content": [block]}))
    s.raw(s._envelope("user", message={"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "t1", "content": "ok", "is_error": True}]}, toolUseResult="Error"))
    s.raw(s._envelope("attachment", attachment={"type": "hook_success", "hookName": "PostToolUse:Read"}))
    end = s.raw(s._envelope("assistant", message={"id": "msg_same", "role": "assistant", "content": [
        {"type": "text", "text": "Done."}]}))
    t = _parse_session(s)
    assert shape(t.turns)[1] == ("assistant", start, end, "Renaming. Done.")
    assert t.turns[1].files == ("/work/acme/a.py",)


def test_replays_synthetic_errors_and_sidechains_are_dropped() -> None:
    s = ClaudeSession("/work/acme")
    kept = s.user("Use ruff, not flake8.")
    s.raw(dict(s.records[0]))  # a resumed session replays the same uuid
    s.raw(s._envelope("assistant", isApiErrorMessage=True, message={
        "id": "msg_e", "role": "assistant", "model": "<synthetic>",
        "content": [{"type": "text", "text": "API Error: 529 overloaded"}]}))
    s.raw(s._envelope("user", isSidechain=True, agentId="a1b2c3d", message={"role": "user", "content": "Warmup"}))
    s.raw(s._envelope("assistant", isSidechain=True, agentId="a1b2c3d", message={
        "id": "msg_w", "role": "assistant", "content": [{"type": "text", "text": "Ready."}]}))
    s.raw(s._envelope("user", isSidechain=True, agentId="f00dfeed", message={
        "role": "user", "content": "Your task is to create a detailed summary of the conversation so far"}))
    s.raw(s._envelope("user", isSidechain=True, agentId="0a1b2c3", message={"role": "user", "content": "Read a.py"}))
    t = _parse_session(s)
    assert [x.line_start for x in t.turns] == [kept]
    assert t.stats.dropped == {"replayed-uuid": 1, "synthetic": 1, "warmup-agent": 2, "compaction-agent": 1,
                               "sidechain": 1}


WRONG = [None, 7, 2.5, "text", [1, "a"], {"a": 1}, True]


@pytest.mark.parametrize("value", WRONG, ids=[type(v).__name__ for v in WRONG])
def test_wrong_field_types_are_counted_never_fatal(value: Any) -> None:
    """Every field of every real record, replaced by a value of the wrong type, in turn."""
    records = [json.loads(line) for path in sorted(CC.rglob("*.jsonl")) if path.stat().st_size < 200_000
               for line in path.read_text(encoding="utf-8").splitlines()]
    reader = claude_code.ClaudeCodeReader(ParseStats())
    for lineno, full in enumerate(records, start=1):
        record = {k: v for k, v in full.items() if k != "uuid"}  # no replay check hides a mutation
        for key in list(full):
            reader.feed(lineno, {**record, key: value})
        message = record.get("message")
        if isinstance(message, dict):
            for key in message:
                reader.feed(lineno, {**record, "message": {**message, key: value}})
            content = message.get("content")
            if isinstance(content, list) and content:
                reader.feed(lineno, {**record, "message": {**message, "content": [value, *content]}})
    turns = reader.finish()
    assert all(isinstance(turn.text, str) and turn.text for turn in turns)
    assert reader.stats.dropped


def _parse_session(s: ClaudeSession, folder: Path | None = None) -> Any:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = s.write(Path(folder or tmp) / f"{s.session_id}.jsonl")
        return parse(path).transcript
