"""The whole capture loop, through the commands `loreline connect` installs.

Session one grows on disk while its hooks fire (SessionStart, Stop ×N, PreCompact, SessionEnd);
detached workers and `loreline worker --drain` import it; its memories exist once. Session two
starts: SessionStart injects them; Claude Code records the injection in session two's transcript
(as an `attachment` line in 2.1, as `<system-reminder>` text in a user line before); importing
session two learns only what the person said there, never its own injected block.
"""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest

from loreline.samples.builder import ClaudeSession, project_slug
from tests.capture_helpers import RULES_CONFIG, db_rows, hook_env, run_worker, write_config
from tests.conftest import loreline_exe

pytestmark = pytest.mark.slow  # the whole capture loop: hooks, worker and imports in real processes

PNPM = "In this repo we use pnpm, never npm."
SQLITE = "We decided to keep SQLite because the app runs on laptops."
LINT = "Always run the linter before committing."
VITEST = "We decided to use Vitest because Jest is slow here."


class Loop:
    """A project with Claude Code's layout, Loreline connected, and a way to fire its hooks."""

    def __init__(self, root: Path, home: Path) -> None:
        self.home = home
        self.project = root / "app"
        (self.project / ".git").mkdir(parents=True)
        self.claude = root / "claude"
        self.env = hook_env(home, CLAUDE_CONFIG_DIR=str(self.claude), HOME=str(root))
        # the later sessions here hold one prompt each: background capture takes them (the skip
        # rule for short sessions, capture.min_prompts, is tested in tests/test_spend_gate.py)
        write_config(home, RULES_CONFIG + "[capture]\nmin_prompts = 1\n")
        connected = subprocess.run([loreline_exe(), "connect", "claude-code"], capture_output=True, text=True,
                                   env=self.env, timeout=60)
        assert connected.returncode == 0, connected.stderr
        settings = json.loads((self.claude / "settings.json").read_text())
        self.commands = {event: groups[0]["hooks"][0]["command"] for event, groups in settings["hooks"].items()}
        self.written: dict[str, int] = {}

    def path(self, session: ClaudeSession) -> Path:
        return self.claude / "projects" / project_slug(str(self.project)) / f"{session.session_id}.jsonl"

    def grow(self, session: ClaudeSession) -> None:
        """Append the records not yet on disk, as Claude Code does."""
        path = self.path(session)
        path.parent.mkdir(parents=True, exist_ok=True)
        done = self.written.get(session.session_id, 0)
        with open(path, "a", encoding="utf-8") as handle:
            for record in session.records[done:]:
                handle.write(json.dumps(record, ensure_ascii=False) + "\n")
        self.written[session.session_id] = len(session.records)

    def fire(self, event: str, session: ClaudeSession, **extra: Any) -> subprocess.CompletedProcess[bytes]:
        payload = {"session_id": session.session_id, "transcript_path": str(self.path(session)),
                   "cwd": str(self.project), "permission_mode": "default", "hook_event_name": event, **extra}
        result = subprocess.run(shlex.split(self.commands[event]), input=json.dumps(payload).encode(),
                                capture_output=True, env=self.env, timeout=60)
        assert result.returncode == 0 and result.stderr == b""
        return result

    def turn(self, session: ClaudeSession, prompt: str, reply: str) -> None:
        session.user(prompt)
        session.assistant(reply)
        self.grow(session)
        self.fire("Stop", session, last_assistant_message=reply, stop_hook_active=False)

    def drain(self) -> dict[str, Any]:
        result = run_worker(self.home, "--drain", "--wait", "120", "--json", env=self.env)
        assert result.returncode == 0, result.stderr
        return json.loads(result.stdout) if result.stdout else {}

    def memories(self) -> dict[str, int]:
        """Active memory text → how many provenance rows it has."""
        rows = db_rows(self.home, "SELECT m.text, count(p.id) FROM memories m LEFT JOIN provenance p "
                                  "ON p.memory_id = m.id WHERE m.status = 'active' GROUP BY m.id")
        return {str(text): int(n) for text, n in rows}

    def sources(self, text: str) -> set[str]:
        return {str(r[0]) for r in db_rows(self.home, "SELECT p.session_path FROM provenance p JOIN memories m "
                                                       "ON m.id = p.memory_id WHERE m.text = ?", (text,))}


def _session_one(loop: Loop) -> ClaudeSession:
    one = ClaudeSession(cwd=str(loop.project))
    assert loop.fire("SessionStart", one, source="startup").stdout == b""  # nothing remembered yet
    one.snapshot()
    loop.turn(one, PNPM, "Understood: pnpm it is.")
    loop.turn(one, SQLITE, "Noted, SQLite stays.")
    loop.fire("PreCompact", one, trigger="manual", custom_instructions="keep the pnpm rule")
    one.compaction("The user wants pnpm and SQLite.")
    loop.grow(one)
    loop.fire("SessionStart", one, source="compact")
    loop.turn(one, LINT, "Will do.")
    loop.turn(one, "Thanks, that is all for today.", "You're welcome.")
    loop.fire("SessionEnd", one, reason="prompt_input_exit")
    return one


def _injected(loop: Loop, session: ClaudeSession) -> str:
    started = loop.fire("SessionStart", session, source="startup")
    out = json.loads(started.stdout)
    return str(out["hookSpecificOutput"]["additionalContext"])


