"""`loreline import native`: the assistants' own memory files (Claude Code auto memory,
CLAUDE.md layers, Codex memories, GEMINI.md files) read as sources of memories; never written."""

from __future__ import annotations

import argparse

from ..errors import StoreError
from ..names import NATIVE
from .common import backend_choice, emit_json
from .import_options import add_home_options, homes_of

TYPE_CHECKING = False  # typing and pathlib are left to the commands that run: `--help` imports neither
if TYPE_CHECKING:
    from ..api.sources import SyncReport


def register_import(inner: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = inner.add_parser("native", help="import Claude Code auto memory, CLAUDE.md files, Codex memories and "
                                        "GEMINI.md files as sources (read-only)")
    p.add_argument("--project", metavar="DIR", help="only this project (default: every project found)")
    p.add_argument("--memory-dir", metavar="FOLDER",
                   help="the project's auto memory folder when it is elsewhere (autoMemoryDirectory); "
                        "needs --project")
    add_home_options(p, NATIVE)
    p.add_argument("--backend", type=backend_choice, metavar="BACKEND",
                   help="the model that judges near duplicates and contradictions, as for `import sessions` "
                        "(default: config distill.backend, auto; the offline rules judge nothing)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ..api import sources
    from . import render

    if args.memory_dir and not args.project:
        raise StoreError("--memory-dir needs --project (which project that folder belongs to)")
    report = sources.import_native(homes_of(args), sources.project_arg(args.project),
                                   Path(args.memory_dir).expanduser() if args.memory_dir else None, args.backend)
    if args.json:
        emit_json(json_report(report))
    else:
        print(render.native_line(report))
        for path, reason in report.failed:
            print(f"  {path}: {reason}")
    return 0


def json_report(report: SyncReport) -> dict[str, object]:
    from ..api import serialize

    return serialize.native_report(report)
