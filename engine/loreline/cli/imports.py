"""`loreline import sessions`: backfill memories from session files on disk."""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable
from pathlib import Path

from .. import backends, pipeline, usage
from ..distill import Metered
from ..errors import StoreError, TranscriptMissingError
from ..beliefs import Judge
from ..models import ImportReport
from ..store import Store
from ..transcripts import discover
from . import render
from .common import emit_json, open_store


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    group = sub.add_parser("import", help="import memories from assistant sessions")
    inner = group.add_subparsers(dest="what", required=True, metavar="WHAT")
    p = inner.add_parser("sessions", help="import assistant sessions (discovered with --tool, or --path FILE…)")
    p.add_argument("--path", nargs="+", metavar="FILE", help="import these transcript files instead of discovering")
    p.add_argument("--claude-dir", help="Claude Code config dir (default: $CLAUDE_CONFIG_DIR or ~/.claude)")
    p.add_argument("--tool", choices=(*discover.TOOLS, "all"), default="claude-code",
                   help="whose sessions to discover: claude-code, codex, cursor or all (default: claude-code)")
    p.add_argument("--codex-home", help="Codex home (default: $CODEX_HOME or ~/.codex)")
    p.add_argument("--cursor-dir", help="Cursor config dir (default: ~/.cursor)")
    p.add_argument("--days", type=positive(float), default=discover.DEFAULT_DAYS,
                   help="only sessions modified in the last N days (14)")
    p.add_argument("--sessions", type=positive(int), default=discover.DEFAULT_SESSIONS,
                   help="at most N sessions, newest first (20)")
    p.add_argument("--dry-run", action="store_true", help="write nothing; show what would be distilled")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--backend", choices=backends.BACKENDS, help="distiller: auto (an API key if configured, "
                   "else a logged-in Claude Code, else offline rules), anthropic, claude-code or rules "
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


def run(args: argparse.Namespace) -> int:
    sessions, left_out = _select(args)
    choice = backends.choose(args.backend, args.api_key)
    if choice.notice:
        print(choice.notice, file=sys.stderr)
    options = pipeline.Options(distiller=choice.distiller, judge=choice.judge, dry_run=args.dry_run,
                               progress=_progress(), attended=True)
    with open_store() as store:
        if store.read_only and not args.dry_run:  # one line, not one failure per session
            raise StoreError(store.read_only_message())
        report = pipeline.import_sessions(store, sessions, options)
        native = _follow_native(store, args, choice.judge)
    report.backend_reason = choice.reason
    report.left_out.extend(left_out)
    _clear_progress()
    if args.json:
        emit_json({**_report_json(report, options), **({"native": native} if native else {})})
    else:
        print(render.import_report(report))
        if native:
            print(native["line"])
        if report.model is not None:
            print(_spend_line(report))
        if args.dry_run:
            print(_preview(options))
    return 1 if report.failed and not report.imported else 0


def _follow_native(store: Store, args: argparse.Namespace, judge: Judge | None) -> dict[str, object] | None:
    """A discovery import of Claude Code sessions also reads the assistants' own memory files
    (`loreline import native`), so what sessions already load stays out of SessionStart."""
    if args.path or args.dry_run or args.tool not in ("claude-code", "all"):
        return None
    from . import native_cmd

    return native_cmd.follow(store, args.claude_dir, args.codex_home, judge)


def _select(args: argparse.Namespace) -> tuple[list[tuple[Path, str | None]], list[tuple[str, str]]]:
    if args.path:
        paths = [Path(p).expanduser() for p in args.path]
        missing = [p for p in paths if not p.is_file()]
        if missing and len(missing) == len(paths):
            raise TranscriptMissingError(f"no such transcript: {missing[0]}")
        return [(p, None) for p in paths if p.is_file()], [(str(p), "no such file") for p in missing]
    found = discover.discover_all(
        [args.tool], claude_root=discover.claude_dir(args.claude_dir), codex_root=discover.codex_home(args.codex_home),
        cursor_root=discover.cursor_dir(args.cursor_dir), window=discover.Window(args.days, args.sessions))
    return found.in_import_order(), found.left_out


def _progress() -> pipeline.Progress | None:
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


def _preview(options: pipeline.Options) -> str:
    paid = isinstance(options.distiller, Metered)
    out = ["", "Would distill:" if not paid else "Would send (not distilled: a dry run makes no model call):"]
    for piece, accepted in options.preview:
        out.append(f"  {Path(piece.path).name} lines {piece.line_start}-{piece.line_end} "
                   f"({len(piece.text):,} chars)" + ("" if paid else f": {len(accepted)} memories"))
        out.extend(f"    {c.kind:<10} {c.text}" for c in accepted)
    return "\n".join(out)


def _spend_line(report: ImportReport) -> str:
    assert report.model is not None
    if report.dry_run:
        pending = report.chunks - report.chunks_replayed
        return usage.estimate_line(report.model, pending, report.estimated_input_tokens)
    return usage.cost_line(report.model, report.usage)


def _spend_json(report: ImportReport) -> dict[str, object]:
    spent = report.usage
    return {"model": report.model, "calls": spent.calls, "input_tokens": spent.input_tokens,
            "cache_read_tokens": spent.cache_read_tokens, "cache_creation_tokens": spent.cache_creation_tokens,
            "output_tokens": spent.output_tokens, "estimated_input_tokens": report.estimated_input_tokens,
            "cost_usd_estimate": usage.cost(report.model, spent) if report.model else None}


def _report_json(report: ImportReport, options: pipeline.Options) -> dict[str, object]:
    return {
        "dry_run": report.dry_run,
        "backend": report.backend,
        "backend_reason": report.backend_reason,
        "sessions": {"imported": report.imported, "unchanged": report.unchanged,
                     "left_out": [{"path": p, "reason": r} for p, r in report.left_out],
                     "failed": [{"path": p, "error": e} for p, e in report.failed],
                     "deferred": [{"path": p, "reason": r} for p, r in report.deferred]},
        "model_use": _spend_json(report),
        "turns": report.turns,
        "lines_skipped": report.lines_skipped,
        "chunks": report.chunks,
        "chunks_replayed": report.chunks_replayed,
        "candidates": report.candidates,
        "rejected": report.rejected,
        "added": report.added,
        "merged": report.merged,
        "forgotten_skipped": report.forgotten_skipped,
        "preview": [
            {"path": c.path, "line_start": c.line_start, "line_end": c.line_end, "chars": len(c.text),
             "memories": [{"kind": m.kind, "text": m.text} for m in accepted]}
            for c, accepted in options.preview
        ],
    }