def _record_injection_2_1(session: ClaudeSession, loop: Loop, block: str, stdout: str) -> None:
    """Claude Code 2.1: a hook_success attachment with the raw stdout, then hook_additional_context."""
    session.line("attachment", attachment={"type": "hook_success", "hookName": "SessionStart:startup",
                                           "hookEvent": "SessionStart", "content": "", "stdout": stdout,
                                           "stderr": "", "exitCode": 0, "command": loop.commands["SessionStart"]})
    session.line("attachment", attachment={"type": "hook_additional_context", "content": [block],
                                           "hookName": "SessionStart", "toolUseID": "SessionStart",
                                           "hookEvent": "SessionStart"},
                 rendered=[{"content": f"<system-reminder>\nSessionStart hook additional context: {block}\n"
                                       "</system-reminder>"}], renderedRole="system")


def _record_injection_older(session: ClaudeSession, block: str) -> None:
    """Older builds: the context as `<system-reminder>` text in a user line, here sharing the
    line with the person's first prompt (no isMeta flag to lean on)."""
    reminder = f"<system-reminder>\nSessionStart hook additional context: {block}\n</system-reminder>"
    session.user_blocks([{"type": "text", "text": reminder}, {"type": "text", "text": VITEST}])


@pytest.mark.parametrize("recorded_as", ["attachment (2.1)", "system-reminder (older)"])
def test_a_session_is_captured_once_and_its_memories_come_back_without_feedback(
        loreline_home: Path, tmp_path: Path, recorded_as: str) -> None:
    loop = Loop(tmp_path, loreline_home)
    one = _session_one(loop)
    loop.drain()
    assert db_rows(loreline_home, "SELECT DISTINCT state FROM jobs") == [("done",)]
    first = loop.memories()
    assert first == {PNPM: 1, SQLITE: 1, LINT: 1}
    assert loop.sources(PNPM) == {str(loop.path(one))}

    two = ClaudeSession(cwd=str(loop.project), version="2.1.332" if recorded_as.startswith("attachment") else "2.0.14")
    started = loop.fire("SessionStart", two, source="startup")
    block = str(json.loads(started.stdout)["hookSpecificOutput"]["additionalContext"])
    assert block.startswith("<loreline-memories>") and block.endswith("</loreline-memories>")
    # the worker wrote the project's brief after the drain: each memory a line citing it
    assert f"- {PNPM} (#" in block and f"- {SQLITE} (#" in block and f"- {LINT} (#" in block
    if recorded_as.startswith("attachment"):
        _record_injection_2_1(two, loop, block, started.stdout.decode())
        two.user(VITEST)
    else:
        _record_injection_older(two, block)
    two.assistant("Switching the test runner to Vitest.")
    loop.grow(two)
    loop.fire("Stop", two, last_assistant_message="Switching the test runner to Vitest.")
    loop.fire("SessionEnd", two, reason="other")
    loop.drain()

    after = loop.memories()
    assert after == {**first, VITEST: 1}
    for text in (PNPM, SQLITE, LINT):
        assert loop.sources(text) == {str(loop.path(one))}, f"{text!r} was learned again from its own injection"
    assert not any("loreline" in text.lower() or "recorded" in text.lower() for text in after)
    assert f"- {VITEST} (#" in _injected(loop, ClaudeSession(cwd=str(loop.project)))


def test_the_same_words_outside_the_block_are_learned_so_the_check_can_fail(loreline_home: Path,
                                                                           tmp_path: Path) -> None:
    loop = Loop(tmp_path, loreline_home)
    _session_one(loop)
    loop.drain()
    three = ClaudeSession(cwd=str(loop.project))
    block = _injected(loop, three)
    three.user(block.replace("<loreline-memories>", "").replace("</loreline-memories>", ""))
    three.assistant("OK.")
    loop.grow(three)
    loop.fire("SessionEnd", three, reason="other")
    loop.drain()
    learned = db_rows(loreline_home, "SELECT m.text FROM memories m JOIN provenance p ON p.memory_id = m.id "
                                     "WHERE p.session_path = ?", (str(loop.path(three)),))
    assert any("pnpm" in str(text) for (text,) in learned), "without its wrapper the block is read as the user's words"


def test_status_shows_the_hooks_and_the_last_capture(loreline_home: Path, tmp_path: Path) -> None:
    loop = Loop(tmp_path, loreline_home)
    _session_one(loop)
    loop.drain()
    status = subprocess.run([loreline_exe(), "status"], capture_output=True, text=True, env=loop.env, timeout=60)
    assert status.returncode == 0, status.stderr
    assert f"hooks in Claude Code user settings ({loop.claude / 'settings.json'})" in status.stdout
    assert "queue 0 queued · 0 deferred · 0 failed · spool 0 waiting" in status.stdout
    assert "last capture never" not in status.stdout
    info = json.loads(subprocess.run([loreline_exe(), "status", "--json"], capture_output=True, text=True,
                                     env=loop.env, timeout=60).stdout)["capture"]
    assert info["hooks"]["claude_code_user"]["events"] == ["SessionStart", "UserPromptSubmit", "PreToolUse", "Stop",
                                                          "PreCompact", "SessionEnd"]
    assert info["queue"]["done"] >= 1 and info["queue"]["failed"] == 0
