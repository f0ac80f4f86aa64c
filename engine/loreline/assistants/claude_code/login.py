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
    from ... import environment

    slot = f"{cli}\0{environment.in_background()}"  # background work sees none of the assistant's credentials
    asked = _LOGINS.get(slot)
    if asked is None or time.monotonic() - asked[0] > LOGIN_TTL_SECONDS:
        asked = _LOGINS[slot] = (time.monotonic(), _kept_auth_status(cli, credentials))
    return asked[1]


def _kept_auth_status(cli: str, credentials: Path) -> str | None:
    from ... import environment, remembered

    environ = environment.environ()
    basis = {"cli": remembered.file_basis(os.path.realpath(cli)),
             "credentials": remembered.file_basis(credentials / ".credentials.json"),
             "set": [name for name in LOGIN_ENV if environ.get(name, "").strip()]}
    # background work (credentials left out) keeps its answer apart, so the two never evict each other
    name = "claude-login-background" if len(environ) < len(os.environ) else "claude-login"
    found = remembered.answer(name, basis, LOGIN_KEEP_SECONDS, lambda: _auth_status(cli))
    return found if isinstance(found, str) else None


def _auth_status(cli: str) -> str | None:
    import subprocess  # here: a kept answer (the usual case) asks no CLI

    try:
        from ... import environment

        done = subprocess.run([cli, "auth", "status", "--json"], capture_output=True, text=True, stdin=subprocess.DEVNULL,
                              timeout=AUTH_STATUS_SECONDS, env=dict(environment.environ(), LORELINE_OFF="1"))
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
                       model_setting="distill.claude_code_model", login=claude_login, build=build,
                       # a claude.ai login, or its token (`claude setup-token`: CLAUDE_CODE_OAUTH_TOKEN)
                       plan_logins=("claude.ai", "oauth_token"), plan_name="Claude plan (Pro or Max)")
