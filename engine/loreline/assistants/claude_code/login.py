"""The claude-code distillation backend: Claude through the user's own Claude Code login
(the `claude` on PATH, or `distill.claude_path`, run as `claude -p` with a JSON schema)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from ..base import LoginBackend

TYPE_CHECKING = False  # typing is left to the type checker: the everyday commands import none of it
if TYPE_CHECKING:
    from typing import Any

AUTH_STATUS_SECONDS = 15.0
LOGIN_TTL_SECONDS = 300.0
LOGIN_KEEP_SECONDS = 1800.0
#: environment variables that log Claude Code in (or point it elsewhere): whether each is set
#: is part of what decides a kept answer (their values are never kept)
LOGIN_ENV = ("CLAUDE_CODE_OAUTH_TOKEN", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_USE_BEDROCK",
             "CLAUDE_CODE_USE_VERTEX")
_LOGINS: dict[str, tuple[float, str | None]] = {}


def claude_login(cli: str) -> str | None:
    """How Claude Code is logged in ("claude.ai", "oauth_token", "api_key", …), or None.

    A credentials file in Claude Code's config dir answers at once; otherwise (the macOS
    keychain, a token in the environment) `claude auth status --json` does, offline. Its answer
    is kept in the state folder for LOGIN_KEEP_SECONDS unless the CLI, the credentials file or
    the login variables change, and in this process for LOGIN_TTL_SECONDS, so a long-lived
    process notices a later login."""
    config_dir = os.environ.get("CLAUDE_CONFIG_DIR", "").strip()
    credentials = Path(config_dir).expanduser() if config_dir else Path.home() / ".claude"
    if (credentials / ".credentials.json").is_file():
        return "claude.ai"
    asked = _LOGINS.get(cli)
    if asked is None or time.monotonic() - asked[0] > LOGIN_TTL_SECONDS:
        asked = _LOGINS[cli] = (time.monotonic(), _kept_auth_status(cli, credentials))
    return asked[1]


def _kept_auth_status(cli: str, credentials: Path) -> str | None:
    from ... import remembered

    basis = {"cli": remembered.file_basis(os.path.realpath(cli)),
             "credentials": remembered.file_basis(credentials / ".credentials.json"),
             "set": [name for name in LOGIN_ENV if os.environ.get(name, "").strip()]}
    found = remembered.answer("claude-login", basis, LOGIN_KEEP_SECONDS, lambda: _auth_status(cli))
    return found if isinstance(found, str) else None


def _auth_status(cli: str) -> str | None:
    import subprocess  # here: a kept answer (the usual case) asks no CLI

    try:
        done = subprocess.run([cli, "auth", "status", "--json"], capture_output=True, text=True, stdin=subprocess.DEVNULL,
                              timeout=AUTH_STATUS_SECONDS, env=dict(os.environ, LORELINE_OFF="1"))
        status = json.loads(done.stdout)
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    if not isinstance(status, dict) or status.get("loggedIn") is not True:
        return None
    return str(status.get("authMethod") or "logged in")


def build(cfg: Any, cli: Path, workdir: Path) -> tuple[Any, Any]:
    from .distill import CodeClient, CodeDistiller, CodeSettings

    client = CodeClient(CodeSettings.from_config(cfg, cli, workdir))
    return CodeDistiller(client), client


BACKEND = LoginBackend(name="claude-code", command="claude", path_setting="distill.claude_path",
                       model_setting="distill.claude_code_model", login=claude_login, build=build)
