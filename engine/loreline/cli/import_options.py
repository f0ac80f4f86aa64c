"""The options the import commands share (`import sessions`, `import native`): one folder
option per assistant, and numbers that must be above zero. Both command modules take them from
here; neither imports the other for them."""

from __future__ import annotations

import argparse
import math

from ..names import HOMES

TYPE_CHECKING = False  # typing is left to the commands that run: `--help` imports none of it
if TYPE_CHECKING:
    from collections.abc import Callable


def positive(kind: type[int] | type[float]) -> Callable[[str], float]:
    """An argparse type: a finite number above zero."""
    def parse(text: str) -> float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not math.isfinite(value) or value <= 0:
            raise argparse.ArgumentTypeError(f"{text!r} must be a number above zero")
        return value
    return parse


def add_home_options(p: argparse.ArgumentParser, only: tuple[str, ...] | None = None) -> None:
    """One option per assistant for its folder (`--claude-dir`, `--codex-home`, ...)."""
    for name, option, label, env, inside, default in HOMES:
        if only is None or name in only:
            moved = f"${env}{'/' + default if inside else ''} or " if env else ""
            p.add_argument(option, dest=_dest(option), help=f"{label} folder (default: {moved}~/{default})")


def homes_of(args: argparse.Namespace) -> dict[str, str]:
    """The folders given with the home options, by assistant name."""
    return {name: value for name, option, *_ in HOMES if (value := getattr(args, _dest(option), None))}


def _dest(option: str) -> str:
    return option.lstrip("-").replace("-", "_")
