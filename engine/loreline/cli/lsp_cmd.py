"""`loreline lsp`: start the language server on stdio.

The server lives in its own package (`loreline_lsp`), which depends on the engine and never
the other way round, so this command replaces the process with the server's entry point.
"""

from __future__ import annotations

import argparse
import os
import sys


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser("lsp", help="run the language server on stdio (for the VS Code and Neovim clients)")
    p.add_argument("--stdio", action="store_true", help="accepted for clients that pass it; stdio is the default")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    sys.stdout.flush()
    # -P: a `loreline_lsp/` or `json.py` in the project folder must never run as the server
    os.execv(sys.executable, [sys.executable, "-P", "-m", "loreline_lsp"])
    return 0  # not reached
