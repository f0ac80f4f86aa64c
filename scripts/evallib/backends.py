"""The distiller backends the eval can run, each available or skipped with a reason.

`rules` always runs (offline); `openai-compatible` runs when a server is configured. `anthropic` runs when `loreline.keys.find_key()` finds a key
(ANTHROPIC_API_KEY, then the OS keyring) and is built by `loreline.backends.choose`,
exactly as an import would build it (model and endpoint from the user's config). Without a
key it is skipped and the report says so — never silently.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from loreline.distill import Distiller
from loreline.distill.rules import RulesDistiller


@dataclass(frozen=True, slots=True)
class Backend:
    name: str
    make: Callable[[], Distiller] | None
    skipped: str | None = None


def rules() -> Backend:
    return Backend("rules", RulesDistiller)


def anthropic() -> Backend:
    from loreline import keys

    if keys.find_key() is None:
        return Backend("anthropic", None, "skipped: no Anthropic API key (ANTHROPIC_API_KEY or the OS keyring)")

    def make() -> Distiller:
        from loreline import backends

        return backends.choose("anthropic").distiller

    return Backend("anthropic", make)


def openai_compatible() -> Backend:
    """A configured OpenAI-compatible server (distill.openai_* or $LORELINE_OPENAI_*; `scripts/eval
    serve-answers DIR` serves a set of recorded answers as one), else skipped with the reason."""
    from loreline import backends, config

    missing = backends.server(config.load())
    if isinstance(missing, str):
        return Backend("openai-compatible", None, f"skipped: no OpenAI-compatible server configured ({missing})")

    def make() -> Distiller:
        from loreline import backends

        return backends.choose("openai-compatible").distiller

    return Backend("openai-compatible", make)


REGISTRY: dict[str, Callable[[], Backend]] = {"rules": rules, "anthropic": anthropic,
                                              "openai-compatible": openai_compatible}


def recorded(name: str) -> Backend:
    """`recorded:DIR`: the answers recorded in DIR, through the same distiller contract (no model)."""
    def make() -> Distiller:
        from loreline import backends

        return backends.choose(name).distiller

    return Backend(name, make)


def select(names: list[str]) -> list[Backend]:
    unknown = [n for n in names if n not in REGISTRY and not n.startswith("recorded:")]
    if unknown:
        raise ValueError(f"unknown backend {unknown[0]!r}; choose from {', '.join(REGISTRY)}, or recorded:DIR")
    return [recorded(n) if n.startswith("recorded:") else REGISTRY[n]() for n in names]
