"""Which distiller (and belief judge) an import uses: `choose()`, and `describe()` for status.

    anthropic    Claude through the Messages API; needs an API key (`keys.find_key`:
                 --api-key > ANTHROPIC_API_KEY > the OS keyring), else AuthError
    <login>      an assistant's model through the user's own login of that assistant's CLI:
                 each assistant with a `distill_backend` (`assistants/<name>/login.py` says how)
    openai-compatible  a model on an OpenAI-compatible server (Ollama, LM Studio, llama.cpp,
                 vLLM, a hosted one): `distill.openai_base_url` and `distill.openai_model`
                 (or $LORELINE_OPENAI_BASE_URL / $LORELINE_OPENAI_MODEL), its optional key from
                 `keys.find_server_key`; never chosen by `auto` unless both are configured
    rules        the offline distiller: no key, no network
    recorded:DIR answers recorded in the folder DIR (`distill.recorded`): no model, no network;
                 what it lacks is written there and counted, never answered in its place

`LORELINE_RECORD=DIR` makes a model backend also write every request and answer to DIR (a
set `recorded:DIR` replays later).
    auto         `auto_plan()`: a configured OpenAI-compatible server (the person named it: it
                 may keep code on this machine); else an API key if one is configured; else each
                 assistant whose CLI is logged in, in registry order; else rules with a one-line notice

Every choice carries a `reason`, one line saying why that backend runs, which `loreline
status` and every import report show. The backend comes from the caller (`--backend`) or
else the config (`distill.backend`). Choosing never makes a model call; the only things it
may run are the assistants' own login checks (offline, well under a second or two, each at
most every five minutes) when no credentials file answers first.

This is the composition root of distillation: `distill/` knows neither the store, the belief
layer nor where keys live; this module wires them together.
"""

from __future__ import annotations

import os
from pathlib import Path

from collections.abc import Callable
from typing import TYPE_CHECKING

from . import environment, keys
from .assistants import registry as assistants
from . import config as config_mod
from .errors import AuthError, ConfigError
from .names import BACKENDS
from .records import record

if TYPE_CHECKING:  # `describe` (for `loreline status`) builds nothing, so it loads no distiller
    from .assistants.base import LoginBackend
    from .beliefs import Judge
    from .distill import Distiller

#: looks the API key up: `keys.find_key`, or (for `describe` and `consent`) its source only
KeyFinder = Callable[[str | None], "tuple[str, str] | None"]
#: a backend name `recorded:DIR` replays the answers recorded in DIR
RECORDED = "recorded:"
#: set to a folder: every model request and answer of a model backend is also written there
RECORD_ENV = "LORELINE_RECORD"
#: the backend that asks an OpenAI-compatible server
SERVER = "openai-compatible"
SERVER_URL_ENV = "LORELINE_OPENAI_BASE_URL"
SERVER_MODEL_ENV = "LORELINE_OPENAI_MODEL"
NO_KEY_NOTICE = ("No Anthropic API key: using the offline rules distiller (precise, narrow). "
                 "`loreline auth set` enables Claude.")


@record
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


@record
class Plan:
    """What `choose()` will build: a backend name and why (nothing constructed yet)."""

    backend: str
    reason: str
    key: tuple[str, str] | None = None
    #: the assistant CLI a login backend drives
    cli: Path | None = None
    notice: str | None = None
    #: how the assistant CLI is logged in, when a login backend runs
    login: str | None = None
    #: the folder of recorded answers, for `recorded:DIR`
    answers: Path | None = None
    #: the OpenAI-compatible server and model, for `openai-compatible`
    server: tuple[str, str] | None = None


def plan(backend: str | None = None, api_key: str | None = None, cfg: config_mod.Config | None = None,
         find: KeyFinder | None = None) -> Plan:
    cfg = cfg or config_mod.load()
    wanted = backend or cfg.get_str("distill.backend")
    origin = "--backend" if backend else "config distill.backend"
    if wanted.startswith(RECORDED):
        return Plan("recorded", f"recorded: answers from {wanted[len(RECORDED):]}, chosen by {origin}",
                    answers=Path(wanted[len(RECORDED):]).expanduser())
    if wanted not in BACKENDS:
        raise ConfigError(f"unknown backend {wanted!r}; use one of {', '.join(BACKENDS)}")
    if wanted == "rules":
        return Plan("rules", f"rules: chosen by {origin}")
    if wanted == "anthropic":
        return _plan_anthropic(api_key, origin, find or keys.find_key)
    if wanted == SERVER:
        return _plan_server(cfg, origin)
    login = _login_backend(wanted)
    if login is not None:
        return _plan_login(login, cfg, origin)
    return auto_plan(api_key, cfg, find)


