"""Entry point of the `loreline` command: parses arguments and turns errors into one line."""

from __future__ import annotations

import argparse
import functools
import os
import sys
from collections.abc import Sequence

from .. import __version__
from ..errors import LorelineError
from . import (
    auth,
    browse,
    config_cmd,
    connect_cmd,
    curate_cmd,
    demo,
    imports,
    lsp_cmd,
    mcp_cmd,
    portable_cmd,
    reembed_cmd,
    review_cmd,
    stale_cmd,
    status,
    team_cmd,
    transcript_cmd,
    worker_cmd,
)

COMMAND_MODULES = (imports, browse, curate_cmd, status, auth, config_cmd, demo, lsp_cmd, mcp_cmd, worker_cmd,
                   connect_cmd, transcript_cmd, reembed_cmd, portable_cmd, review_cmd, stale_cmd, team_cmd)


def build_parser() -> argparse.ArgumentParser:
    _translate_once()
    parser = argparse.ArgumentParser(
        prog="loreline",
        description="Durable, evidence-backed memories from your AI coding-assistant sessions.",
    )
    parser.add_argument("--version", action="version", version=f"loreline {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in COMMAND_MODULES:
        module.register(sub)
    _register_optional(sub)
    return parser


def _translate_once() -> None:
    """argparse asks gettext for the translation of its own few words ("options", "show this help
    message and exit") each time it builds a parser, and gettext searches the locale folders
    afresh on every call: about 140 searches, ~14 ms of every command's start. The answer cannot
    change within a run, so each word is looked up once."""
    if not isinstance(argparse._, functools._lru_cache_wrapper):  # type: ignore[attr-defined]
        argparse._ = functools.lru_cache(maxsize=None)(argparse._)  # type: ignore[attr-defined]


def _register_optional(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    from . import redact_cmd

    redact_cmd.register(sub)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
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
