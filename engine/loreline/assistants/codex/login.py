"""The codex distillation backend: an OpenAI model through the user's own Codex login (the
`codex` on PATH, or `distill.codex_path`, run as `codex exec` with an output schema)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from ..base import LoginBackend
from .default_model import CODEX_DEFAULT

LOGIN_STATUS_SECONDS = 15.0
LOGIN_TTL_SECONDS = 300.0
_LOGINS: dict[str, tuple[float, str | None]] = {}


def login(cli: str | None) -> str | None:
    """How Codex is logged in ("chatgpt", "apikey", "logged in"), or None.

    `$CODEX_HOME/auth.json` answers at once; otherwise (credentials in the OS keyring)
    `codex login status` does, offline; its answer is kept for LOGIN_TTL_SECONDS."""
    from . import folder

    auth = folder.home() / "auth.json"
    try:
        data = json.loads(auth.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = None
    if isinstance(data, dict):
        if data.get("tokens"):
            return "chatgpt"
        if data.get("OPENAI_API_KEY"):
            return "apikey"
    if cli is None:
        return None
    from ... import environment

    slot = f"{cli}\0{environment.in_background()}"  # background work sees none of the assistant's credentials
    asked = _LOGINS.get(slot)
    if asked is None or time.monotonic() - asked[0] > LOGIN_TTL_SECONDS:
        asked = _LOGINS[slot] = (time.monotonic(), _login_status(cli))
    return asked[1]


def _login_status(cli: str) -> str | None:
    import subprocess

    from ... import environment

    try:
        done = subprocess.run([cli, "login", "status"], capture_output=True, text=True, stdin=subprocess.DEVNULL,
                              timeout=LOGIN_STATUS_SECONDS, env=dict(environment.environ(), LORELINE_OFF="1"))
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    said = (done.stdout + done.stderr).lower()
    return "chatgpt" if "chatgpt" in said else "apikey" if "api key" in said else "logged in"


def build(cfg: Any, cli: Path, workdir: Path) -> tuple[Any, Any]:
    from .distill import CodexClient, CodexDistiller, CodexSettings

    client = CodexClient(CodexSettings.from_config(cfg, cli, workdir))
    return CodexDistiller(client), client


def _backend() -> LoginBackend:
    return LoginBackend(name="codex", command="codex", path_setting="distill.codex_path",
                        model_setting="distill.codex_model", login=login, build=build,
                        default_model_status=CODEX_DEFAULT, default_model_consent="Codex's default model",
                        needs_login="Codex is not logged in: run `codex login`, or pick another backend with --backend",
                        plan_logins=("chatgpt",), plan_name="ChatGPT plan")


BACKEND = _backend()
