"""A damaged store through the real CLIs, offline: the session runs as usual, the model's
requests carry neither memories nor the damage line, and Claude Code hands the line to the
person (`systemMessage`: in `-p --output-format stream-json` it is the SessionStart
`hook_response` event; the interactive UI shows it). Codex 0.171 accepts the field but `codex
exec` prints no hook message, so only "nothing reaches the model" is asserted for it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import pytest

from loreline.samples.builder import ClaudeSession
from tests.e2e_real.fake_models import Replies
from tests.e2e_real.harness import Clients, Isolation, Run, Sandbox
from tests.e2e_real.test_codex import USER_CONFIG

pytestmark = pytest.mark.real_clients

PREFERENCE = "In this repo we use pnpm, never npm."
PROMPT = "Which package manager, pnpm or npm?"
REPLIES = Replies("Understood.")
LINE = "Loreline: its memory store is damaged, so this session got no memories; run `loreline status` to see how to recover."


@dataclass(repr=False)
class Story:
    box: Sandbox
    runs: dict[str, Run] = field(default_factory=dict)

    def __repr__(self) -> str:
        return f"Story({self.box.root})"


def tell(story: Story) -> Story:
    box = story.box
    earlier = ClaudeSession(cwd=str(box.repo))
    earlier.user(PREFERENCE)
    earlier.assistant("Noted.")
    box.loreline("import", "sessions", "--path", str(earlier.write(box.root / "earlier" / "earlier.jsonl")))
    box.loreline("connect", "claude-code")
    (box.codex_home / "config.toml").write_text(USER_CONFIG, encoding="utf-8")
    box.loreline("connect", "codex")
    story.runs["claude-healthy"] = box.claude("claude-healthy", ["-p", PROMPT], REPLIES).check()
    with (box.loreline_home / "loreline.db").open("r+b") as handle:
        handle.write(b"not a database at all " * 8)
    story.runs["claude"] = box.claude("claude", ["-p", PROMPT, "--output-format", "stream-json", "--verbose"],
                                      REPLIES).check()
    story.runs["codex"] = box.codex("codex", ["exec", "--dangerously-bypass-hook-trust", PROMPT], REPLIES).check()
    return story


@pytest.fixture(scope="module")
def story(real_clients: Clients, isolation: Isolation, tmp_path_factory: pytest.TempPathFactory) -> Story:
    return tell(Story(Sandbox(tmp_path_factory.mktemp("damaged-e2e"), real_clients, isolation)))


def test_a_healthy_store_gives_the_model_the_block(story: Story) -> None:
    """Control: before the damage, the preference reached the model."""
    assert any(PREFERENCE in b for b in story.runs["claude-healthy"].bodies("anthropic"))


@pytest.mark.parametrize(("client", "api"), [("claude", "anthropic"), ("codex", "openai")])
def test_nothing_of_loreline_reaches_the_model(story: Story, client: str, api: str) -> None:
    run = story.runs[client]
    bodies = run.bodies(api)
    assert bodies, f"the session made no model request ({run.folder})"
    assert not any(PREFERENCE in b or "<loreline-memories>" in b or "store is damaged" in b for b in bodies), run.folder


def test_claude_code_hands_the_line_to_the_person(story: Story) -> None:
    events = [json.loads(line) for line in story.runs["claude"].stdout.splitlines() if line.startswith("{")]
    starts = [e for e in events if e.get("subtype") == "hook_response" and e.get("hook_event") == "SessionStart"]
    assert starts, f"no SessionStart hook response in the stream ({story.runs['claude'].folder})"
    assert [json.loads(e["stdout"]) for e in starts] == [{"systemMessage": LINE}]
    assert all(e["exit_code"] == 0 and e["stderr"] == "" for e in starts)
