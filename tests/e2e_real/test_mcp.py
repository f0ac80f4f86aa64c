"""Loreline's MCP server as the real assistants use it, offline: `loreline connect` registers it
where each CLI looks, the scripted model calls `recall`, and the memory comes back to the model
in its next request."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from loreline.samples.builder import ClaudeSession
from tests.e2e_real.fake_models import Replies, tool_reply
from tests.e2e_real.harness import Clients, Isolation, Run, Sandbox

pytestmark = pytest.mark.real_clients

QUESTION = "Which package manager does this repo use?"
MEMORY = "In this repo we use pnpm, never npm."


@pytest.fixture
def box(real_clients: Clients, isolation: Isolation, tmp_path: Path) -> Sandbox:
    sandbox = Sandbox(tmp_path / "box", real_clients, isolation)
    session = ClaudeSession(cwd=str(sandbox.repo))
    session.user(MEMORY)
    session.assistant("Understood: pnpm it is.")
    path = session.write(sandbox.root / "seed" / f"{session.session_id}.jsonl")
    sandbox.loreline("import", "sessions", "--path", str(path))
    assert any("pnpm" in m["text"] for m in sandbox.memories())
    return sandbox


def test_claude_code_calls_recall_and_the_memory_reaches_the_model(box: Sandbox) -> None:
    box.loreline("connect", "claude-code")
    config = json.loads((box.home / ".claude.json").read_text())
    assert config["mcpServers"]["loreline"]["args"] == ["mcp"]
    replies = Replies("Use pnpm.", (("package manager", tool_reply("mcp__loreline__recall",
                                                                   {"query": "package manager pnpm"})),))
    run = box.claude("mcp-recall", ["-p", QUESTION, "--output-format", "json",
                                    "--allowedTools", "mcp__loreline__recall"], replies).check()
    bodies = run.bodies("anthropic")
    offered = [b for b in bodies if '"mcp__loreline__recall"' in b]
    assert offered, "the model was never offered Loreline's recall tool"
    answered = [json.loads(b) for b in bodies if '"tool_result"' in b]
    assert answered, "no request carried the tool's result"
    results = [block for message in answered[-1]["messages"] if isinstance(message.get("content"), list)
               for block in message["content"] if block.get("type") == "tool_result"]
    text = json.dumps(results)
    assert "pnpm" in text and "never npm" in text and '"is_error": true' not in text


def test_disconnect_removes_only_loreline_s_server(box: Sandbox) -> None:
    config_path = box.home / ".claude.json"
    config_path.write_text(json.dumps({"mcpServers": {"other": {"type": "stdio", "command": "/bin/true",
                                                                  "args": [], "env": {}}},
                                       "numStartups": 3}, indent=2) + "\n")
    box.loreline("connect", "claude-code")
    assert set(json.loads(config_path.read_text())["mcpServers"]) == {"other", "loreline"}
    box.loreline("disconnect", "claude-code")
    after = json.loads(config_path.read_text())
    assert after["mcpServers"] == {"other": {"type": "stdio", "command": "/bin/true", "args": [], "env": {}}}
    assert after["numStartups"] == 3


CODEX_CONFIG = """\
model = "gpt-fake"
model_provider = "fake"
approval_policy = "never"
sandbox_mode = "read-only"
check_for_update_on_startup = false

[model_providers.fake]
name = "fake"
base_url = "http://127.0.0.1:9/v1"
env_key = "FAKE_OPENAI_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false
"""


#: Codex starts MCP servers beside the first request; `required` makes this run wait for ours
#: (in a user's config a server that fails to start must not stop Codex, so connect leaves it out)
WAIT_FOR_MCP = ("-c", "mcp_servers.loreline.required=true")


def _offered_tools(run: Run) -> list[str]:
    """Tool names as the model calls them: a namespace's tools as `<namespace>__<tool>`."""
    names: list[str] = []
    for body in run.bodies("openai"):
        for tool in json.loads(body).get("tools", []):
            if tool.get("type") == "namespace":
                names += [f"{tool['name']}__{inner.get('name')}" for inner in tool.get("tools", [])]
            else:
                names.append(str(tool.get("name") or ""))
    return names


def test_codex_calls_recall_through_its_mcp_config_and_the_memory_reaches_the_model(box: Sandbox) -> None:
    (box.codex_home / "config.toml").write_text(CODEX_CONFIG)
    box.loreline("connect", "codex")
    assert "[mcp_servers.loreline]" in (box.codex_home / "config.toml").read_text()
    first = box.codex("mcp-tools", ["exec", *WAIT_FOR_MCP, "--skip-git-repo-check", "Say hello."],
                      Replies("Hello.")).check()
    recall_names = [n for n in _offered_tools(first) if n.endswith("recall") and "loreline" in n]
    assert recall_names, f"Codex did not offer Loreline's recall tool: {_offered_tools(first)}"
    replies = Replies("Use pnpm.", (("package manager", tool_reply(recall_names[0],
                                                                   {"query": "package manager pnpm"})),))
    run = box.codex("mcp-recall", ["exec", *WAIT_FOR_MCP, "--skip-git-repo-check", QUESTION], replies).check()
    outputs = [item for body in run.bodies("openai") for item in json.loads(body).get("input", [])
               if isinstance(item, dict) and item.get("type") == "function_call_output"]
    assert outputs, "no request carried the tool's output"
    text = json.dumps(outputs)
    assert "pnpm" in text and "never npm" in text
