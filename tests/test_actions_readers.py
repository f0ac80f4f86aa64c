"""Each reader's action turns (`transcripts.actions`): what ran and how it ended, what was edited,
what the person refused, and what is no action at all. Real transcripts first (fixtures/real,
tool_words), then the shapes they do not show, written in each tool's recorded format."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from loreline.models import Turn
from loreline.samples.builder import ClaudeSession
from loreline.assistants.registry import parse
from tests.conftest import REAL
from tests.transcripts_helpers import envelope, function_call, response, session_meta, user_event, write_jsonl

CC = REAL / "claude-code"
WORDS = Path(__file__).resolve().parent / "fixtures" / "tool_words"


def actions(turns: tuple[Turn, ...] | list[Turn]) -> list[tuple[int, str, str]]:
    return [(t.line_start, t.origin, t.text) for t in turns if t.speaker == "action"]


# -- Claude Code: real transcripts -----------------------------------------------------------


def test_real_edits_and_test_run_with_the_runners_summary() -> None:
    t = parse(CC / "cc-2.1.39-compaction-excerpt.jsonl").transcript
    assert actions(t.turns) == [
        (10, "edited", "lib/spotter_web/live/project_review_live.ex"),
        (33, "edited", "test/spotter_web/live/project_review_live_test.exs"),
        (45, "ran", "mix compile --warnings-as-errors 2>&1 → ok"),
        # ExUnit's closing `8 tests, 0 failures`, read from the real tool result on line 71
        (55, "ran", "mix test test/spotter_web/live/project_review_live_test.exs 2>&1 → 8 passed"),
    ]
    edit = next(x for x in t.turns if x.line_start == 10)
    assert edit.files == ("/home/USER/projects/spotter-worktrees/spotter-gqc/lib/spotter_web/live/project_review_live.ex",)
    assert "8 tests, 0 failures" in (CC / "cc-2.1.39-compaction-excerpt.jsonl").read_text().splitlines()[70]


def test_real_refusals_with_and_without_a_reason() -> None:
    bare = parse(CC / "cc-2.1.38-short-local-command.jsonl").transcript
    assert actions(bare.turns) == [(8, "denied", "Bash: mix phx.server 2>&1 | head -80"), (10, "denied", "Glob: mix.exs")]
    said = parse(WORDS / "cc-2.1.332-rejection-and-answers.jsonl").transcript
    assert actions(said.turns) == [(15, "denied", "Bash: pip install requests")]
    reason = next(x for x in said.turns if x.origin == "rejection")
    assert (reason.speaker, reason.line_start, reason.text) == ("user", 20, "use uv, not pip")


def test_real_session_keeps_commands_that_change_things_not_the_looks() -> None:
    t = parse(CC / "tree" / "-experiments-worktrees" / "ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl").transcript
    ran = actions(t.turns)
    assert [line for line, _, _ in ran] == [83, 127, 155, 161]
    assert ran[0][2].startswith("git merge --no-ff alice/research-plan-mode") and ran[0][2].endswith(" → ok")
    # line 15 `git status && git log --oneline -5 && git branch -a && ls` and line 67 only look
    assert not [x for x in t.turns if x.line_start in (15, 67, 89, 120, 167)]


def test_real_refused_edit_changed_nothing_and_subagent_work_is_not_the_sessions() -> None:
    t = parse(CC / "cc-1.0.108-inline-sidechain.jsonl").transcript
    # line 45's Edit came back `File has not been read yet`; the sidechain's Bash calls are the subagent's
    assert actions(t.turns) == [(49, "edited", "CLAUDE.md")]


def test_real_background_command() -> None:
    t = parse(CC / "cc-2.1.38-tool-heavy.jsonl").transcript
    assert actions(t.turns) == [(5, "ran", "mix phx.server → running in background")]


# -- Claude Code: the shapes the real files do not show ---------------------------------------


def cc_call(s: ClaudeSession, name: str, tool_input: dict[str, Any], result: str | None, *, error: bool = False,
            text: str | None = None, msg: str | None = None) -> int:
    """An assistant message (optional text, then the tool call, one block a line) and its result."""
    msg = msg or f"msg_{s.next_line}"
    tool_id = f"toolu_{s.next_line:04d}"
    if text is not None:
        s.raw(s._envelope("assistant", message={"id": msg, "role": "assistant",
                                                "content": [{"type": "text", "text": text}]}))
    line = s.raw(s._envelope("assistant", message={"id": msg, "role": "assistant", "content": [
        {"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}]}))
    if result is not None:
        s.raw(s._envelope("user", message={"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": tool_id, "content": result, "is_error": error}]},
            toolUseResult=("Error: " + result) if error else {"stdout": result, "stderr": ""}))
    return line


def _parse(s: ClaudeSession, tmp_path: Path) -> Any:
    return parse(s.write(tmp_path / f"{s.session_id}.jsonl")).transcript


def test_claude_code_outcomes(tmp_path: Path) -> None:
    s = ClaudeSession("/work/shop")
    s.user("get the db up and the tests green")
    ok = cc_call(s, "Bash", {"command": "docker compose up -d db"}, "Container shop-db-1  Started")
    bad = cc_call(s, "Bash", {"command": "docker exec shop-db-1 psql -U app -c 'select 1'"},
                  "Exit code 2\npsql: error: connection to server on socket failed\nIs the server running?", error=True)
    tests = cc_call(s, "Bash", {"command": "cd /work/shop && uv run pytest -q"},
                    "Exit code 1\n..F.\nFAILED tests/test_cart.py::test_total - assert 3 == 4\n1 failed, 3 passed in 0.41s",
                    error=True)
    wrote = cc_call(s, "Write", {"file_path": "/work/shop/src/list.tsx", "content": "x"}, "File created")
    nb = cc_call(s, "NotebookEdit", {"notebook_path": "/elsewhere/n.ipynb", "new_source": "x"}, "Updated")
    refused = cc_call(s, "Bash", {"command": "make", "timeout": "soon"},
                      "<tool_use_error>InputValidationError: Bash failed due to the following issue:\nThe parameter "
                      "`timeout` type is expected as `number` but provided as `string`</tool_use_error>", error=True)
    late = cc_call(s, "Bash", {"command": "npm run build"}, None)  # the session ends before its result
    t = _parse(s, tmp_path)
    assert actions(t.turns) == [
        (ok, "ran", "docker compose up -d db → ok"),
        (bad, "ran", "docker exec shop-db-1 psql -U app -c 'select 1' → exit 2: psql: error: connection to server on "
                     "socket failed"),
        (tests, "ran", "uv run pytest -q → 1 failed, 3 passed"),
        (wrote, "edited", "src/list.tsx"),
        (nb, "edited", "/elsewhere/n.ipynb"),
        (refused, "ran", "make → failed: InputValidationError: Bash failed due to the following issue:"),
        (late, "ran", "npm run build → no result"),
    ]


def test_claude_code_denials_by_the_person_and_by_their_permission_settings(tmp_path: Path) -> None:
    s = ClaudeSession("/work/shop")
    s.user("clean up")
    rm = cc_call(s, "Bash", {"command": "rm -rf build"}, "The user doesn't want to proceed with this tool use. The "
                 "tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). To "
                 "tell you how to proceed, the user said:\nnever delete build, it holds the signed artefacts", error=True)
    edit = cc_call(s, "Edit", {"file_path": "/work/shop/.env", "old_string": "a", "new_string": "b"},
                   "Permission to use Edit has been denied. IMPORTANT: You *may* attempt to accomplish this action "
                   "using other tools", error=True)
    read = cc_call(s, "Read", {"file_path": "/work/shop/secrets/notes.md"},
                   "<tool_use_error>The user doesn't want to proceed with this tool use.</tool_use_error>", error=True)
    t = _parse(s, tmp_path)
    assert actions(t.turns) == [(rm, "denied", "Bash: rm -rf build"), (edit, "denied", "Edit: .env"),
                                (read, "denied", "Read: secrets/notes.md")]
    assert [(x.line_start, x.origin) for x in t.turns if x.speaker == "user"][1:] == [(rm + 1, "rejection")]


def test_an_action_ends_the_assistant_turn_and_no_turns_overlap(tmp_path: Path) -> None:
    s = ClaudeSession("/work/shop")
    s.user("rename the module")
    first = s.next_line
    cc_call(s, "Edit", {"file_path": "/work/shop/a.py", "old_string": "a", "new_string": "b"}, "ok",
            text="Renaming.", msg="msg_same")
    s.line("attachment", attachment={"type": "hook_success", "hookName": "PostToolUse:Edit"})
    end = s.raw(s._envelope("assistant", message={"id": "msg_same", "role": "assistant",
                                                  "content": [{"type": "text", "text": "Done."}]}))
    t = _parse(s, tmp_path)
    assert [(x.speaker, x.line_start, x.line_end, x.text) for x in t.turns[1:]] == [
        ("assistant", first, first, "Renaming."), ("action", first + 1, first + 1, "a.py"),
        ("assistant", end, end, "Done.")]


def test_prose_and_a_call_on_one_line_share_it(tmp_path: Path) -> None:
    """Older Claude Code (and Gemini CLI) write a message's text and tool calls on one line."""
    s = ClaudeSession("/work/shop", version="1.0.53")
    s.user("bump the version")
    line = s.raw(s._envelope("assistant", message={"id": "m1", "role": "assistant", "content": [
        {"type": "text", "text": "Bumping it."},
        {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "npm version patch"}}]}))
    s.raw(s._envelope("user", message={"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "t1", "content": "v1.2.4"}]}))
    t = _parse(s, tmp_path)
    assert [(x.speaker, x.line_start, x.line_end, x.text) for x in t.turns[1:]] == [
        ("assistant", line, line, "Bumping it."), ("action", line, line, "npm version patch → ok")]


def test_looking_around_is_no_action(tmp_path: Path) -> None:
    s = ClaudeSession("/work/shop")
    s.user("what is in there")
    for name, tool_input in (("Read", {"file_path": "/work/shop/a.py"}), ("Grep", {"pattern": "x", "path": "src"}),
                             ("Bash", {"command": "ls -la src && git status | head"}),
                             ("Bash", {"command": "sed -n '1,80p' src/a.py"}), ("WebFetch", {"url": "https://x.dev"}),
                             ("TodoWrite", {"todos": []}), ("Task", {"description": "explore", "prompt": "look"}),
                             ("Write", {"file_path": "/home/me/.claude/plans/p.md", "content": "plan"})):
        cc_call(s, name, tool_input, "fine")
    t = _parse(s, tmp_path)
    assert actions(t.turns) == []


# -- Codex ---------------------------------------------------------------------------------


def output(call_id: str, text: str, kind: str = "function_call_output") -> dict[str, Any]:
    return envelope("response_item", {"type": kind, "call_id": call_id, "output": text})


def codex_session(tmp_path: Path, records: list[dict[str, Any]]) -> Any:
    head = [session_meta("0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", "/work/shop"), user_event("ship it"),
            response("user", "ship it")]
    return parse(write_jsonl(tmp_path / "rollout.jsonl", head + records)).transcript


PATCH = "*** Begin Patch\n*** Update File: src/cart.py\n@@\n-a\n+b\n*** Add File: src/total.py\n+x\n*** End Patch\n"


def test_codex_outcomes_in_each_framing(tmp_path: Path) -> None:
    t = codex_session(tmp_path, [
        function_call("shell", {"command": ["bash", "-lc", "cd /work/shop && make migrate"], "workdir": "/work/shop"},
                      "c1"),
        output("c1", json.dumps({"output": "Error: relation \"carts\" already exists\n",
                                 "metadata": {"exit_code": 2, "duration_seconds": 0.3}})),
        function_call("exec_command", {"cmd": "pnpm vitest run", "workdir": "/work/shop/web"}, "c2"),
        output("c2", "Chunk ID: 9f2\nWall time: 3.1 seconds\nProcess exited with code 1\nOriginal token count: 80\n"
                     "Output:\n Test Files  1 failed | 4 passed (5)\n      Tests  2 failed | 30 passed (32)\n"),
        function_call("shell_command", {"command": "docker compose restart api"}, "c3"),
        output("c3", "Exit code: 0\nWall time: 1.2 seconds\nOutput:\n Container shop-api-1  Started\n"),
        envelope("response_item", {"type": "custom_tool_call", "name": "apply_patch", "call_id": "c4", "input": PATCH}),
        output("c4", json.dumps({"output": "Success. Updated the following files:\nM src/cart.py\nA src/total.py\n",
                                 "metadata": {"exit_code": 0}}), "custom_tool_call_output"),
        envelope("response_item", {"type": "custom_tool_call", "name": "apply_patch", "call_id": "c5",
                                   "input": PATCH.replace("cart", "gone")}),
        output("c5", "apply_patch verification failed: Failed to find expected lines in src/gone.py",
               "custom_tool_call_output"),
        function_call("shell", {"command": ["git", "push", "--force"]}, "c6"),
        output("c6", "exec command rejected by user"),
        envelope("response_item", {"type": "local_shell_call", "call_id": "c7", "status": "completed",
                                   "action": {"type": "exec", "command": ["cargo", "build"]}}),
        envelope("event_msg", {"type": "exec_command_end", "call_id": "c7", "exit_code": 101, "stdout": "",
                               "stderr": "error[E0425]: cannot find value `x` in this scope\n",
                               "aggregated_output": "   Compiling shop v0.1.0\nerror[E0425]: cannot find value `x` in this scope\n"}),
        function_call("shell", {"command": ["bash", "-lc", "rg TODO src | wc -l"]}, "c8"),
        output("c8", json.dumps({"output": "3\n", "metadata": {"exit_code": 0}})),
        function_call("exec_command", {"cmd": "npm publish"}, "c9"),
        response("assistant", "Shipped, mostly."),
    ])
    assert actions(t.turns) == [
        (4, "ran", "make migrate → exit 2: Error: relation \"carts\" already exists"),
        (6, "ran", "cd web && pnpm vitest run → 2 failed, 30 passed"),
        (8, "ran", "docker compose restart api → ok"),
        (10, "edited", "src/cart.py, src/total.py"),  # line 12's patch failed verification: nothing changed
        (14, "denied", "shell: git push --force"),
        (16, "ran", "cargo build → exit 101: error[E0425]: cannot find value `x` in this scope"),
        (20, "ran", "npm publish → no result"),  # line 18 only counted lines: a look
    ]
    assert next(x for x in t.turns if x.line_start == 10).files == ("src/cart.py", "src/total.py")


# -- Gemini CLI -------------------------------------------------------------------------------


def gemini_session(tmp_path: Path, messages: list[dict[str, Any]]) -> Any:
    meta = {"sessionId": "5f0c175a-d604-46a8-b2ef-b305d2744c20", "projectHash": "ab12", "startTime": "2026-12-01T16:05:05Z",
            "lastUpdated": "2026-12-01T16:06:05Z", "kind": "main"}
    project = tmp_path / "proj"
    chats = project / "chats"
    chats.mkdir(parents=True)
    (project / ".project_root").write_text("/work/shop\n")
    return parse(write_jsonl(chats / "session-2026-12-01T16-05-5f0c175a.jsonl", [meta, *messages])).transcript


def gemini_call(name: str, args: dict[str, Any], status: str, response: dict[str, Any], n: int) -> dict[str, Any]:
    return {"id": f"{name}_{n}", "name": name, "args": args, "status": status, "timestamp": "2026-12-01T16:05:09Z",
            "result": [{"functionResponse": {"id": f"{name}_{n}", "name": name, "response": response}}]}


def test_gemini_tool_calls_carry_their_status_and_result(tmp_path: Path) -> None:
    t = gemini_session(tmp_path, [
        {"id": "u1", "timestamp": "2026-12-01T16:05:06Z", "type": "user", "content": [{"text": "fix the lint"}]},
        {"id": "g1", "timestamp": "2026-12-01T16:05:08Z", "type": "gemini", "content": "Running the linter.",
         "toolCalls": [
             gemini_call("run_shell_command", {"command": "make lint"}, "success",
                         {"output": "Output: src/a.py:3:1: F401 'os' imported but unused\nExit Code: 2\n"
                                    "Process Group PGID: 4242"}, 1),
             gemini_call("replace", {"file_path": "/work/shop/src/a.py", "old_string": "import os\n",
                                     "new_string": ""}, "success", {"output": "Successfully modified file"}, 2),
             gemini_call("write_file", {"file_path": "/work/shop/src/b.py", "content": "x"}, "error",
                         {"error": "File path must be within the root directory"}, 3),
             gemini_call("run_shell_command", {"command": "git commit -am lint"}, "cancelled",
                         {"error": "[Operation Cancelled] Reason: User did not allow tool call"}, 4),
         ]},
    ])
    assert actions(t.turns) == [
        (3, "ran", "make lint → exit 2: src/a.py:3:1: F401 'os' imported but unused"),
        (3, "edited", "src/a.py"),
        (3, "denied", "run_shell_command: git commit -am lint"),
    ]
    assert [x.speaker for x in t.turns] == ["user", "assistant", "action", "action", "action"]


def test_gemini_function_call_parts_are_filled_in_by_their_response(tmp_path: Path) -> None:
    t = gemini_session(tmp_path, [
        {"id": "u1", "timestamp": "2026-12-01T16:05:06Z", "type": "user", "content": [{"text": "format it"}]},
        {"id": "g1", "timestamp": "2026-12-01T16:05:08Z", "type": "gemini", "content": [
            {"functionCall": {"id": "c1", "name": "run_shell_command", "args": {"command": "npx prettier -w ."}}}]},
        {"id": "a4cad8a3-01d8-4472-9e1a-1a4f2fd22fe0", "timestamp": "2026-12-01T16:05:09Z", "type": "user", "content": [
            {"functionResponse": {"id": "c1", "name": "run_shell_command",
                                  "response": {"output": "Output: src/a.ts 20ms\nExit Code: 0"}}}]},
    ])
    assert actions(t.turns) == [(3, "ran", "npx prettier -w . → ok")]
