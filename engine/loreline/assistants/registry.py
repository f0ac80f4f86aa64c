"""The one place that knows every assistant: the list, and what is done across all of them.

    from loreline.assistants import registry
    registry.ALL                   # every assistant, in the order users see them
    registry.get("codex")          # one by name (KeyError with the known names)
    registry.names()               # ("claude-code", "codex", "cursor", "gemini")
    registry.parse(path)           # a session file of any assistant (its format detected)
    registry.discover_all(["all"]) # the sessions of every assistant, one window

The core below defines what an assistant provides (`base`) and never imports one: the shared
readers (`loreline.transcripts`) take the session formats they are handed, native memory
(`loreline.native`) the assistants it is handed. This module hands them over. It also
assembles the settings schema: `config` defines Loreline's own settings, each assistant
contributes its own (`Assistant.settings`), and the distillation backend's choices and `auto`
order come from the assistants with a login backend, in registry order.

Adding an assistant is adding one package beside this module (its `ASSISTANT`), a line in
`ALL`, and its tests and fixtures; see docs/assistants.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from .. import config
from ..names import DEFAULT_DAYS, DEFAULT_SESSIONS
from .base import Assistant, SessionFormat
from . import claude_code, codex, cursor, gemini

TYPE_CHECKING = False  # typing is left to the type checker: the everyday commands import none of it
if TYPE_CHECKING:
    from typing import Any

    from ..transcripts import ParseResult
    from ..transcripts.discover import Discovery, Window

ALL: tuple[Assistant, ...] = (claude_code.ASSISTANT, codex.ASSISTANT, cursor.ASSISTANT, gemini.ASSISTANT)
_BY_NAME = {assistant.name: assistant for assistant in ALL}

__all__ = ["ALL", "connectable", "detect", "discover", "discover_all", "formats", "get", "login_backends", "names",
           "parse", "schema"]


def names() -> tuple[str, ...]:
    return tuple(_BY_NAME)


def get(name: str) -> Assistant:
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(f"unknown assistant {name!r} (known: {', '.join(_BY_NAME)})") from None


def login_backends() -> tuple[str, ...]:
    """The distillation backends that use an assistant's own login, in registry order (the
    order `auto` tries them in)."""
    return tuple(a.distill_backend for a in ALL if a.distill_backend is not None)


def connectable() -> tuple[Assistant, ...]:
    """The assistants `loreline connect` can install capture into."""
    return tuple(assistant for assistant in ALL if assistant.connector is not None)


# -- settings: Loreline's own (config) and those each assistant contributes ------------------------


def _define_settings() -> None:
    with_login = [a for a in ALL if a.distill_backend is not None]
    order = "".join(f"else a logged-in {a.label}, " for a in with_login)
    choices = ("auto", "anthropic", *login_backends(), "openai-compatible", "rules")
    config.define("distill.backend", config.Setting(
        str, "auto", f"distiller: auto (a configured OpenAI-compatible server, else an API key if one is configured, "
                     f"{order}else rules), {', '.join(choices[1:-1])}, or rules (offline)", choices=choices))
    for assistant in ALL:
        for key, setting in assistant.settings:
            config.define(key, setting)


_define_settings()


def schema() -> dict[str, config.Setting]:
    """Every setting: Loreline's own and those the assistants contribute (defined when this
    module is imported; asking here makes the dependency plain)."""
    return config.SCHEMA


# -- session files: every assistant's format, and discovery across assistants ----------------------

_FORMATS: dict[str, SessionFormat] = {}


def formats() -> dict[str, SessionFormat]:
    """Every assistant's session format by name, in registry order (read once, on first use)."""
    if not _FORMATS:
        _FORMATS.update({a.name: a.session_format() for a in ALL if a.session_format is not None})
    return _FORMATS


def parse(path: Path, **how: Any) -> ParseResult:
    """`transcripts.parse` with every assistant's format (`tool=`, `start=`,
    `include_partial_tail=` as there)."""
    from .. import transcripts

    return transcripts.parse(path, formats(), **how)


def detect(path: Path) -> str | None:
    """The format of a file from its first parseable records; None when it has none."""
    from .. import transcripts

    return transcripts.detect(path, formats())


def __getattr__(name: str) -> Any:
    """`READERS` (format name → reader) and `DETECTORS` (→ `looks_like`, in detection order),
    built when first asked for."""
    if name in ("READERS", "DETECTORS"):
        from .. import transcripts

        value = transcripts.readers(formats()) if name == "READERS" else transcripts.detectors(formats())
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def discover_all(tools: Sequence[str], *, roots: Mapping[str, Path | None] | None = None,
                 window: Window | None = None) -> Discovery:
    """Sessions of every assistant in `tools` (`"all"` means every one the registry knows), one
    window and cap; `roots` overrides an assistant's home by name."""
    from ..transcripts import discover as found

    known = names()
    wanted = known if "all" in tools else tuple(dict.fromkeys(tools))
    unknown = [t for t in wanted if t not in known]
    if unknown:
        raise ValueError(f"unknown tool {unknown[0]!r} (known: {', '.join(known)}, all)")
    given = roots or {}
    result = found.Discovery()
    candidates: list[found.Found] = []
    for name in wanted:
        assistant = get(name)
        candidates.extend(assistant.find_sessions(given.get(name) or assistant.home(), result))
    found.apply_window(candidates, result, window or found.Window(), {a.name: a.finished for a in ALL})
    return result


def discover(tool: str, root: Path, *, days: float = DEFAULT_DAYS, max_sessions: int = DEFAULT_SESSIONS,
             now: float | None = None, settle_seconds: float | None = None) -> Discovery:
    """The sessions of one assistant under `root`."""
    from ..transcripts.discover import SETTLE_SECONDS, Window

    settle = SETTLE_SECONDS if settle_seconds is None else settle_seconds
    return discover_all([tool], roots={tool: root}, window=Window(days, max_sessions, now, settle))


def discover_claude(root: Path, **window: Any) -> Discovery:
    """Claude Code's sessions under `root` (`days=`, `max_sessions=`, `now=`, `settle_seconds=`)."""
    return discover("claude-code", root, **window)
