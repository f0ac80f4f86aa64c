"""`loreline mcp`: start the MCP server on stdio.

The server lives in its own package (`loreline_mcp`), which depends on the engine and never
the other way round, so this command replaces the process with the server's entry point.
"""

from __future__ import annotations

import argparse
import os
import sys


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser("mcp", help="run the MCP server on stdio (recall, list, show, remember, forget)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    sys.stdout.flush()
    # -P: a `loreline_mcp/` or `json.py` in the project folder must never run as the server
    os.execv(sys.executable, [sys.executable, "-P", "-m", "loreline_mcp"])
    return 0  # not reached
