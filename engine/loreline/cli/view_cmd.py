"""`loreline view`: the local viewer in the browser.

The viewer lives in its own package (`loreline_view`), which depends on the engine and never
the other way round, so this command replaces the process with the viewer's entry point.
"""

from __future__ import annotations

import argparse
import os
import sys


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser("view", help="open the local viewer in the browser (loopback only, a per-run token)")
    p.add_argument("--port", type=int, default=0, help="the port to listen on (default: a free one)")
    p.add_argument("--no-browser", action="store_true", help="only print the address")
    p.add_argument("--memory", type=int, metavar="ID", help="open this memory's page")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    sys.stdout.flush()
    os.execv(sys.executable, [sys.executable, *viewer_argv(args.port, args.no_browser, args.memory)])
    return 0  # not reached


def viewer_argv(port: int = 0, no_browser: bool = False, memory: int | None = None,
                store: str | None = None) -> list[str]:
    # -P: a `loreline_view/` in the current folder must never run as the viewer
    argv = ["-P", "-m", "loreline_view", "--port", str(port)]
    if no_browser:
        argv.append("--no-browser")
    if memory is not None:
        argv += ["--page", f"/m/{memory}"]
    if store is not None:
        argv += ["--store", store]
    return argv
