"""Two stories told as a new user would live them, every step a real process (the CLI, the hook
the assistant runs, the worker that hook starts):

1. a large history at first connect: hundreds of Claude Code sessions on disk and a logged-in
   `claude`; `loreline connect` says how many are not imported and what `loreline import
   sessions` would take, the dry run shows the same figures, and nothing of the history is
   distilled in the background: the worker reads only the session whose hook fired;
2. consent that tells the truth: with ANTHROPIC_API_KEY in the shell, `connect` says background
   capture distils with the offline rules (and why), and the worker the hook starts does just
   that; after `connect --store-key` it says the Anthropic API with the key in the OS keyring,
   and the worker does that.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from loreline.samples.builder import ClaudeSession, project_slug
from tests.capture_helpers import db_rows, run_hook, wait_for, write_config
from tests.conftest import loreline_exe, subprocess_env
from tests.fake_anthropic import TEST_KEY, FakeAnthropic, fake_anthropic  # noqa: F401  (fixture)

pytestmark = pytest.mark.slow  # many CLI processes, hooks and the workers they start

ROOT = Path(__file__).resolve().parents[1]
ANSWER = {"type": "result", "subtype": "success", "is_error": False, "num_turns": 1, "result": "",
          "structured_output": {"memories": []},
          "usage": {"input_tokens": 900, "output_tokens": 20, "cache_read_input_tokens": 0,
                    "cache_creation_input_tokens": 0}}


def write_session(folder: Path, repo: Path, index: int, mtime: float | None = None) -> Path:
    s = ClaudeSession(str(repo))
    s.user(f"Session {index}: in this repo we run the linter before committing.")
    s.assistant("Noted.")
    s.user("And keep the changelog short, please.")
    s.assistant("Will do.")
    path = s.write(folder / f"{s.session_id}.jsonl")
    if mtime is not None:
        os.utime(path, (mtime, mtime))
    return path


def logged_in_claude(world: Path) -> Path:
    """A `claude` on PATH that answers every call with an empty structured answer, counting its
    runs, and a claude.ai credentials file (so Loreline takes it as logged in without running it)."""
    folder = world / "bin"
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "claude"
    script.write_text(f"#!{sys.executable}\nimport sys, pathlib\nsys.stdin.read()\n"
                      f"(pathlib.Path(__file__).parent / 'claude.runs').open('a').write('ran\\n')\n"
                      f"print({json.dumps(json.dumps(ANSWER))})\n")
    script.chmod(0o755)
    credentials = world / "home" / ".claude" / ".credentials.json"
    credentials.parent.mkdir(parents=True, exist_ok=True)
    credentials.write_text("{}")
    return script


def claude_runs(script: Path) -> int:
    marker = script.with_name("claude.runs")
    return len(marker.read_text().splitlines()) if marker.exists() else 0


def cli(env: dict[str, str], *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([loreline_exe(), *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=300)
    assert done.returncode == 0, done.stderr
    return done


def session_end(env: dict[str, str], home: Path, path: Path, repo: Path) -> None:
    """The assistant's SessionEnd hook, with the assistant's environment (its key included); the
    hook starts a detached worker, which this waits for."""
    s_id = json.loads(path.read_text().splitlines()[0])["sessionId"]
    done = run_hook(home, "SessionEnd", stdin={"session_id": s_id, "transcript_path": str(path), "cwd": str(repo),
                                               "hook_event_name": "SessionEnd"}, env=env)
    assert done.returncode == 0 and done.stderr == b""
    wait_for(lambda: db_rows(home, "SELECT state FROM jobs WHERE session_path = ?", (str(path),), early=True)
             in ([("done",)], [("failed",)]), timeout=120, what="the hook's worker")
    assert db_rows(home, "SELECT state FROM jobs WHERE session_path = ?", (str(path),)) == [("done",)]


def test_a_large_history_at_first_connect_is_measured_and_never_drained_in_the_background(
        fake_anthropic: FakeAnthropic, tmp_path: Path, loreline_home: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    folder = tmp_path / "home" / ".claude" / "projects" / project_slug(str(repo))
    folder.mkdir(parents=True)
    now = time.time()
    history = [write_session(folder, repo, n, now - 3600 - n * 7200) for n in range(300)]  # 25 days of sessions
    claude = logged_in_claude(tmp_path)
    env = subprocess_env(loreline_home, HOME=str(tmp_path / "home"), PATH=f"{claude.parent}{os.pathsep}"
                         f"{os.environ['PATH']}", PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring",
                         ANTHROPIC_API_KEY=TEST_KEY, ANTHROPIC_BASE_URL=fake_anthropic.url)

    connected = cli(env, "connect", "claude-code", cwd=repo).stdout
    assert ("Your Claude Code history holds 300 sessions Loreline has not imported. Background capture leaves "
            "them alone: it reads only the sessions whose hooks fire from now on.") in connected
    said = re.search(r"would import the newest 20 of the last 14 days: (\d+) model calls, ≈ ([\d,]+) input tokens "
                     r"\(chars/4\) with anthropic \(claude-haiku-4-5\)", connected)
    assert said is not None, connected
    calls, tokens = int(said.group(1)), said.group(2)
    assert calls >= 20 and int(tokens.replace(",", "")) > 20 * 1000
    assert "through Claude Code under your Claude Code login (claude.ai): that is your Claude plan" in connected
    assert fake_anthropic.requests == [] and claude_runs(claude) == 0

    dry = cli(env, "import", "sessions", "--dry-run", cwd=repo).stdout
    assert (f"Would send {calls} chunks ≈ {tokens} input tokens to claude-haiku-4-5: {calls} model calls from 20 "
            "sessions") in dry
    cli(env, "worker", "--drain", cwd=repo)  # a worker run of its own: the history is not its work
    assert fake_anthropic.requests == [] and claude_runs(claude) == 0
    assert db_rows(loreline_home, "SELECT count(*) FROM ledger") in ([], [(0,)])

    today = write_session(folder, repo, 300)
    session_end(env, loreline_home, today, repo)
    assert claude_runs(claude) == 1 and fake_anthropic.requests == []  # the login, never the shell's key
    assert db_rows(loreline_home, "SELECT session_path FROM ledger") == [(str(today),)]
    assert not {str(p) for p in history} & {r[0] for r in db_rows(loreline_home, "SELECT session_path FROM ledger")}


def test_what_connect_says_is_what_the_background_worker_does(fake_anthropic: FakeAnthropic, tmp_path: Path,
                                                               loreline_home: Path) -> None:
    fake_anthropic.default = FakeAnthropic.tool("record_memories", {"memories": []})
    repo = tmp_path / "repo"
    repo.mkdir()
    folder = tmp_path / "home" / ".claude" / "projects" / project_slug(str(repo))
    folder.mkdir(parents=True)
    # the endpoint for Loreline's own key (the shell's ANTHROPIC_BASE_URL, like its key, stays with the assistant)
    write_config(loreline_home, f'[distill]\nbase_url = "{fake_anthropic.url}"\n')
    env = subprocess_env(loreline_home, HOME=str(tmp_path / "home"), PATH=f"{tmp_path / 'no-claude'}{os.pathsep}"
                         f"{Path(sys.executable).parent}{os.pathsep}/usr/bin:/bin",
                         PYTHONPATH=f"{os.environ.get('PYTHONPATH', '')}{os.pathsep}{ROOT}",
                         PYTHON_KEYRING_BACKEND="tests.file_keyring.FileKeyring",
                         LORELINE_TEST_KEYRING=str(tmp_path / "keyring.json"),
                         ANTHROPIC_API_KEY=TEST_KEY, ANTHROPIC_BASE_URL=fake_anthropic.url)

    connected = cli(env, "connect", "claude-code", cwd=repo).stdout
    assert "Captured sessions are distilled offline by the rules (no model, nothing leaves this machine)" in connected
    assert ("ANTHROPIC_API_KEY is set in this shell, but background capture never uses an assistant's key from the "
            "environment: `loreline connect --store-key` (or `loreline auth set`) keeps a key for it in the OS "
            "keyring.") in connected
    first = write_session(folder, repo, 1)
    session_end(env, loreline_home, first, repo)
    assert db_rows(loreline_home, "SELECT policy FROM ledger WHERE session_path = ?", (str(first),))[0][0] \
        .startswith("rules")
    assert fake_anthropic.requests == []

    stored = cli(env, "connect", "claude-code", "--store-key", cwd=repo).stdout
    assert ("Stored the ANTHROPIC_API_KEY of this shell (sk-ant-…XYZW) in the OS keyring "
            "(tests.file_keyring.FileKeyring) for Loreline's background capture.") in stored
    assert TEST_KEY not in stored
    assert ("Captured sessions are distilled in the background by claude-haiku-4-5 through the Anthropic API with "
            "the API key from the OS keyring, billed to that key.") in stored
    second = write_session(folder, repo, 2)
    session_end(env, loreline_home, second, repo)
    assert db_rows(loreline_home, "SELECT policy FROM ledger WHERE session_path = ?", (str(second),))[0][0] \
        .startswith("anthropic/claude-haiku-4-5")
    sent = fake_anthropic.requests  # the distill call, and the judge's when a memory lands near another
    assert sent and all(r.api_key == TEST_KEY for r in sent)
    status = cli(env, "status", cwd=repo).stdout
    assert ("Background Captured sessions are distilled in the background by claude-haiku-4-5 through the "
            "Anthropic API with the API key from the OS keyring") in status
    background = json.loads(cli(env, "status", "--json", cwd=repo).stdout)["model_use"]
    assert background["unattended_calls"] == len(sent) and background["unattended_tokens"] > 0