def _plan_anthropic(api_key: str | None, origin: str, find: KeyFinder) -> Plan:
    found = find(api_key)
    if found is None:
        raise AuthError("the anthropic backend needs an API key: run `loreline auth set`, "
                        "set ANTHROPIC_API_KEY, or pass --api-key")
    return Plan("anthropic", f"anthropic: chosen by {origin}, API key from {found[1]}", key=found)


def server(cfg: config_mod.Config) -> tuple[str, str] | str:
    """The configured OpenAI-compatible server and model (distill.openai_base_url and
    distill.openai_model, else $LORELINE_OPENAI_BASE_URL and $LORELINE_OPENAI_MODEL), or what
    is missing, in words."""
    env = environment.environ()
    url = cfg.get_str("distill.openai_base_url").strip() or env.get(SERVER_URL_ENV, "").strip()
    model = cfg.get_str("distill.openai_model").strip() or env.get(SERVER_MODEL_ENV, "").strip()
    lacking = [what for what, value in ((f"a server URL (distill.openai_base_url or ${SERVER_URL_ENV})", url),
                                        (f"a model (distill.openai_model or ${SERVER_MODEL_ENV})", model)) if not value]
    return " and ".join(lacking) if lacking else (url, model)


def _plan_server(cfg: config_mod.Config, origin: str) -> Plan:
    found = server(cfg)
    if isinstance(found, str):
        raise ConfigError(f"the {SERVER} backend needs {found}")
    return Plan(SERVER, f"{SERVER}: chosen by {origin}, {found[1]} at {found[0]}", server=found)


def _plan_login(login: LoginBackend, cfg: config_mod.Config, origin: str) -> Plan:
    cli = find_cli(login, cfg)
    if cli is None:
        raise ConfigError(f"the {login.name} backend needs the `{login.command}` CLI on PATH "
                          f"(or config {login.path_setting})")
    how = login.login(str(cli))
    if how is None and login.needs_login is not None:
        raise AuthError(login.needs_login)
    return Plan(login.name, f"{login.name}: chosen by {origin}, {cli}", cli=cli, login=how)


def auto_plan(api_key: str | None, cfg: config_mod.Config, find: KeyFinder | None = None) -> Plan:
    """`--backend auto`: an API key, else each assistant whose CLI is logged in (registry
    order: Claude Code, then Codex, then Gemini CLI), else rules. The reason names what was missing: the first
    assistant's CLI or login, then each later one's login where its CLI is there."""
    configured = server(cfg)
    if not isinstance(configured, str):
        return Plan(SERVER, f"auto: an OpenAI-compatible server is configured ({configured[1]} at {configured[0]})",
                    server=configured)
    found = (find or keys.find_key)(api_key)
    if found is not None:
        return Plan("anthropic", f"auto: an Anthropic API key is configured ({found[1]})", key=found)
    why = ""
    for assistant in assistants.ALL:
        if assistant.login_backend is None:
            continue
        login = assistant.login_backend()
        cli = find_cli(login, cfg)
        how = login.login(str(cli)) if cli is not None else None
        if cli is not None and how is not None:
            after = f" and {why}" if why else ""
            return Plan(login.name, f"auto: no API key{after}; {assistant.label} is logged in ({how}) at {cli}",
                        cli=cli, login=how)
        if not why:
            why = f"no `{login.command}` on PATH" if cli is None else f"{assistant.label} is not logged in"
        elif cli is not None:
            why += f" and {assistant.label} is not logged in"
    return Plan("rules", f"auto: no API key and {why}" if why else "auto: no API key", notice=NO_KEY_NOTICE)


def _login_backend(name: str) -> LoginBackend | None:
    for assistant in assistants.ALL:
        if assistant.distill_backend == name and assistant.login_backend is not None:
            return assistant.login_backend()
    return None


def choose(backend: str | None = None, api_key: str | None = None, cfg: config_mod.Config | None = None) -> Choice:
    cfg = cfg or config_mod.load()
    chosen = plan(backend, api_key, cfg)
    if chosen.backend == "recorded" and chosen.answers is not None:
        return _recorded(chosen, chosen.answers)
    if chosen.backend == "anthropic" and chosen.key is not None:
        return _recording(_anthropic(chosen, cfg, chosen.key))
    if chosen.backend == SERVER:
        return _recording(_chat(chosen, cfg))
    login = _login_backend(chosen.backend)
    if login is not None and chosen.cli is not None:
        return _recording(_login(login, chosen, cfg, chosen.cli))
    from .distill.rules import RulesDistiller

    return Choice(RulesDistiller(), chosen.reason, chosen.notice)


