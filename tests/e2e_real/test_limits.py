"""A login's usage limit, as the real CLIs report it, offline: the loopback server answers the
distill call with a 429 carrying the plan limit's headers (Claude Code under a claude.ai login)
or body (Codex), `loreline import sessions --backend claude-code|codex` reads the CLI's own
words, and the backend cools down until the reset it names: `loreline status` says so and a
background run of that backend makes no call until it lifts.
"""

from __future__ import annotations

import json
import subprocess
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from loreline.samples.builder import ClaudeSession
from tests.conftest import loreline_exe
from tests.e2e_real.fake_models import Replies, error_reply
from tests.e2e_real.harness import CLAUDE_QUIET, CODEX_KEY, Clients, Isolation, Sandbox

pytestmark = pytest.mark.real_clients

RESET = int(time.time()) + 3 * 3600  # three hours from now, a whole minute
RESET -= RESET % 60


def session(box: Sandbox, name: str) -> Path:
    s = ClaudeSession(str(box.repo))
    s.user("In this repo we use pnpm, never npm.")
    s.assistant("Noted.")
    return s.write(box.root / "sessions" / f"{name}.jsonl")


def import_with(box: Sandbox, step: str, backend: str, path: Path, env: dict[str, str], reply: str) -> dict[str, Any]:
    argv = [loreline_exe(), "import", "sessions", "--backend", backend, "--path", str(path), "--json"]
    run = box.run_client(step, argv, env, Replies("Done.", (("call record_memories", reply),))).check()
    return dict(run.json())


def cooldowns(box: Sandbox) -> dict[str, dict[str, Any]]:
    return {c["backend"]: c for c in box.loreline_json("status")["model_use"]["cooldowns"]}


@pytest.fixture(scope="module")
def box(real_clients: Clients, isolation: Isolation, tmp_path_factory: pytest.TempPathFactory) -> Sandbox:
    return Sandbox(tmp_path_factory.mktemp("limits"), real_clients, isolation)


def test_claude_codes_plan_limit_pauses_the_claude_code_backend_until_its_reset(box: Sandbox) -> None:
    credentials = box.home / ".claude" / ".credentials.json"  # a claude.ai login (a Max plan), offline
    credentials.parent.mkdir(parents=True, exist_ok=True)
    credentials.write_text(json.dumps({"claudeAiOauth": {
        "accessToken": "sk-ant-oat01-fake", "refreshToken": "sk-ant-ort01-fake",
        "expiresAt": int(time.time() * 1000) + 86_400_000, "subscriptionType": "max",
        "scopes": ["user:inference", "user:profile", "user:sessions:claude_code"]}}))
    env = box.base_env(ANTHROPIC_BASE_URL="http://127.0.0.1:{port}", TZ="UTC",
                       PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring", **CLAUDE_QUIET)
    env["PATH"] = f"{box.clients.claude.parent}:{env['PATH']}"
    box.loreline("config", "set", "distill.max_retries", "0")
    limit = error_reply(429, "rate_limit_error", "Rate limited", headers={
        "anthropic-ratelimit-unified-status": "rejected", "anthropic-ratelimit-unified-reset": str(RESET),
        "anthropic-ratelimit-unified-representative-claim": "five_hour", "retry-after": str(RESET - int(time.time()))})
    report = import_with(box, "plan-limit", "claude-code", session(box, "plan"), env, limit)
    [deferred] = report["sessions"]["deferred"]
    assert "Claude Code reported its usage limit (You've hit your 5-hour limit · resets " in deferred["reason"]
    held = cooldowns(box)["claude-code"]
    assert held["kind"] == "usage limit" and held["stated"] is True
    assert held["until"] == datetime.fromtimestamp(RESET + 60, UTC).isoformat(timespec="seconds")
    assert held["said"].startswith("You've hit your 5-hour limit · resets ") and held["said"].endswith("(UTC)")
    status = box.loreline("status").stdout
    assert "!! COOLDOWN: background distillation through Claude Code is paused until " in status


def test_codexs_usage_limit_pauses_the_codex_backend_until_the_time_it_names(box: Sandbox) -> None:
    subprocess.run([str(box.clients.codex), "login", "--with-api-key"], input=CODEX_KEY, text=True,
                   capture_output=True, env=box.base_env(), check=True, timeout=60)
    env = box.base_env(OPENAI_BASE_URL="http://127.0.0.1:{port}/v1", TZ="UTC",
                       PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring")
    env["PATH"] = f"{box.clients.codex.parent}:{env['PATH']}"
    limit = error_reply(429, "usage_limit_reached", "The usage limit has been reached",
                        fields={"plan_type": "plus", "resets_at": RESET, "resets_in_seconds": RESET - int(time.time())})
    report = import_with(box, "codex-limit", "codex", session(box, "codex"), env, limit)
    [deferred] = report["sessions"]["deferred"]
    assert "Codex reported its usage limit (You’ve hit your usage limit." in deferred["reason"]
    held = cooldowns(box)["codex"]
    assert held["kind"] == "usage limit" and "try again at " in held["said"]
    assert held["until"] == datetime.fromtimestamp(RESET + 60, UTC).isoformat(timespec="seconds")
