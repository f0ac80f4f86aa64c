"""`LORELINE_OFF=1` through the real Claude Code CLI, offline: the session is recorded as paused
by its id, Loreline's MCP tools are not offered to the model, and a later discovery import
leaves the session out (and says so) until the file is named with `--include-paused`.

A control session without the switch is offered the tools, so their absence is the switch's
doing; both sessions state a decision the rules distiller keeps. In `-p` mode the first request
goes out while MCP servers are still connecting, so the scripted model first runs `sleep` and
the request after it is the one that shows what the connected server offers.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from loreline.samples.builder import ClaudeSession
from tests.e2e_real.fake_models import Replies, tool_reply
from tests.e2e_real.harness import Clients, Isolation, Run, Sandbox

pytestmark = pytest.mark.real_clients

MEMORY = "In this repo we use pnpm, never npm."
PAUSED = "From now on we deploy with fly.io, never Heroku."
OPEN = "From now on we deploy with Render, never Netlify."
REPLIES = Replies("Understood.", (("from now on we deploy", tool_reply("Bash", {"command": "sleep 8",
                                                                                 "description": "wait"})),))
TOOL = "mcp__loreline__recall"


@dataclass(repr=False)
class Story:
    box: Sandbox
    runs: dict[str, Run] = field(default_factory=dict)
    reports: dict[str, Any] = field(default_factory=dict)

    def __repr__(self) -> str:
        return f"Story({self.box.root})"

    def transcript(self, step: str) -> Path:
        session = self.runs[step].json()["session_id"]
        [found] = (self.box.home / ".claude" / "projects").glob(f"*/{session}.jsonl")
        return found

    def texts(self) -> list[str]:
        return [m["text"] for m in self.box.memories()]


def tell(story: Story) -> Story:
    box = story.box
    seed = ClaudeSession(cwd=str(box.repo))
    seed.user(MEMORY)
    seed.assistant("Noted.")
    box.loreline("import", "sessions", "--path", str(seed.write(box.root / "seed" / "seed.jsonl")))
    box.loreline("connect", "claude-code")
    args = ["--output-format", "json", "--allowedTools", f"{TOOL},Bash(sleep:*)"]
    story.runs["paused"] = box.claude("paused", ["-p", PAUSED, *args], REPLIES, LORELINE_OFF="1").check()
    story.runs["open"] = box.claude("open", ["-p", OPEN, *args], REPLIES).check()
    box.drain()  # the open session's hooks queued it; the paused session's queued nothing
    story.reports["after-capture"] = story.texts()
    hour_ago = time.time() - 3600  # discovery leaves files written in the last minutes for later
    for step in ("paused", "open"):
        os.utime(story.transcript(step), (hour_ago, hour_ago))
    story.reports["discovery"] = box.loreline_json("import", "sessions", "--claude-dir", str(box.home / ".claude"))
    story.reports["after-discovery"] = story.texts()
    story.reports["by-path"] = box.loreline_json("import", "sessions", "--path", str(story.transcript("paused")),
                                                 "--include-paused")
    story.reports["after-by-path"] = story.texts()
    return story


@pytest.fixture(scope="module")
def story(real_clients: Clients, isolation: Isolation, tmp_path_factory: pytest.TempPathFactory) -> Story:
    return tell(Story(Sandbox(tmp_path_factory.mktemp("paused-e2e"), real_clients, isolation)))


def test_the_paused_session_is_recorded_by_its_id(story: Story) -> None:
    session = story.runs["paused"].json()["session_id"]
    records = [json.loads(p.read_text(encoding="utf-8")) for p in (story.box.loreline_home / "paused").iterdir()]
    assert [(r["session_id"], r["tool"]) for r in records] == [(session, "claude-code")]
    assert records[0]["transcript_path"] == str(story.transcript("paused"))


def test_the_paused_session_is_not_offered_loreline_s_tools(story: Story) -> None:
    opened = story.runs["open"].bodies("anthropic")
    assert len(opened) >= 2 and TOOL in opened[-1], f"control: the tools are offered ({story.runs['open'].folder})"
    paused = story.runs["paused"].bodies("anthropic")
    assert len(paused) >= 2 and not any(TOOL in b for b in paused)
    # the server answered initialize: its one line reached the model as the server's instructions
    assert "Loreline is paused for this session (LORELINE_OFF=1)" in paused[-1]
    assert not any(MEMORY in b or "<loreline-memories>" in b for b in paused)


def test_neither_capture_nor_discovery_learns_from_the_paused_session(story: Story) -> None:
    assert any("Render" in t for t in story.reports["after-capture"]), "control: the open session was learned"
    assert not any("fly.io" in t for t in story.reports["after-capture"] + story.reports["after-discovery"])
    left_out = story.reports["discovery"]["sessions"]["left_out"]
    paused = [p for p in left_out if p["reason"].startswith("paused")]
    assert [Path(p["path"]) for p in paused] == [story.transcript("paused").resolve()]


def test_the_paused_file_named_with_the_flag_is_imported(story: Story) -> None:
    assert story.reports["by-path"]["sessions"]["imported"] == 1
    assert any("fly.io" in t for t in story.reports["after-by-path"])
