"""The real Claude Code CLI, headless, against a fake Anthropic API: a project whose CLAUDE.md
states a preference Loreline also learnt, and whose auto memory index states a fact Loreline
also learnt, does not get either injected twice.

Loreline learns a preference, a decision and a fact from an earlier session; the user's
CLAUDE.md says the preference and the auto memory `MEMORY.md` the fact; `loreline import
native` reads both. A new `claude -p` session must then carry each of them once (from Claude
Code's own loading), the decision inside Loreline's block, and the block must say that two
memories were left out and why. Under `CLAUDE_CODE_DISABLE_AUTO_MEMORY=1` the CLI loads no
MEMORY.md, so the block carries the fact again.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from loreline.samples.builder import ClaudeSession
from tests.e2e_real.fake_models import Replies
from tests.e2e_real.harness import Clients, Isolation, Run, Sandbox

pytestmark = pytest.mark.real_clients

PREFERENCE = "In this repo we use pnpm, never npm."
DECISION = "We'll use Postgres advisory locks because each billing job needs one worker."
FACT = "The fix was to pin node to 20 in .nvmrc."
REPLIES = Replies("pnpm, as the project notes say.", ())
BLOCK = re.compile(r"<loreline-memories>.*?</loreline-memories>", re.DOTALL)
LEFT_OUT = "left out: this session already loads them from CLAUDE.md or MEMORY.md"


def _slug(path: Path) -> str:
    return re.sub(r"[^A-Za-z0-9]", "-", str(path))


@pytest.fixture(scope="module")
def box(real_clients: Clients, isolation: Isolation, tmp_path_factory: pytest.TempPathFactory) -> Sandbox:
    box = Sandbox(tmp_path_factory.mktemp("claude-native"), real_clients, isolation)
    box.loreline("connect", "claude-code")
    folder = box.home / ".claude" / "projects" / _slug(box.repo)
    earlier = ClaudeSession(str(box.repo))
    earlier.user(f"{PREFERENCE} {DECISION}")
    earlier.user(FACT)
    box.loreline("import", "sessions", "--path", str(earlier.write(folder / f"{earlier.session_id}.jsonl")))
    (box.repo / "CLAUDE.md").write_text(f"# Shop\n\n- {PREFERENCE}\n", encoding="utf-8")
    (folder / "memory").mkdir(parents=True)
    (folder / "memory" / "MEMORY.md").write_text(f"- {FACT}\n", encoding="utf-8")
    box.loreline("import", "native")
    return box


def _system_and_messages(run: Run) -> list[str]:
    return [b for b in run.bodies("anthropic") if "Which package manager" in b]


def test_a_preference_in_claude_md_is_not_injected_twice(box: Sandbox) -> None:
    run = box.claude("fresh", ["-p", "Which package manager do we use here?", "--output-format", "json"],
                     REPLIES).check()
    [body, *_] = _system_and_messages(run) or [""]
    assert body, f"no request carried the prompt ({run.folder})"
    blocks = BLOCK.findall(body)
    assert len(blocks) == 1, f"Loreline's block was not injected once ({run.folder})"
    block = blocks[0]
    assert DECISION in block
    assert "pnpm" not in block and "nvmrc" not in block
    assert f"(2 {LEFT_OUT})" in block
    assert "CLAUDE.md (project instructions" in body and "MEMORY.md (user's auto-memory" in body
    assert body.count("we use pnpm, never npm") == 1, f"the preference reached the model more than once ({run.folder})"
    assert body.count("pin node to 20") == 1, f"the fact reached the model more than once ({run.folder})"


def test_without_auto_memory_the_fact_comes_back_in_the_block(box: Sandbox) -> None:
    run = box.claude("no-auto-memory", ["-p", "Which package manager do we use here?", "--output-format", "json"],
                     REPLIES, CLAUDE_CODE_DISABLE_AUTO_MEMORY="1").check()
    [body, *_] = _system_and_messages(run) or [""]
    [block] = BLOCK.findall(body)
    assert "pin node to 20" in block and "pnpm" not in block
    assert f"(1 {LEFT_OUT})" in block
    assert body.count("pin node to 20") == 1, f"MEMORY.md was loaded although auto memory is off ({run.folder})"