def _anthropic(chosen: Plan, cfg: config_mod.Config, found: tuple[str, str]) -> Choice:
    from .beliefs.judge import ModelJudge
    from .distill.anthropic import AnthropicDistiller, ModelClient, Settings

    key, source = found
    client = ModelClient(Settings.from_config(cfg), key, source)
    return Choice(AnthropicDistiller(client), chosen.reason, key_source=source, judge=ModelJudge(client))


def _chat(chosen: Plan, cfg: config_mod.Config) -> Choice:
    from .beliefs.judge import ModelJudge
    from .distill.openai_compat import ChatClient, ChatDistiller, ChatSettings

    assert chosen.server is not None
    key, source = keys.find_server_key() or (None, None)
    client = ChatClient(ChatSettings.from_config(cfg, *chosen.server), key, source)
    return Choice(ChatDistiller(client), chosen.reason, key_source=source, judge=ModelJudge(client))


def _login(login: LoginBackend, chosen: Plan, cfg: config_mod.Config, cli: Path) -> Choice:
    from . import home
    from .beliefs.judge import ModelJudge

    distiller, client = login.build(cfg, cli, home.distill_workdir())
    return Choice(distiller, chosen.reason, judge=ModelJudge(client))


def _recorded(chosen: Plan, folder: Path) -> Choice:
    from .beliefs.judge import ModelJudge
    from .distill.recorded import AnswerSet, RecordedCaller, RecordedDistiller

    if not folder.is_dir():
        raise ConfigError(f"no answer set at {folder}: recorded:DIR names a folder of recorded answers")
    client = RecordedCaller(AnswerSet(folder))
    return Choice(RecordedDistiller(client), chosen.reason, judge=ModelJudge(client))


def _recording(choice: Choice) -> Choice:
    """With LORELINE_RECORD set, the model backend's requests and answers are written there."""
    folder = os.environ.get(RECORD_ENV, "").strip()
    if not folder:
        return choice
    from .beliefs.judge import ModelJudge
    from .distill.anthropic import ToolDistiller
    from .distill.recorded import AnswerSet, RecordingCaller

    distiller = choice.distiller
    if not isinstance(distiller, ToolDistiller):
        return choice
    answers = AnswerSet(Path(folder).expanduser())
    recorder = RecordingCaller(distiller.client, answers, distiller.model, f"{distiller.name} ({distiller.model})")
    distiller.client = recorder
    return Choice(distiller, choice.reason, choice.notice, choice.key_source, judge=ModelJudge(recorder))


def describe(cfg: config_mod.Config | None = None) -> str:
    """What `choose()` would pick right now and why, in a line (for `loreline status`)."""
    cfg = cfg or config_mod.load()
    try:
        chosen = plan(cfg=cfg, find=_source_only)
    except AuthError as err:
        if cfg.get_str("distill.backend") == "anthropic":
            return "anthropic (NO API KEY: imports fail)"
        return f"{cfg.get_str('distill.backend')} (NOT LOGGED IN: imports fail) — {err}"
    except ConfigError as err:
        return f"{cfg.get_str('distill.backend')} (UNAVAILABLE: {err})"
    if chosen.backend == "recorded":
        return f"recorded answers (no model) — {chosen.reason}"
    if chosen.backend == "anthropic" and chosen.key is not None:
        return f"anthropic ({cfg.get_str('distill.model')}, key from {chosen.key[1]}) — {chosen.reason}"
    if chosen.backend == SERVER and chosen.server is not None:
        return f"{SERVER} ({chosen.server[1]} at {chosen.server[0]}) — {chosen.reason}"
    login = _login_backend(chosen.backend)
    if login is not None:
        return f"{login.name} ({cfg.get_str(login.model_setting) or login.default_model_status}) — {chosen.reason}"
    return f"rules (offline) — {chosen.reason}"


def consent(cfg: config_mod.Config | None = None) -> str:
    """What background capture does with captured sessions, in a few sentences (`loreline
    connect` and `loreline status` say it): which model, under whose login or key (and when that
    login is a subscription plan, that its runs count against the plan's limits), the spend
    gate, and how to choose something else. The backend is chosen as the background worker
    chooses it (`environment.background`: never with the assistant's credentials from the
    environment), so what it says is what the worker does."""
    cfg = cfg or config_mod.load()
    with environment.background():
        try:
            chosen = plan(cfg=cfg, find=_source_only)
        except (AuthError, ConfigError) as err:
            return f"Captured sessions cannot be distilled in the background right now: {err}."
    if chosen.backend == "recorded":
        return (f"Captured sessions are distilled from recorded answers in {chosen.answers} (no model, nothing "
                "leaves this machine); a request without an answer is listed there and learns nothing.")
    said = _who(chosen, cfg)
    if chosen.backend != "rules":
        said += " " + _gate(cfg)
    return " ".join(part for part in (said, _env_key_note(chosen), _choices(chosen.backend)) if part)


