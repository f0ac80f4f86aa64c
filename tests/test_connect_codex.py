"""`loreline connect codex` with Codex's hooks: `$CODEX_HOME/hooks.json` gets SessionStart,
UserPromptSubmit, Stop, PreCompact and SessionEnd; a notify program Loreline set earlier goes;
a user's own hooks and notify stay; disconnect removes exactly Loreline's entries."""

from __future__ import annotations

import json
import shlex
import subprocess
import tomllib
from pathlib import Path
from typing import Any

from tests.capture_helpers import HOOK, worker_lock_held
from tests.conftest import loreline_exe, subprocess_env

EVENTS = ["SessionStart", "UserPromptSubmit", "Stop", "PreCompact", "SessionEnd"]
THEIR_HOOKS = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "python3 /home/me/log.py"}]}]}}
CONFIG = '# mine\nmodel = "gpt-fake"\n'


def cli(home: Path, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    env = subprocess_env(home / "loreline", HOME=str(home), CODEX_HOME=str(home / ".codex"), **extra)
    return subprocess.run([loreline_exe(), *args], capture_output=True, text=True, env=env, timeout=60)


def codex_home(home: Path) -> Path:
    folder = home / ".codex"
    folder.mkdir(exist_ok=True)
    return folder


def ours(data: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    return {event: [h for g in groups for h in g["hooks"] if h["command"].startswith(str(HOOK))]
            for event, groups in data["hooks"].items()}


def test_connect_installs_the_five_hooks_and_says_how_to_trust_them(tmp_path: Path) -> None:
    folder = codex_home(tmp_path)
    (folder / "config.toml").write_text(CONFIG)
    (folder / "hooks.json").write_text(json.dumps(THEIR_HOOKS, indent=2) + "\n")
    result = cli(tmp_path, "connect", "codex")
    assert result.returncode == 0, result.stderr
    assert "Connected Codex" in result.stdout and "/hooks" in result.stdout and "trust" in result.stdout
    data = json.loads((folder / "hooks.json").read_text())
    found = ours(data)
    assert list(found) == ["Stop", *[e for e in EVENTS if e != "Stop"]]
    for event in EVENTS:
        [handler] = found[event]
        assert handler["command"] == f"{HOOK} {event}" and handler["type"] == "command"
        assert 0 < handler["timeout"] <= (3 if event == "SessionEnd" else 10)
    assert data["hooks"]["Stop"][0] == THEIR_HOOKS["hooks"]["Stop"][0]
    assert without_mcp((folder / "config.toml").read_text()) == CONFIG, "no notify where hooks run"
    assert tomllib.loads((folder / "config.toml").read_text())["mcp_servers"]["loreline"]["args"] == ["mcp"]
    again = cli(tmp_path, "connect", "codex")
    assert "already connected" in again.stdout and "/hooks" in again.stdout
    off = cli(tmp_path, "disconnect", "codex")
    assert off.returncode == 0 and "Disconnected Codex" in off.stdout
    assert json.loads((folder / "hooks.json").read_text()) == THEIR_HOOKS
    assert (folder / "config.toml").read_text() == CONFIG


def test_connecting_with_hooks_replaces_loreline_s_old_notify_and_keeps_a_foreign_one(tmp_path: Path) -> None:
    folder = codex_home(tmp_path)
    config = folder / "config.toml"
    config.write_text(CONFIG + "\n[features]\nhooks = false\n")
    assert cli(tmp_path, "connect", "codex").returncode == 0
    assert tomllib.loads(config.read_text())["notify"] == [str(HOOK), "codex-notify"]
    config.write_text(config.read_text().replace("hooks = false", "hooks = true"))
    result = cli(tmp_path, "connect", "codex")
    assert result.returncode == 0 and "notify program" in result.stdout and "Stop hook" in result.stdout
    assert "notify" not in tomllib.loads(config.read_text())
    assert set(ours(json.loads((folder / "hooks.json").read_text()))) == set(EVENTS)
    theirs = 'notify = ["python3", "/home/me/notify.py"]\n' + without_mcp(config.read_text())
    config.write_text(theirs)
    assert cli(tmp_path, "connect", "codex").returncode == 0
    assert cli(tmp_path, "disconnect", "codex").returncode == 0
    assert config.read_text() == theirs
    assert not (folder / "hooks.json").exists(), "connect created it; disconnect removes it"


def test_a_read_only_hooks_file_is_refused_in_one_line(tmp_path: Path) -> None:
    folder = codex_home(tmp_path)
    hooks = folder / "hooks.json"
    hooks.write_text(json.dumps(THEIR_HOOKS))
    hooks.chmod(0o400)
    result = cli(tmp_path, "connect", "codex")
    assert result.returncode == 2 and "read-only" in result.stderr and result.stderr.count("\n") == 1
    assert json.loads(hooks.read_text()) == THEIR_HOOKS


def test_the_installed_commands_run_codex_payloads(tmp_path: Path) -> None:
    """Each command connect wrote, fed the payload Codex 0.171 sends, exits 0 without a word on
    stderr; the Stop hook records the turn as Codex's (the transcript is a rollout)."""
    folder = codex_home(tmp_path)
    assert cli(tmp_path, "connect", "codex").returncode == 0
    data = json.loads((folder / "hooks.json").read_text())
    rollout = folder / "sessions" / "2026" / "11" / "29" / "rollout-2026-11-29T16-46-02-01a22833.jsonl"
    base = {"session_id": "01a22833-07a2-76f2-ad97-67f3cb132fad", "transcript_path": str(rollout),
            "cwd": str(tmp_path), "model": "gpt-fake", "permission_mode": "bypassPermissions"}
    extra = {"SessionStart": {"source": "startup"}, "UserPromptSubmit": {"prompt": "use pnpm?", "turn_id": "t1"},
             "Stop": {"turn_id": "t1", "stop_hook_active": False, "last_assistant_message": "Done."},
             "PreCompact": {"trigger": "auto"}, "SessionEnd": {"reason": "other"}}
    env = subprocess_env(tmp_path / "loreline", HOME=str(tmp_path))
    with worker_lock_held(tmp_path / "loreline"):
        for event in EVENTS:
            [[handler]] = [g["hooks"] for g in data["hooks"][event]]
            payload = {**base, "hook_event_name": event, **extra[event]}
            run = subprocess.run(shlex.split(handler["command"]), input=json.dumps(payload).encode(),
                                 capture_output=True, env=env, timeout=30)
            assert run.returncode == 0 and run.stderr == b"", (event, run.stderr)
    records = [json.loads(p.read_text()) for p in sorted((tmp_path / "loreline" / "spool").glob("*.json"))]
    assert sorted(r["event"] for r in records) == ["PreCompact", "SessionEnd", "Stop"]
    assert {r["tool"] for r in records} == {"codex"}
    status = json.loads(cli(tmp_path, "status", "--json").stdout)
    codex = status["capture"]["hooks"]["codex"]
    assert codex["installed"] is True and codex["events"] == EVENTS and codex["path"].endswith("hooks.json")
    assert f"Codex hooks ({folder / 'hooks.json'})" in cli(tmp_path, "status").stdout


def without_mcp(text: str) -> str:
    """The config as the user wrote it: Loreline's MCP table (connect adds it too) taken out."""
    head, _, _ = text.partition("\n[mcp_servers.loreline]\n")
    return head if head != text else text
