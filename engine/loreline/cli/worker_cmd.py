"""`loreline worker [--drain]`: move hook captures into the store.

Hooks start `loreline worker --drain` detached at the end of a session; run it by hand to
drain now, or without `--drain` to keep a worker in the foreground. When another worker
holds the lock this one exits at once with status 0 and prints nothing.
"""

from __future__ import annotations

import argparse
import dataclasses
import signal
from types import FrameType
from typing import TYPE_CHECKING

from .common import emit_json

if TYPE_CHECKING:
    from ..api.worker import DrainReport


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser("worker", help="import what the hooks captured (one worker at a time)")
    p.add_argument("--drain", action="store_true", help="run the due jobs, then exit (default: keep running)")
    p.add_argument("--wait", type=float, default=0.0, metavar="SECONDS",
                   help="wait up to SECONDS for a running worker to finish instead of exiting at once")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..api.worker import Worker

    worker = Worker()
    if args.drain:
        report = worker.drain(wait_lock=max(0.0, args.wait))
    else:
        report = worker.serve(_stop_flag())
    if report is not None:
        _show(report, args.json)
    return 0


def _stop_flag() -> "StopFlag":
    flag = StopFlag()
    signal.signal(signal.SIGTERM, flag.set)
    signal.signal(signal.SIGINT, flag.set)
    return flag


class StopFlag:
    def __init__(self) -> None:
        self.stopped = False

    def set(self, signum: int, frame: FrameType | None) -> None:
        self.stopped = True

    def __call__(self) -> bool:
        return self.stopped


def _show(report: "DrainReport", as_json: bool) -> None:
    if as_json:
        emit_json(dataclasses.asdict(report))
    else:
        print(report.line())