def _who(chosen: Plan, cfg: config_mod.Config) -> str:
    if chosen.backend == "anthropic" and chosen.key is not None:
        return (f"Captured sessions are distilled in the background by {cfg.get_str('distill.model')} through the "
                f"Anthropic API with the API key from {chosen.key[1]}, billed to that key.")
    if chosen.backend == SERVER and chosen.server is not None:
        return _who_server(*chosen.server)
    login = _login_backend(chosen.backend)
    if login is None:
        return ("Captured sessions are distilled offline by the rules (no model, nothing leaves this machine); what "
                "they only guess waits in `loreline review`.")
    label = next(a.label for a in assistants.ALL if a.distill_backend == login.name)
    model = cfg.get_str(login.model_setting) or login.default_model_consent
    said = (f"Captured sessions are distilled in the background by {model} through {label} under your {label} "
            f"login ({chosen.login or 'as configured'})")
    if chosen.login in login.plan_logins:
        return (f"{said}: that is your {login.plan_name or 'subscription plan'}, so these runs count against its "
                "usage limits, beside your own sessions.")
    return said + "."


def _who_server(url: str, model: str) -> str:
    """Who distils on an OpenAI-compatible server, and whether the excerpts leave this machine."""
    from urllib.parse import urlsplit

    host = (urlsplit(url).hostname or "").lower()
    local = host in ("localhost", "::1") or host.startswith("127.")
    where = ("on this machine: the redacted excerpts never leave it" if local else
             f"at {host or url}: the redacted excerpts are sent there")
    return f"Captured sessions are distilled in the background by {model} through the OpenAI-compatible server {url}, {where}."


def _gate(cfg: config_mod.Config) -> str:
    return (f"At most {cfg.get_int('limits.daily_unattended_calls')} model calls and "
            f"{cfg.get_int('limits.daily_unattended_tokens'):,} tokens a day (limits.daily_unattended_calls, "
            "limits.daily_unattended_tokens); when the login or API reports a usage limit or rate limit, background "
            "capture waits until it lifts.")


def _env_key_note(chosen: Plan) -> str:
    """The assistant's key in this shell, which background capture does not use: say so."""
    if chosen.backend == "anthropic" or not os.environ.get(keys.ENV, "").strip():
        return ""
    return (f"{keys.ENV} is set in this shell, but background capture never uses an assistant's key from the "
            "environment: `loreline connect --store-key` (or `loreline auth set`) keeps a key for it in the OS "
            "keyring.")


def _choices(backend: str) -> str:
    """How to choose something else than `backend`, for background capture and imports alike."""
    ways = {"anthropic": "an API key (`loreline auth set`, then `loreline config set distill.backend anthropic`)",
            "local": 'a local model server (`distill.backend = "openai-compatible"` with its URL and model, see '
                     "docs/capture.md)",
            "login": "your Claude Code, Codex or Gemini CLI login (`loreline config set distill.backend claude-code`, "
                     "codex or gemini)",
            "rules": "the offline rules (`loreline config set distill.backend rules`: nothing leaves this machine)"}
    current = backend if backend in ("anthropic", "rules") else "login" if _login_backend(backend) else "local"
    if backend == SERVER:
        current = "local"
    others = [way for name, way in ways.items() if name != current]
    return "To choose otherwise: " + "; ".join(others) + "."


def _source_only(explicit: str | None) -> tuple[str, str] | None:
    """Where the key comes from, without the key (`describe` and `consent` name the source and
    nothing else; the keyring's answer is a kept one, see `keys.key_source`)."""
    source = keys.key_source(explicit)
    return ("", source) if source is not None else None


# -- an assistant's CLI: where it is --------------------------------------------------------


def find_cli(login: LoginBackend, cfg: config_mod.Config) -> Path | None:
    """The CLI a login backend drives: its path setting, else its command on PATH."""
    import shutil

    configured = cfg.get_str(login.path_setting).strip()
    found = shutil.which(os.path.expanduser(configured) if configured else login.command)
    return Path(found) if found else None
