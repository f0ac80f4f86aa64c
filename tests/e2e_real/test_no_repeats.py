"""No memory twice in one context, through the real CLIs offline: a resumed session (Claude
Code `claude -p --resume <id>`, Codex `codex exec resume --last`) and a compacted one (Claude
Code `claude -p "/compact" --resume <id>`, then resumed once more; Codex resumed with an
auto-compaction limit so small that it compacts first) send the fake model each
memory at most once per request, though SessionStart runs again and a prompt names a memory
the history already holds.

The store holds a preference, a decision and a fact imported from an earlier session;
`capture.session_start_chars = 400` lets the first SessionStart show only the preference and
the first prompt brings the decision (prompt recall by words: no warm process needed). A
memory in the history is counted as often as its text appears in the request.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pytest

from loreline.samples.builder import ClaudeSession
from tests.e2e_real.fake_models import Replies
from tests.e2e_real.harness import Clients, Isolation, Run, Sandbox
from tests.e2e_real.test_codex import USER_CONFIG

pytestmark = pytest.mark.real_clients

PREFERENCE = "In this repo we use pnpm, never npm."
DECISION = "We will use Postgres advisory locks because each billing job needs one worker."
FACT = "The fix was to pin node to 20 in .nvmrc."
FIRST = "Which pnpm script starts the billing job, and how does it take its advisory lock?"
AGAIN = "And can the billing job take a second advisory lock with pnpm?"
AFTER_COMPACT = "Once more: does the billing job take its advisory lock through pnpm?"
REPLIES = Replies("Understood.")
BLOCK = "<loreline-memories>"
WORDS = {"LORELINE_PROMPT_RECALL": "words"}


@dataclass(repr=False)
class Story:
    box: Sandbox
    runs: dict[str, Run] = field(default_factory=dict)

    def __repr__(self) -> str:
        return f"Story({self.box.root})"

    def request(self, step: str, prompt: str, api: str) -> str:
        """The last model request of `step` whose last user message carries `prompt`."""
        bodies = [json.dumps(r["body"], ensure_ascii=False) for r in self.runs[step].requests
                  if r["api"] == api and r["method"] == "POST" and prompt in _last_user(r["body"])]
        assert bodies, f"no request of {step} carried its prompt ({self.runs[step].folder})"
        return bodies[-1]


def _last_user(body: dict[str, Any]) -> str:
    messages = body.get("messages") or body.get("input") or []
    users = [m for m in messages if isinstance(m, dict) and m.get("role") == "user"]
    return json.dumps(users[-1], ensure_ascii=False) if users else ""


def counts(body: str) -> dict[str, int]:
    return {text: body.count(text) for text in (PREFERENCE, DECISION, FACT)}


def tell(story: Story) -> Story:
    box = story.box
    earlier = ClaudeSession(cwd=str(box.repo))
    for said in (PREFERENCE, DECISION, FACT):
        earlier.user(said)
        earlier.assistant("Noted.")
    box.loreline("import", "sessions", "--path", str(earlier.write(box.root / "earlier" / "earlier.jsonl")))
    assert sorted(m["text"] for m in box.memories()) == sorted([PREFERENCE, DECISION, FACT])
    box.loreline("config", "set", "capture.session_start_chars", "400")
    box.loreline("connect", "claude-code")
    (box.codex_home / "config.toml").write_text(USER_CONFIG, encoding="utf-8")
    box.loreline("connect", "codex")

    def claude(step: str, *args: str) -> Run:
        story.runs[step] = box.claude(step, ["-p", *args, "--output-format", "json"], REPLIES, **WORDS).check()
        return story.runs[step]

    session = str(claude("claude-first", FIRST).json()["session_id"])
    claude("claude-resume", AGAIN, "--resume", session)
    claude("claude-compact", "/compact", "--resume", session)
    claude("claude-after-compact", AFTER_COMPACT, "--resume", session)

    def codex(step: str, *args: str) -> Run:
        story.runs[step] = box.codex(step, ["exec", "--dangerously-bypass-hook-trust", *args], REPLIES,
                                     **WORDS).check()
        return story.runs[step]

    codex("codex-first", FIRST)
    codex("codex-resume", "resume", "--last", AGAIN)
    # a tiny auto-compaction limit: Codex compacts the resumed history, then answers the prompt
    codex("codex-compact", "-c", "model_auto_compact_token_limit=50", "resume", "--last", AFTER_COMPACT)
    return story


@pytest.fixture(scope="module")
def story(real_clients: Clients, isolation: Isolation, tmp_path_factory: pytest.TempPathFactory) -> Story:
    return tell(Story(Sandbox(tmp_path_factory.mktemp("repeats-e2e"), real_clients, isolation)))


@pytest.mark.parametrize(("client", "api"), [("claude", "anthropic"), ("codex", "openai")])
def test_the_first_session_shows_the_preference_then_the_decision(story: Story, client: str, api: str) -> None:
    """Control: the first run's last request holds the SessionStart block and the prompt's."""
    body = story.request(f"{client}-first", FIRST, api)
    assert BLOCK in body and counts(body) == {PREFERENCE: 1, DECISION: 1, FACT: 0}, counts(body)


@pytest.mark.parametrize(("client", "api"), [("claude", "anthropic"), ("codex", "openai")])
def test_a_resumed_session_receives_each_memory_once(story: Story, client: str, api: str) -> None:
    body = story.request(f"{client}-resume", AGAIN, api)
    # the history brings the preference and the decision back; the resume shows only the fact
    assert counts(body) == {PREFERENCE: 1, DECISION: 1, FACT: 1}, \
        f"{counts(body)} in {story.runs[f'{client}-resume'].folder}"


def test_a_compacted_then_resumed_session_receives_each_memory_at_most_once(story: Story) -> None:
    compacted = story.runs["claude-compact"]
    assert any("compact" in json.dumps(r["body"]).lower() for r in compacted.requests), \
        f"the compaction made no model request ({compacted.folder})"
    body = story.request("claude-after-compact", AFTER_COMPACT, "anthropic")
    found = counts(body)
    assert all(n <= 1 for n in found.values()), f"{found} in {story.runs['claude-after-compact'].folder}"
    # the summary replaced the history: SessionStart(compact) showed the block again
    assert found[PREFERENCE] == 1, found


def test_a_codex_session_compacted_on_resume_receives_each_memory_at_most_once(story: Story) -> None:
    run = story.runs["codex-compact"]
    rollout = sorted((story.box.codex_home / "sessions").glob("*/*/*/rollout-*.jsonl"))[-1]
    assert '"type":"compacted"' in rollout.read_text(encoding="utf-8").replace(" ", ""), \
        f"Codex did not compact ({run.folder})"
    body = story.request("codex-compact", AFTER_COMPACT, "openai")
    found = counts(body)
    assert all(n <= 1 for n in found.values()), f"{found} in {run.folder}"
