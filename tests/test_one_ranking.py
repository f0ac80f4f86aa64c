"""One ranking everywhere: the same 30 questions asked of every surface, each a real process —
the command line, the MCP server and the language server over stdio, the prompt hook's entry
choosing by words, and the hook asking the warm recall process — against one store the real
importer wrote. The command line, MCP and the editors return the same memories in the same
order; what the prompt hook adds first is among the three they rank first; the everyday
questions find their memory on every surface, and unrelated ones find nothing anywhere."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from loreline.samples.builder import ClaudeSession
from loreline.store import Store
from loreline_hooks import warm
from tests.capture_helpers import event, hook_env, import_into_store, run_hook, wait_for, worker_lock_held
from tests.conftest import loreline_exe, subprocess_env
from tests.lsp_raw import RawServer

SAID = {
    "uv": "We use uv for Python packages, never pip.",
    "pnpm": "In the web app we use pnpm, never npm or yarn.",
    "tests": "To run the tests, use `uv run pytest -q` from the repo root.",
    "deploy": "We decided to deploy the web app to Fly.io from the main branch.",
    "sqlite": "We decided to keep SQLite because the app runs on laptops.",
    "ruff": "Always run ruff before committing.",
    "flags": "We decided to use Unleash for feature flags.",
    "sentry": "We decided to send errors to Sentry from both the API and the web app.",
    "alembic": "We decided to manage schema changes with Alembic migrations.",
    "branches": "Always name branches feature/<ticket> or fix/<ticket>.",
    "mypy": "Always keep mypy in strict mode for the api package.",
    "redis": "We decided to cache sessions in Redis with a one hour expiry.",
}
#: (question, the memory it must find, or None: only agreement is asked)
QUESTIONS: tuple[tuple[str, str | None], ...] = (
    ("which package manager?", "uv"),
    ("Which package manager do we use?", "uv"),
    ("How do I add a dependency?", "uv"),
    ("How do I run the tests?", "tests"),
    ("Let's add request validation to the signup endpoint. We'll need pydantic; can I pip install it?", "uv"),
    ("can I just npm install lodash in the web app?", "pnpm"),
    ("where do we deploy?", "deploy"),
    ("what do we use for feature flags?", "flags"),
    ("where do crashes get reported?", "sentry"),
    ("how do I change the database schema?", "alembic"),
    ("what should I call my branch?", "branches"),
    ("which linter do we run?", "ruff"),
    ("how strict is type checking?", "mypy"),
    ("which database does the app use?", "sqlite"),
    ("where are sessions cached?", "redis"),
    ("what do we use to install javascript packages?", "pnpm"),
    ("can I use yarn here?", "pnpm"),
    ("how do we ship the web app?", "deploy"),
    ("is there a test command?", "tests"),
    ("do we use poetry?", "uv"),
    ("what runs before a commit?", None),
    ("how do errors get tracked?", None),
    ("which cache do we use?", None),
    ("how do we roll out a half-finished feature?", None),
    ("which migrations tool?", None),
    ("What is the capital of France?", None),
    ("Write a haiku about autumn leaves.", None),
    ("how does TCP slow start work?", None),
    ("thanks, that's all for now", None),
    ("which CSS framework do we use?", None),
)
TOP = 5
#: the first questions are the everyday ones every surface must answer, the prompt hook too
HEADLINES_HERE = 5
UNRELATED = ("What is the capital of France?", "Write a haiku about autumn leaves.", "how does TCP slow start work?",
             "thanks, that's all for now")
_ID = re.compile(r"#(\d+)\b")


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path, dict[str, Any], dict[str, int]]]:
    root = tmp_path_factory.mktemp("one-ranking")
    home = root / "loreline-home"
    folder = root / "proj"
    folder.mkdir()
    session = ClaudeSession(cwd=str(folder))
    for said in SAID.values():
        session.user(said)
        session.assistant("Noted.")
    path = session.write(root / "sessions" / f"{session.session_id}.jsonl")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("LORELINE_HOME", str(home))
        import_into_store(path)
    with Store(home / "loreline.db") as store:
        held = [int(i) for (i,) in store.rows("SELECT id FROM memories WHERE status = 'held'")]
    for memory_id in held:  # what the rules only suggest, a person approves
        done = subprocess.run([loreline_exe(), "approve", str(memory_id)], capture_output=True, text=True,
                              env=hook_env(home), timeout=120)
        assert done.returncode == 0, done.stderr
    with Store(home / "loreline.db") as store:
        texts = {str(t): int(i) for i, t in store.rows("SELECT id, text FROM memories WHERE status = 'active'")}
    ids = {key: texts[text] for key, text in SAID.items()}
    yield home, folder, event("UserPromptSubmit", session, path), ids


def _cli(home: Path, folder: Path, question: str) -> list[int]:
    done = subprocess.run([loreline_exe(), "recall", question, "--json", "--limit", str(TOP), "--project",
                           str(folder)], capture_output=True, text=True, env=hook_env(home), timeout=120)
    assert done.returncode == 0, done.stderr
    return [int(hit["memory"]["id"]) for hit in json.loads(done.stdout)]


async def _mcp(home: Path, folder: Path) -> list[list[int]]:
    params = StdioServerParameters(command=str(loreline_exe()), args=["mcp"], cwd=str(folder),
                                   env=subprocess_env(home))
    out = []
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        for question, _ in QUESTIONS:
            result = await session.call_tool("recall", {"query": question, "limit": TOP})
            assert not result.is_error
            text = "\n".join(block.text for block in result.content if block.type == "text")
            out.append([int(m.group(1)) for m in (_ID.match(line) for line in text.splitlines()) if m])
    return out


def _lsp(home: Path, folder: Path, log: Path) -> list[list[int]]:
    env = {**subprocess_env(home), "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}
    server = RawServer(env, log)
    try:
        server.initialize(folder)
        out = []
        for question, _ in QUESTIONS:
            answer = server.call("loreline/recall", {"query": question, "limit": TOP}, timeout=60)
            out.append([int(item["memory"]["id"]) for item in answer["result"]["items"]])
        return out
    finally:
        server.close()


def _hook(home: Path, payload: dict[str, Any], how: str) -> list[list[int]]:
    out = []
    with worker_lock_held(home):
        for n, (question, _) in enumerate(QUESTIONS):
            result = run_hook(home, "UserPromptSubmit", stdin={**payload, "session_id": f"{how}-{n}",
                                                               "prompt": question},
                              env=hook_env(home, LORELINE_PROMPT_RECALL=how))
            assert result.returncode == 0 and result.stderr == b"", result.stderr
            block = json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"] if result.stdout.strip() else ""
            out.append([int(i) for i in re.findall(r"^- #(\d+) ", block, re.M)])
    return out


def test_every_surface_agrees_on_what_thirty_questions_find(world: tuple[Path, Path, dict[str, Any], dict[str, int]],
                                                            tmp_path: Path) -> None:
    import asyncio

    home, folder, payload, ids = world
    cli = [_cli(home, folder, question) for question, _ in QUESTIONS]
    mcp = asyncio.run(_mcp(home, folder))
    lsp = _lsp(home, folder, tmp_path / "lsp.log")
    words = _hook(home, payload, "words")
    warm_process = subprocess.Popen([sys.executable, "-m", "loreline_warm"],
                                    env=hook_env(home, LORELINE_PROMPT_RECALL="meaning"),
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("LORELINE_HOME", str(home))
            wait_for(warm.listening, 60, "the warm process to listen")
        meaning = _hook(home, payload, "meaning")
        assert warm_process.poll() is None
    finally:
        warm_process.kill()
        warm_process.wait()

    wrong = []
    for n, (question, answer) in enumerate(QUESTIONS):
        if not cli[n] == mcp[n] == lsp[n]:
            wrong.append(f"{question!r}: command line {cli[n]}, MCP {mcp[n]}, editors {lsp[n]}")
        # the prompt hook keeps fewer (higher floors, at most three) but leads with what recall ranks first
        for name, added in (("words", words[n]), ("meaning", meaning[n])):
            if added and added[0] not in cli[n][:3]:
                wrong.append(f"{question!r}: the hook by {name} leads with #{added[0]}, recall ranks {cli[n]}")
        if answer is not None and ids[answer] not in cli[n][:3]:
            wrong.append(f"{question!r}: recall ranks {cli[n]} without #{ids[answer]} ({answer}) in its top 3")
        if n < HEADLINES_HERE:
            for name, found in (("words", words[n]), ("meaning", meaning[n])):
                if ids[str(answer)] not in found:
                    wrong.append(f"{question!r}: the hook by {name} added {found} without #{ids[str(answer)]}")
        if question in UNRELATED and (cli[n] or words[n] or meaning[n]):
            wrong.append(f"{question!r} is unrelated: recall {cli[n]}, words {words[n]}, meaning {meaning[n]}")
    assert not wrong, "\n".join(wrong)
