"""Which distiller an import uses: one function, `choose()`.

    anthropic  Claude; needs an API key (`keys.find_key`: --api-key > ANTHROPIC_API_KEY >
               the OS keyring), else AuthError saying how to provide one
    rules      the offline distiller: no key, no network
    auto       anthropic when a key is available, else rules with a one-line notice

The backend comes from the caller (`--backend`) or else the config (`distill.backend`).
Choosing never imports the SDK or makes a call.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import config as config_mod
from .. import keys
from ..errors import AuthError, ConfigError
from ..beliefs import Judge
from . import Distiller
from .rules import RulesDistiller

BACKENDS = ("auto", "anthropic", "rules")
NO_KEY_NOTICE = ("No Anthropic API key: using the offline rules distiller (precise, narrow). "
                 "`loreline auth set` enables Claude.")


@dataclass(frozen=True, slots=True)
class Choice:
    distiller: Distiller
    #: one line for the person running the command, or None
    notice: str | None = None
    #: where the key came from (never the key), when one is used
    key_source: str | None = None
    #: the belief pipeline's model judge (same client, same meter), when a model is used
    judge: Judge | None = None


def choose(backend: str | None = None, api_key: str | None = None, cfg: config_mod.Config | None = None) -> Choice:
    cfg = cfg or config_mod.load()
    wanted = backend or cfg.get_str("distill.backend")
    if wanted not in BACKENDS:
        raise ConfigError(f"unknown backend {wanted!r}; use one of {', '.join(BACKENDS)}")
    if wanted == "rules":
        return Choice(RulesDistiller())
    found = keys.find_key(api_key)
    if found is None:
        if wanted == "anthropic":
            raise AuthError("the anthropic backend needs an API key: run `loreline auth set`, "
                            "set ANTHROPIC_API_KEY, or pass --api-key")
        return Choice(RulesDistiller(), NO_KEY_NOTICE)
    from .anthropic import AnthropicDistiller, ModelClient, Settings

    from ..beliefs.judge import ModelJudge

    key, source = found
    client = ModelClient(Settings.from_config(cfg), key, source)
    return Choice(AnthropicDistiller(client), key_source=source, judge=ModelJudge(client))


def describe(cfg: config_mod.Config | None = None) -> str:
    """What `choose()` would pick right now, in a few words (for `loreline status`)."""
    cfg = cfg or config_mod.load()
    wanted = cfg.get_str("distill.backend")
    if wanted == "rules":
        return "rules (offline, by config)"
    found = keys.find_key()
    if found is None:
        return "rules (offline; no Anthropic API key)" if wanted == "auto" else "anthropic (NO API KEY: imports fail)"
    return f"anthropic ({cfg.get_str('distill.model')}, key from {found[1]})"
