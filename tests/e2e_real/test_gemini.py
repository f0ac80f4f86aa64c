"""The real Gemini CLI (`gemini -p`) against a fake Gemini API, offline: `loreline connect
gemini` writes its hooks and MCP server into `~/.gemini/settings.json` beside the user's own
settings; SessionStart's memory block and BeforeAgent's per-prompt memories reach the model
request; SessionEnd's record brings the session into the store, with provenance at the
session file's lines; the model can call Loreline's MCP server; `disconnect` leaves the
user's settings as they were.

The story, told once per module:

1. the store holds a preference and a decision, imported from an earlier session in the
   project; `capture.session_start_chars = 400` lets SessionStart show only the preference;
2. `gemini -p` with a prompt about the decision and a new fact (worker lock held: the
   SessionEnd record is read from the spool, then `loreline worker --drain` imports it);
3. `gemini -p` whose model answer calls Loreline's MCP `recall` tool;
4. `loreline disconnect gemini`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from loreline.samples.builder import ClaudeSession
from tests.e2e_real.fake_models import Replies, tool_reply
from tests.e2e_real.harness import Clients, Isolation, Run, Sandbox, normalized, transcript_line, wait_for

pytestmark = pytest.mark.real_clients

PREFERENCE = "In this repo we use pnpm, never npm."
DECISION = "We'll use Postgres advisory locks because each billing job needs one worker."
PROMPT = "How does the billing job take its advisory lock? Also: the fix was to pin node to 20 in .nvmrc."
FACT = "The fix was to pin node to 20 in .nvmrc."
ASK_TOOL = "Ask Loreline what we decided about pnpm."
REPLIES = Replies("Understood.", (
    ("ask loreline", tool_reply("mcp_loreline_recall", {"query": "pnpm"})),  # Gemini names MCP tools mcp_<server>_<tool>
))
BLOCK = "<loreline-memories>"
RECALL_HEADER = "may bear on this prompt"
#: the user's own settings: an auth choice, a model, a hook and an MCP server of theirs
USER_SETTINGS = {
    "security": {"auth": {"selectedType": "gemini-api-key"}},
    "privacy": {"usageStatisticsEnabled": False},
    "general": {"enableAutoUpdate": False},
    "hooks": {"AfterAgent": [{"hooks": [{"type": "command", "command": "true", "name": "theirs"}]}]},
    "mcpServers": {"theirs": {"command": "/bin/false"}},
}


@dataclass(repr=False)
class Story:
    box: Sandbox
    ids: dict[str, int] = field(default_factory=dict)
    runs: dict[str, Run] = field(default_factory=dict)
    spool: list[dict[str, Any]] = field(default_factory=list)
    settings: dict[str, Any] = field(default_factory=dict)
    memories: list[dict[str, Any]] = field(default_factory=list)
    disconnected: str = ""

    def __repr__(self) -> str:
        return f"Story({self.box.root})"

    def sessions(self) -> list[Path]:
        return sorted((self.box.gemini_home / "tmp").glob("*/chats/session-*.jsonl"))

    def bodies(self, step: str) -> list[str]:
        return [json.dumps(r["body"], ensure_ascii=False) for r in self.runs[step].requests
                if r["api"] == "gemini" and r["method"] == "POST"]


def tell(story: Story) -> Story:
    box = story.box
    session = ClaudeSession(cwd=str(box.repo))
    for said in (PREFERENCE, DECISION):
        session.user(said)
        session.assistant("Noted.")
    box.loreline("import", "sessions", "--path", str(session.write(box.root / "earlier" / f"{session.session_id}.jsonl")))
    story.ids = {m["text"]: m["id"] for m in box.memories()}
    box.loreline("config", "set", "capture.session_start_chars", "400")
    box.loreline("config", "set", "capture.prompt_recall", "words")
    box.gemini_home.mkdir(parents=True, exist_ok=True)
    (box.gemini_home / "settings.json").write_text(json.dumps(USER_SETTINGS, indent=2) + "\n", encoding="utf-8")
    box.loreline("connect", "gemini")
    story.settings = json.loads((box.gemini_home / "settings.json").read_text(encoding="utf-8"))
    with box.worker_lock():
        story.runs["prompt"] = box.gemini("prompt", ["-p", PROMPT], REPLIES).check()
        wait_for(lambda: any(r["event"] == "SessionEnd" for r in box.spool_records()),
                 "the SessionEnd hook to reach Loreline's spool", timeout=20)
        story.spool = box.spool_records()
    box.drain()
    story.memories = box.memories()
    story.runs["tool"] = box.gemini("tool", ["-p", ASK_TOOL, "--allowed-mcp-server-names", "loreline",
                                             "--yolo"], REPLIES).check()
    story.disconnected = box.loreline("disconnect", "gemini").stdout
    return story


@pytest.fixture(scope="module")
def story(real_clients: Clients, isolation: Isolation, tmp_path_factory: pytest.TempPathFactory) -> Story:
    if real_clients.gemini is None:
        pytest.skip("the pinned Gemini CLI is not installed")
    return tell(Story(Sandbox(tmp_path_factory.mktemp("gemini-e2e"), real_clients, isolation)))


def test_the_pinned_client_ran_offline_against_the_fake_api(story: Story, real_clients: Clients) -> None:
    assert real_clients.versions["gemini"] == "0.61.0"
    for step, run in story.runs.items():
        assert run.offline or not story.box.isolation.netns, f"{step}: a route left the namespace"
        assert story.bodies(step), f"{step}: the CLI sent no request to the fake Gemini API ({run.folder})"


def test_connect_kept_the_user_settings_and_added_hooks_and_mcp(story: Story) -> None:
    settings = story.settings
    for key in ("security", "privacy", "general"):
        assert settings[key] == USER_SETTINGS[key]
    assert settings["hooks"]["AfterAgent"] == USER_SETTINGS["hooks"]["AfterAgent"]
    assert settings["mcpServers"]["theirs"] == USER_SETTINGS["mcpServers"]["theirs"]
    assert {"SessionStart", "BeforeAgent", "SessionEnd"} <= set(settings["hooks"])
    assert "loreline" in settings["mcpServers"]


def test_session_start_and_the_prompt_brought_their_memories_into_the_request(story: Story) -> None:
    assert sorted(story.ids) == sorted([PREFERENCE, DECISION])
    bodies = [b for b in story.bodies("prompt") if "advisory lock" in b]
    assert bodies, f"no request carried the prompt ({story.runs['prompt'].folder})"
    # Gemini CLI hands hook context to the model HTML-escaped, inside <hook_context>
    body = bodies[0].replace("\\u2019", "'").replace("&lt;", "<").replace("&gt;", ">").replace("&#39;", "'")
    assert BLOCK in body and PREFERENCE in body, "SessionStart's block did not reach the model"
    assert RECALL_HEADER in body, "BeforeAgent's memories did not reach the model"
    recall = body[body.index(RECALL_HEADER):]
    assert f"#{story.ids[DECISION]} decision: {DECISION}" in recall
    assert PREFERENCE not in recall, "the preference SessionStart showed came again"


def test_session_end_captured_the_session_with_provenance_at_its_lines(story: Story) -> None:
    ends = [r for r in story.spool if r["event"] == "SessionEnd"]
    assert len(ends) == 1 and ends[0]["tool"] == "gemini"
    [first] = [p for p in story.sessions() if "advisory lock" in p.read_text(encoding="utf-8")]
    assert ends[0]["transcript_path"] == str(first)
    found = [m for m in story.memories if normalized(FACT) in normalized(m["text"])]
    assert found, f"the fact was not captured: {[m['text'] for m in story.memories]}"
    [source] = [s for s in found[0]["provenance"] if s["tool"] == "gemini"]
    assert source["session_path"] == str(first)
    line = transcript_line(first, source["line_start"])
    assert line["type"] == "user" and normalized(FACT) in normalized(json.dumps(line["content"]))
    assert "loreline-memories" not in found[0]["text"]  # the injected block is never read as the person's words


def test_the_model_called_loreline_s_mcp_server(story: Story) -> None:
    answers = [part["functionResponse"] for r in story.runs["tool"].requests if r["api"] == "gemini"
               for content in r["body"].get("contents", []) for part in content.get("parts", [])
               if isinstance(part, dict) and "functionResponse" in part]
    assert answers, f"no request carried the MCP tool's answer ({story.runs['tool'].folder})"
    answer = json.dumps(answers[-1]["response"], ensure_ascii=False)
    assert "error" not in answers[-1]["response"], answer
    assert PREFERENCE in answer  # Loreline's recall answered from the store


def test_disconnect_left_the_user_settings_as_they_were(story: Story) -> None:
    assert "Disconnected Gemini CLI" in story.disconnected
    assert json.loads((story.box.gemini_home / "settings.json").read_text(encoding="utf-8")) == USER_SETTINGS
