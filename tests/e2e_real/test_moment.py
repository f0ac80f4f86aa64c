"""At the moment of need through the real Claude Code CLI, offline: `loreline connect claude-code`
installs the PreToolUse hook; the scripted model asks for a Bash tool call that upgrades an Odoo
module; the hook adds the procedure the store holds about it, and the next request Claude Code
sends the model carries the procedure's text. An unrelated command (`ls`) adds nothing.

Bash is not among the allowed tools, so `claude -p` refuses to run the command (nothing runs on
this machine): PreToolUse fires before that decision, as it does before a person is asked.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from loreline.samples.builder import ClaudeSession
from tests.e2e_real.fake_models import Replies, tool_reply
from tests.e2e_real.harness import Clients, Isolation, Run, Sandbox

pytestmark = pytest.mark.real_clients

PROCEDURE = ("To upgrade an Odoo module in the Docker setup, run docker exec odoo odoo -u <module> -d <db> "
             "--stop-after-init.")
UNRELATED = "In this repo we use pnpm, never npm."
COMMAND = "docker exec odoo odoo -u sale_custom -d shop --stop-after-init"
HEADER = "about to run or touch"


@pytest.fixture
def box(real_clients: Clients, isolation: Isolation, tmp_path: Path) -> Sandbox:
    sandbox = Sandbox(tmp_path / "box", real_clients, isolation)
    session = ClaudeSession(cwd=str(sandbox.repo))
    for said in ("Remember this: " + PROCEDURE[0].lower() + PROCEDURE[1:], UNRELATED):
        session.user(said)
        session.assistant("Noted.")
    path = session.write(sandbox.root / "seed" / f"{session.session_id}.jsonl")
    sandbox.loreline("import", "sessions", "--path", str(path))
    assert any("docker exec odoo" in m["text"] for m in sandbox.memories())
    # SessionStart shows only the first memory in its block, so the procedure is not shown before
    sandbox.loreline("config", "set", "capture.session_start_chars", "200")
    sandbox.loreline("connect", "claude-code")
    settings = json.loads((sandbox.home / ".claude" / "settings.json").read_text(encoding="utf-8"))
    assert "PreToolUse" in settings["hooks"]
    return sandbox


def _after_tool_call(run: Run) -> list[str]:
    """The request bodies that carry a tool result: those sent after the tool call."""
    return [b for b in run.bodies("anthropic") if '"tool_result"' in b]


def _procedure_id(box: Sandbox) -> int:
    return next(int(m["id"]) for m in box.memories() if "docker exec odoo" in m["text"])


def test_the_request_after_a_docker_command_carries_the_procedure(box: Sandbox) -> None:
    replies = Replies("Done.", (("upgrade the sale module", tool_reply("Bash", {"command": COMMAND,
                                                                               "description": "Upgrade"})),))
    run = box.claude("moment", ["-p", "Please upgrade the sale module.", "--output-format", "json"], replies).check()
    before = [b for b in run.bodies("anthropic") if '"tool_result"' not in b and "upgrade the sale module" in b]
    assert before and not any("--stop-after-init" in b and HEADER in b for b in before), \
        "the procedure was already in the context before the tool call"
    after = _after_tool_call(run)
    assert after, f"Claude Code sent no request after the tool call ({run.folder})"
    carrying = [b for b in after if HEADER in b]
    assert carrying, f"no request after the tool call carried the moment-of-need note ({run.folder})"
    memory_id = _procedure_id(box)
    assert all(f"#{memory_id} " in b and "--stop-after-init" in b for b in carrying)
    assert not any(UNRELATED in b[b.index(HEADER):] for b in carrying)


def test_an_unrelated_command_adds_nothing(box: Sandbox) -> None:
    replies = Replies("Done.", (("list the files", tool_reply("Bash", {"command": "ls -la",
                                                                     "description": "List"})),))
    run = box.claude("unrelated", ["-p", "Please list the files.", "--output-format", "json"], replies).check()
    after = _after_tool_call(run)
    assert after, f"Claude Code sent no request after the tool call ({run.folder})"
    assert not any(HEADER in b for b in after)
    errors = box.loreline_home / "state" / "hook-errors.log"
    assert not errors.exists() or "PreToolUse" not in errors.read_text(encoding="utf-8")
