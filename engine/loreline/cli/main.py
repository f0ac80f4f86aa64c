"""Entry point of the `loreline` command: parses arguments and turns errors into one line."""

from __future__ import annotations

import argparse
import functools
import importlib
import os
import sys
from collections.abc import Sequence

from .. import __version__
from ..errors import LorelineError

#: the modules that register the commands, in the order `--help` lists them
COMMAND_MODULES = ("imports", "browse", "brief_cmd", "curate_cmd", "status", "auth", "config_cmd", "demo", "lsp_cmd", "mcp_cmd",
                   "worker_cmd", "connect_cmd", "transcript_cmd", "reembed_cmd", "portable_cmd", "review_cmd",
                   "stale_cmd", "team_cmd", "redact_cmd", "view_cmd")
#: which module registers each command: running one imports and builds only its own module's
#: parsers (`tests/test_cli.py` checks this against the full parser); `--help`, no command or an
#: unknown one build them all
COMMANDS = {
    "import": "imports", "memories": "browse", "show": "browse", "recall": "browse", "brief": "brief_cmd",
    **dict.fromkeys(("forget", "edit", "pin", "history", "conflicts", "resolve", "revert"), "curate_cmd"),
    "status": "status", "auth": "auth", "config": "config_cmd", "demo": "demo", "lsp": "lsp_cmd", "mcp": "mcp_cmd",
    "worker": "worker_cmd", "connect": "connect_cmd", "disconnect": "connect_cmd", "transcript": "transcript_cmd",
    "reembed": "reembed_cmd", "export": "portable_cmd", "review": "review_cmd", "approve": "review_cmd",
    "reject": "review_cmd", "confirm": "stale_cmd", "check": "stale_cmd", "team": "team_cmd", "redact": "redact_cmd",
    "view": "view_cmd",
}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole parser, or, given the command a run asks for, one with that command's module only."""
    _translate_once()
    parser = Parser(
        prog="loreline",
        description="Durable, evidence-backed memories from your AI coding-assistant sessions.",
    )
    parser.add_argument("--version", action="version", version=f"loreline {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    names = [COMMANDS[command]] if command in COMMANDS else COMMAND_MODULES
    for name in names:
        importlib.import_module(f"{__package__}.{name}").register(sub)
    return parser


def command_of(argv: Sequence[str]) -> str | None:
    """The command word of a command line (the first word that is not an option: the top level
    has no option taking a value), or None when help is asked for before it."""
    for word in argv:
        if word in ("-h", "--help"):
            return None
        if not word.startswith("-"):
            return word
    return None


class Parser(argparse.ArgumentParser):
    """argparse's parser, its help as wide as argparse makes it without importing `shutil` (and
    with it zlib, bz2 and lzma) for each formatter: argparse builds one for every argument it
    adds. The subcommands' parsers are of this class too (argparse makes them of the parent's)."""

    def _get_formatter(self) -> argparse.HelpFormatter:
        return self.formatter_class(prog=self.prog, width=terminal_columns() - 2)  # type: ignore[call-arg]


def terminal_columns() -> int:
    """The terminal's width as `shutil.get_terminal_size().columns` gives it: $COLUMNS when it
    is a positive number, else standard output's terminal, else 80."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns > 0:
        return columns
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns or 80  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        return 80


def _untranslated(message: str) -> str:
    return message


def _translate_once() -> None:
    """argparse asks gettext for the translation of its own few words ("options", "show this help
    message and exit") each time it builds a parser, and gettext searches the locale folders
    afresh on every call: about 140 searches, ~14 ms of every command's start. Where the folder
    gettext searches does not exist no word has a translation, and each is its own; elsewhere
    the answer cannot change within a run, so each word is looked up once."""
    if argparse._ is _untranslated or isinstance(argparse._, functools._lru_cache_wrapper):  # type: ignore[attr-defined]
        return
    import gettext

    domain = getattr(gettext, "_current_domain", "messages")
    folder = getattr(gettext, "_localedirs", {}).get(domain) or os.path.join(sys.base_prefix, "share", "locale")
    if not os.path.isdir(folder):
        argparse._ = _untranslated  # type: ignore[attr-defined]
    else:
        argparse._ = functools.lru_cache(maxsize=None)(argparse._)  # type: ignore[attr-defined]


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(command_of(argv))
    args = parser.parse_args(argv)
    try:
        from . import config_cmd

        config_cmd.check_at_start(args)
        return int(args.func(args))
    except LorelineError as err:
        print(f"loreline: {err}", file=sys.stderr)
        return err.exit_code
    except KeyboardInterrupt:
        print("loreline: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except OSError as err:
        where = f" ({err.filename})" if err.filename else ""
        print(f"loreline: {err.strerror or err}{where}", file=sys.stderr)
        return 1
    except Exception as err:  # the last edge: one line, the traceback only when asked for
        if os.environ.get("LORELINE_DEBUG"):
            raise
        print(f"loreline: unexpected {type(err).__name__}: {err} (LORELINE_DEBUG=1 shows the traceback)",
              file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
