"""Which distiller (and belief judge) an import uses: `choose()`, and `describe()` for status.

    anthropic    Claude through the Messages API; needs an API key (`keys.find_key`:
                 --api-key > ANTHROPIC_API_KEY > the OS keyring), else AuthError
    claude-code  Claude through the user's own Claude Code login (`claude-agent-sdk` driving
                 the `claude` on PATH, or `distill.claude_path`); needs the optional extra
                 `loreline[claude-code]`
    rules        the offline distiller: no key, no network
    auto         an API key if one is configured; else a logged-in Claude Code on PATH;
                 else rules with a one-line notice

Every choice carries a `reason`, one line saying why that backend runs, which `loreline
status` and every import report show. The backend comes from the caller (`--backend`) or
else the config (`distill.backend`). Choosing never imports an SDK or makes a model call; the
only thing it may run is `claude auth status` (offline, a second or so) when no API key is
configured and no Claude Code credentials file is there; its answer is kept in the state folder
for LOGIN_KEEP_SECONDS (`loreline.remembered`), until the CLI or its credentials file changes.

This is the composition root of distillation: `distill/` knows neither the store, the belief
layer nor where keys live; this module wires them together.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from . import config as config_mod
from . import keys
from .errors import AuthError, ConfigError
from .names import BACKENDS

if TYPE_CHECKING:  # `describe` (for `loreline status`) builds nothing, so it loads no distiller
    from .beliefs import Judge
    from .distill import Distiller

NO_KEY_NOTICE = ("No Anthropic API key: using the offline rules distiller (precise, narrow). "
                 "`loreline auth set` enables Claude.")
NO_SDK = "the claude-code backend needs the optional extra: pip install 'loreline[claude-code]'"
AUTH_STATUS_SECONDS = 15.0
LOGIN_TTL_SECONDS = 300.0
LOGIN_KEEP_SECONDS = 1800.0
#: environment variables that log Claude Code in (or point it elsewhere): whether each is set
#: is part of what decides a kept answer (their values are never kept)
LOGIN_ENV = ("CLAUDE_CODE_OAUTH_TOKEN", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_USE_BEDROCK",
             "CLAUDE_CODE_USE_VERTEX")
_LOGINS: dict[str, tuple[float, str | None]] = {}


@dataclass(frozen=True, slots=True)
class Choice:
    distiller: Distiller
    #: why this backend runs, in a few words (status and import reports show it)
    reason: str = ""
    #: one line for the person running the command, or None
    notice: str | None = None
    #: where the key came from (never the key), when one is used
    key_source: str | None = None
    #: the belief pipeline's model judge (same client, same meter), when a model is used
    judge: Judge | None = None


@dataclass(frozen=True, slots=True)
class Plan:
    """What `choose()` will build: a backend name and why (nothing constructed yet)."""

    backend: str
    reason: str
    key: tuple[str, str] | None = None
    claude: Path | None = None
    notice: str | None = None


KeyFinder = Callable[[str | None], tuple[str, str] | None]


def plan(backend: str | None = None, api_key: str | None = None, cfg: config_mod.Config | None = None,
         find: KeyFinder | None = None) -> Plan:
    """What `choose()` would build; `find` looks up the API key (default `keys.find_key`;
    `describe` only names its source)."""
    cfg = cfg or config_mod.load()
    find = find or keys.find_key
    wanted = backend or cfg.get_str("distill.backend")
    origin = "--backend" if backend else "config distill.backend"
    if wanted not in BACKENDS:
        raise ConfigError(f"unknown backend {wanted!r}; use one of {', '.join(BACKENDS)}")
    if wanted == "rules":
        return Plan("rules", f"rules: chosen by {origin}")
    if wanted == "anthropic":
        return _plan_anthropic(api_key, origin, find)
    if wanted == "claude-code":
        return _plan_claude_code(cfg, origin)
    return _plan_auto(api_key, cfg, find)


def _plan_anthropic(api_key: str | None, origin: str, find: KeyFinder) -> Plan:
    found = find(api_key)
    if found is None:
        raise AuthError("the anthropic backend needs an API key: run `loreline auth set`, "
                        "set ANTHROPIC_API_KEY, or pass --api-key")
    return Plan("anthropic", f"anthropic: chosen by {origin}, API key from {found[1]}", key=found)


def _plan_claude_code(cfg: config_mod.Config, origin: str) -> Plan:
    if not sdk_installed():
        raise ConfigError(NO_SDK)
    cli = claude_cli(cfg)
    if cli is None:
        raise ConfigError("the claude-code backend needs the `claude` CLI on PATH (or config distill.claude_path)")
    return Plan("claude-code", f"claude-code: chosen by {origin}, {cli}", claude=cli)


def _plan_auto(api_key: str | None, cfg: config_mod.Config, find: KeyFinder) -> Plan:
    found = find(api_key)
    if found is not None:
        return Plan("anthropic", f"auto: an Anthropic API key is configured ({found[1]})", key=found)
    cli = claude_cli(cfg)
    login = claude_login(str(cli)) if cli is not None else None
    if cli is None or login is None:
        why = "no `claude` on PATH" if cli is None else "Claude Code is not logged in"
        return Plan("rules", f"auto: no API key and {why}", notice=NO_KEY_NOTICE)
    if not sdk_installed():
        return Plan("rules", f"auto: no API key; Claude Code is logged in but {NO_SDK}",
                    notice=f"Claude Code is logged in, but {NO_SDK}; using the offline rules distiller.")
    return Plan("claude-code", f"auto: no API key; Claude Code is logged in ({login}) at {cli}", claude=cli)


def choose(backend: str | None = None, api_key: str | None = None, cfg: config_mod.Config | None = None) -> Choice:
    cfg = cfg or config_mod.load()
    chosen = plan(backend, api_key, cfg)
    if chosen.backend == "anthropic" and chosen.key is not None:
        return _anthropic(chosen, cfg, chosen.key)
    if chosen.backend == "claude-code" and chosen.claude is not None:
        return _claude_code(chosen, cfg, chosen.claude)
    from .distill.rules import RulesDistiller

    return Choice(RulesDistiller(), chosen.reason, chosen.notice)


def _anthropic(chosen: Plan, cfg: config_mod.Config, found: tuple[str, str]) -> Choice:
    from .beliefs.judge import ModelJudge
    from .distill.anthropic import AnthropicDistiller, ModelClient, Settings

    key, source = found
    client = ModelClient(Settings.from_config(cfg), key, source)
    return Choice(AnthropicDistiller(client), chosen.reason, key_source=source, judge=ModelJudge(client))


def _claude_code(chosen: Plan, cfg: config_mod.Config, cli: Path) -> Choice:
    from . import home
    from .beliefs.judge import ModelJudge
    from .distill.claude_code import CodeClient, CodeDistiller, CodeSettings

    client = CodeClient(CodeSettings.from_config(cfg, cli, home.distill_workdir()))
    return Choice(CodeDistiller(client), chosen.reason, judge=ModelJudge(client))


def describe(cfg: config_mod.Config | None = None) -> str:
    """What `choose()` would pick right now and why, in a line (for `loreline status`)."""
    cfg = cfg or config_mod.load()
    try:
        chosen = plan(cfg=cfg, find=_source_only)
    except AuthError:
        return "anthropic (NO API KEY: imports fail)"
    except ConfigError as err:
        return f"{cfg.get_str('distill.backend')} (UNAVAILABLE: {err})"
    if chosen.backend == "anthropic" and chosen.key is not None:
        return f"anthropic ({cfg.get_str('distill.model')}, key from {chosen.key[1]}) — {chosen.reason}"
    if chosen.backend == "claude-code":
        return f"claude-code ({cfg.get_str('distill.claude_code_model')}) — {chosen.reason}"
    return f"rules (offline) — {chosen.reason}"


def _source_only(explicit: str | None) -> tuple[str, str] | None:
    """Where the key comes from, without the key (`describe` names the source and nothing else;
    the keyring's answer is a kept one, see `keys.key_source`)."""
    source = keys.key_source(explicit)
    return ("", source) if source is not None else None


# -- Claude Code: where it is, whether it is logged in, whether the SDK is there ----------


def sdk_installed() -> bool:
    """Whether `claude-agent-sdk` can be imported (found without importing it)."""
    return importlib.util.find_spec("claude_agent_sdk") is not None


def claude_cli(cfg: config_mod.Config) -> Path | None:
    configured = cfg.get_str("distill.claude_path").strip()
    found = shutil.which(os.path.expanduser(configured) if configured else "claude")
    return Path(found) if found else None


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
    from . import remembered

    basis = {"cli": remembered.file_basis(os.path.realpath(cli)),
             "credentials": remembered.file_basis(credentials / ".credentials.json"),
             "set": [name for name in LOGIN_ENV if os.environ.get(name, "").strip()]}
    found = remembered.answer("claude-login", basis, LOGIN_KEEP_SECONDS, lambda: _auth_status(cli))
    return found if isinstance(found, str) else None


def _auth_status(cli: str) -> str | None:
    import subprocess

    try:
        done = subprocess.run([cli, "auth", "status", "--json"], capture_output=True, text=True, stdin=subprocess.DEVNULL,
                              timeout=AUTH_STATUS_SECONDS, env=dict(os.environ, LORELINE_OFF="1"))
        status = json.loads(done.stdout)
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    if not isinstance(status, dict) or status.get("loggedIn") is not True:
        return None
    return str(status.get("authMethod") or "logged in")
