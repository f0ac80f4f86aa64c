"""`loreline import sessions`: backfill memories from session files on disk."""

from __future__ import annotations

import argparse
import sys

from ..names import DEFAULT_DAYS, DEFAULT_SESSIONS, TOOLS
from .common import backend_choice, emit_json
from .import_options import add_home_options, homes_of, positive

TYPE_CHECKING = False  # typing and pathlib are left to the commands that run: `--help` imports neither
if TYPE_CHECKING:
    from collections.abc import Callable

    from ..api.imports import Progress
    from ..api.results import ImportOutcome
    from ..models import ImportReport


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    group = sub.add_parser("import", help="import memories from assistant sessions")
    inner = group.add_subparsers(dest="what", required=True, metavar="WHAT")
    p = inner.add_parser("sessions", help="import assistant sessions (discovered with --tool, or --path FILE…)")
    p.add_argument("--path", nargs="+", metavar="FILE", help="import these transcript files instead of discovering")
    p.add_argument("--tool", choices=(*TOOLS, "all"), default="claude-code",
                   help=f"whose sessions to discover: {', '.join(TOOLS)} or all (default: claude-code)")
    add_home_options(p)
    p.add_argument("--days", type=positive(float), default=DEFAULT_DAYS,
                   help="only sessions modified in the last N days (14)")
    p.add_argument("--sessions", type=positive(int), default=DEFAULT_SESSIONS,
                   help="at most N sessions, newest first (20)")
    p.add_argument("--include-paused", action="store_true",
                   help="with --path: import the files even if their session ran under LORELINE_OFF=1 "
                        "(paused sessions are otherwise left out)")
    p.add_argument("--dry-run", action="store_true", help="write nothing; show what would be distilled")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--backend", type=backend_choice, metavar="BACKEND", help="distiller: auto (an API key if configured, "
                   "else a logged-in Claude Code, else a logged-in Codex, else offline rules), anthropic, "
                   "claude-code, codex, rules, or recorded:DIR (answers recorded in DIR, no model) "
                   "(default: config distill.backend, auto)")
    p.add_argument("--api-key", help="Anthropic API key for this run (visible in the process list: prefer "
                   "`loreline auth set` or ANTHROPIC_API_KEY)")
    p.set_defaults(func=run)
    _register_siblings(inner)


def _register_siblings(inner: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """`import memories` (an export) and `import native` (assistants' own memory files)."""
    from . import native_cmd, portable_cmd

    portable_cmd.register_import(inner)
    native_cmd.register_import(inner)


def run(args: argparse.Namespace) -> int:
    from ..api import imports, serialize
    from ..api.results import ImportRequest
    from . import render

    if args.include_paused and not args.path:
        print("loreline: --include-paused needs --path FILE…: a paused session is imported only when named",
              file=sys.stderr)
        return 2
    request = ImportRequest(paths=tuple(args.path or ()), tools=(args.tool,), homes=homes_of(args), days=args.days,
                            sessions=args.sessions, dry_run=args.dry_run, backend=args.backend, api_key=args.api_key,
                            include_paused=args.include_paused)
    plan = imports.plan(request)
    if plan.notice:
        print(plan.notice, file=sys.stderr)
    outcome = imports.run(plan, progress=_progress())
    report = outcome.report
    _clear_progress()
    if args.json:
        emit_json(serialize.import_report(outcome))
    else:
        print(render.import_report(report))
        if outcome.native is not None:
            print(render.native_line(outcome.native))
        if report.model is not None:
            print(_spend_line(report))
        if args.dry_run:
            print(_preview(outcome))
    return 1 if report.failed and not (report.imported or report.unchanged) else 0  # one bad file fails only itself


def _progress() -> Progress | None:
    from pathlib import Path

    if not sys.stderr.isatty():
        return None

    def show(index: int, total: int, path: str) -> None:
        name = Path(path).name
        sys.stderr.write(f"\r\033[K[{index}/{total}] {name[:70]}")
        sys.stderr.flush()

    return show


def _clear_progress() -> None:
    if sys.stderr.isatty():
        sys.stderr.write("\r\033[K")
        sys.stderr.flush()


def _preview(outcome: ImportOutcome) -> str:
    from pathlib import Path

    paid = outcome.paid
    out = ["", "Would distill:" if not paid else "Would send (not distilled: a dry run makes no model call):"]
    for piece, accepted in outcome.preview:
        out.append(f"  {Path(piece.path).name} lines {piece.line_start}-{piece.line_end} "
                   f"({len(piece.text):,} chars)" + ("" if paid else f": {len(accepted)} memories"))
        out.extend(f"    {c.kind:<10} {c.text}" for c in accepted)
    return "\n".join(out)


def _spend_line(report: ImportReport) -> str:
    from ..api import usage

    assert report.model is not None
    if report.dry_run:
        pending = report.chunks - report.chunks_replayed
        return usage.estimate_line(report.model, pending, report.estimated_input_tokens, report.imported)
    return usage.cost_line(report.model, report.usage)
