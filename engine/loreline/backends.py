"""Which distiller (and belief judge) an import uses: `choose()`, and `describe()` for status.

    anthropic    Claude through the Messages API; needs an API key (`keys.find_key`:
                 --api-key > ANTHROPIC_API_KEY > the OS keyring), else AuthError
    claude-code  Claude through the user's own Claude Code login (the `claude` on PATH, or
                 `distill.claude_path`, run as `claude -p` with a JSON schema)
    codex        an OpenAI model through the user's own Codex login (the `codex` on PATH, or
                 `distill.codex_path`, run as `codex exec` with an output schema)
    rules        the offline distiller: no key, no network
    auto         `auto_plan()`: an API key if one is configured; else a logged-in Claude Code;
                 else a logged-in Codex; else rules with a one-line notice

Every choice carries a `reason`, one line saying why that backend runs, which `loreline
status` and every import report show. The backend comes from the caller (`--backend`) or
else the config (`distill.backend`). Choosing never makes a model call; the only things it
may run are `claude auth status` and `codex login status` (offline, well under a second or
two, each at most every five minutes) when no credentials file answers first.

This is the composition root of distillation: `distill/` knows neither the store, the belief
layer nor where keys live; this module wires them together.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from . import config as config_mod
from . import keys
from .beliefs import Judge
from .distill import Distiller
from .distill import codex as codex_mod
from .distill.rules import RulesDistiller
from .errors import AuthError, ConfigError

BACKENDS = ("auto", "anthropic", "claude-code", "codex", "rules")
NO_KEY_NOTICE = ("No Anthropic API key: using the offline rules distiller (precise, narrow). "
                 "`loreline auth set` enables Claude.")
AUTH_STATUS_SECONDS = 15.0
LOGIN_TTL_SECONDS = 300.0
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
    codex: Path | None = None
    notice: str | None = None
    #: how the assistant CLI is logged in, when a login backend runs
    login: str | None = None


def plan(backend: str | None = None, api_key: str | None = None, cfg: config_mod.Config | None = None) -> Plan:
    cfg = cfg or config_mod.load()
    wanted = backend or cfg.get_str("distill.backend")
    origin = "--backend" if backend else "config distill.backend"
    if wanted not in BACKENDS:
        raise ConfigError(f"unknown backend {wanted!r}; use one of {', '.join(BACKENDS)}")
    if wanted == "rules":
        return Plan("rules", f"rules: chosen by {origin}")
    if wanted == "anthropic":
        return _plan_anthropic(api_key, origin)
    if wanted == "claude-code":
        return _plan_claude_code(cfg, origin)
    if wanted == "codex":
        return _plan_codex(cfg, origin)
    return auto_plan(api_key, cfg)


def _plan_anthropic(api_key: str | None, origin: str) -> Plan:
    found = keys.find_key(api_key)
    if found is None:
        raise AuthError("the anthropic backend needs an API key: run `loreline auth set`, "
                        "set ANTHROPIC_API_KEY, or pass --api-key")
    return Plan("anthropic", f"anthropic: chosen by {origin}, API key from {found[1]}", key=found)


def _plan_claude_code(cfg: config_mod.Config, origin: str) -> Plan:
    cli = claude_cli(cfg)
    if cli is None:
        raise ConfigError("the claude-code backend needs the `claude` CLI on PATH (or config distill.claude_path)")
    return Plan("claude-code", f"claude-code: chosen by {origin}, {cli}", claude=cli, login=claude_login(str(cli)))


def _plan_codex(cfg: config_mod.Config, origin: str) -> Plan:
    cli = codex_cli(cfg)
    if cli is None:
        raise ConfigError("the codex backend needs the `codex` CLI on PATH (or config distill.codex_path)")
    login = codex_mod.login(str(cli))
    if login is None:
        raise AuthError("Codex is not logged in: run `codex login`, or pick another backend with --backend")
    return Plan("codex", f"codex: chosen by {origin}, {cli}", codex=cli, login=login)


def auto_plan(api_key: str | None, cfg: config_mod.Config) -> Plan:
    """`--backend auto`: an API key, else a logged-in Claude Code, else a logged-in Codex, else rules."""
    found = keys.find_key(api_key)
    if found is not None:
        return Plan("anthropic", f"auto: an Anthropic API key is configured ({found[1]})", key=found)
    cli = claude_cli(cfg)
    login = claude_login(str(cli)) if cli is not None else None
    if cli is not None and login is not None:
        return Plan("claude-code", f"auto: no API key; Claude Code is logged in ({login}) at {cli}", claude=cli,
                    login=login)
    why = "no `claude` on PATH" if cli is None else "Claude Code is not logged in"
    codex = codex_cli(cfg)
    codex_login = codex_mod.login(str(codex)) if codex is not None else None
    if codex is not None and codex_login is not None:
        return Plan("codex", f"auto: no API key and {why}; Codex is logged in ({codex_login}) at {codex}", codex=codex,
                    login=codex_login)
    if codex is not None:
        why += " and Codex is not logged in"
    return Plan("rules", f"auto: no API key and {why}", notice=NO_KEY_NOTICE)


def choose(backend: str | None = None, api_key: str | None = None, cfg: config_mod.Config | None = None) -> Choice:
    cfg = cfg or config_mod.load()
    chosen = plan(backend, api_key, cfg)
    if chosen.backend == "anthropic" and chosen.key is not None:
        return _anthropic(chosen, cfg, chosen.key)
    if chosen.backend == "claude-code" and chosen.claude is not None:
        return _claude_code(chosen, cfg, chosen.claude)
    if chosen.backend == "codex" and chosen.codex is not None:
        return _codex(chosen, cfg, chosen.codex)
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


def _codex(chosen: Plan, cfg: config_mod.Config, cli: Path) -> Choice:
    from . import home
    from .beliefs.judge import ModelJudge
    from .distill.codex import CodexClient, CodexDistiller, CodexSettings

    client = CodexClient(CodexSettings.from_config(cfg, cli, home.distill_workdir()))
    return Choice(CodexDistiller(client), chosen.reason, judge=ModelJudge(client))


def describe(cfg: config_mod.Config | None = None) -> str:
    """What `choose()` would pick right now and why, in a line (for `loreline status`)."""
    cfg = cfg or config_mod.load()
    try:
        chosen = plan(cfg=cfg)
    except AuthError as err:
        if cfg.get_str("distill.backend") == "anthropic":
            return "anthropic (NO API KEY: imports fail)"
        return f"{cfg.get_str('distill.backend')} (NOT LOGGED IN: imports fail) — {err}"
    except ConfigError as err:
        return f"{cfg.get_str('distill.backend')} (UNAVAILABLE: {err})"
    if chosen.backend == "anthropic" and chosen.key is not None:
        return f"anthropic ({cfg.get_str('distill.model')}, key from {chosen.key[1]}) — {chosen.reason}"
    if chosen.backend == "claude-code":
        return f"claude-code ({cfg.get_str('distill.claude_code_model')}) — {chosen.reason}"
    if chosen.backend == "codex":
        return f"codex ({cfg.get_str('distill.codex_model') or codex_mod.CODEX_DEFAULT}) — {chosen.reason}"
    return f"rules (offline) — {chosen.reason}"


def consent(cfg: config_mod.Config | None = None) -> str:
    """Which model will distill captured sessions, under whose login or key, and the daily cap,
    in a sentence (`loreline connect` and `loreline status` say it)."""
    cfg = cfg or config_mod.load()
    cap = cfg.get_int("limits.daily_unattended_calls")
    try:
        chosen = plan(cfg=cfg)
    except (AuthError, ConfigError) as err:
        return f"Captured sessions cannot be distilled right now: {err}."
    bounded = (f"at most {cap} model calls a day in the background (limits.daily_unattended_calls); "
               "pin a backend with `loreline config set distill.backend NAME`")
    if chosen.backend == "anthropic" and chosen.key is not None:
        return (f"Captured sessions are distilled by {cfg.get_str('distill.model')} through the Anthropic API with "
                f"the API key from {chosen.key[1]}, {bounded}.")
    if chosen.backend == "claude-code":
        return (f"Captured sessions are distilled by {cfg.get_str('distill.claude_code_model')} through Claude Code "
                f"under your Claude Code login ({chosen.login or 'as configured'}), {bounded}.")
    if chosen.backend == "codex":
        model = cfg.get_str("distill.codex_model") or "Codex's default model"
        return (f"Captured sessions are distilled by {model} through Codex under your Codex login "
                f"({chosen.login or 'as configured'}), {bounded}.")
    return ("Captured sessions are distilled offline by the rules (no model, nothing leaves this machine); what "
            "they only guess waits in `loreline review`. Pin a backend with `loreline config set distill.backend NAME`.")


# -- Claude Code and Codex: where they are, whether they are logged in --------------------


def codex_cli(cfg: config_mod.Config) -> Path | None:
    configured = cfg.get_str("distill.codex_path").strip()
    found = shutil.which(os.path.expanduser(configured) if configured else "codex")
    return Path(found) if found else None


def claude_cli(cfg: config_mod.Config) -> Path | None:
    configured = cfg.get_str("distill.claude_path").strip()
    found = shutil.which(os.path.expanduser(configured) if configured else "claude")
    return Path(found) if found else None


def claude_login(cli: str) -> str | None:
    """How Claude Code is logged in ("claude.ai", "oauth_token", "api_key", …), or None.

    A credentials file in Claude Code's config dir answers at once; otherwise (the macOS
    keychain, a token in the environment) `claude auth status --json` does, offline; its answer
    is kept for LOGIN_TTL_SECONDS, so a long-lived process notices a later login."""
    config_dir = os.environ.get("CLAUDE_CONFIG_DIR", "").strip()
    credentials = Path(config_dir).expanduser() if config_dir else Path.home() / ".claude"
    if (credentials / ".credentials.json").is_file():
        return "claude.ai"
    asked = _LOGINS.get(cli)
    if asked is None or time.monotonic() - asked[0] > LOGIN_TTL_SECONDS:
        asked = _LOGINS[cli] = (time.monotonic(), _auth_status(cli))
    return asked[1]


def _auth_status(cli: str) -> str | None:
    try:
        done = subprocess.run([cli, "auth", "status", "--json"], capture_output=True, text=True, stdin=subprocess.DEVNULL,
                              timeout=AUTH_STATUS_SECONDS, env=dict(os.environ, LORELINE_OFF="1"))
        status = json.loads(done.stdout)
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    if not isinstance(status, dict) or status.get("loggedIn") is not True:
        return None
    return str(status.get("authMethod") or "logged in")
