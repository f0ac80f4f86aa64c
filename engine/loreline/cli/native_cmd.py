"""`loreline import native`: the assistants' own memory files (Claude Code auto memory,
CLAUDE.md layers, Codex memories) read as sources of memories; never written."""

from __future__ import annotations

import argparse
from pathlib import Path

from .. import backends
from ..beliefs import Judge
from ..errors import LorelineError, StoreError
from ..store import Store
from ..native import run as native_run
from ..native.sync import SyncReport
from ..portable.paths import project_arg
from ..transcripts import discover
from .common import emit_json, open_store, plural


def register_import(inner: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = inner.add_parser("native", help="import Claude Code auto memory, CLAUDE.md files and Codex memories "
                                        "as sources (read-only)")
    p.add_argument("--project", metavar="DIR", help="only this project (default: every project found)")
    p.add_argument("--memory-dir", metavar="FOLDER",
                   help="the project's auto memory folder when it is elsewhere (autoMemoryDirectory); "
                        "needs --project")
    p.add_argument("--claude-dir", help="Claude Code config dir (default: $CLAUDE_CONFIG_DIR or ~/.claude)")
    p.add_argument("--codex-home", help="Codex home (default: $CODEX_HOME or ~/.codex)")
    p.add_argument("--backend", choices=backends.BACKENDS,
                   help="the model that judges near duplicates and contradictions, as for `import sessions` "
                        "(default: config distill.backend, auto; the offline rules judge nothing)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.memory_dir and not args.project:
        raise StoreError("--memory-dir needs --project (which project that folder belongs to)")
    roots = native_run.Roots(discover.claude_dir(args.claude_dir), discover.codex_home(args.codex_home),
                             project_arg(args.project), Path(args.memory_dir).expanduser() if args.memory_dir else None)
    judge = backends.choose(args.backend, None).judge
    with open_store() as store:
        if store.read_only:
            raise StoreError(store.read_only_message())
        report = native_run.run(store, roots, judge=judge)
    if args.json:
        emit_json(_json(report))
    else:
        print(_line(report))
        for path, reason in report.failed:
            print(f"  {path}: {reason}")
    return 0


def follow(store: Store, claude_dir: str | None, codex_home: str | None,
           judge: Judge | None) -> dict[str, object] | None:
    """The native import after `import sessions` discovered sessions: its report as JSON with
    a `line` for people, or None when it could not run (the sessions' import stands)."""
    roots = native_run.Roots(discover.claude_dir(claude_dir), discover.codex_home(codex_home))
    try:
        report = native_run.run(store, roots, judge=judge)
    except (LorelineError, OSError):
        return None
    return {**_json(report), "line": _line(report)}


def _line(report: SyncReport) -> str:
    return (f"native memory: {plural(report.files, 'file')} read, {report.unchanged} unchanged, "
            f"{report.deleted} deleted; {plural(report.added, 'memory')} added, {report.joined} joined an "
            f"existing memory as a source, {report.versioned} versioned, {plural(report.conflicts, 'conflict')}; "
            f"{report.ended} ended (their file no longer says them), {report.dropped_sources} sources dropped")


def _json(report: SyncReport) -> dict[str, object]:
    return {"files": report.files, "unchanged": report.unchanged, "deleted": report.deleted, "items": report.items,
            "added": report.added, "joined": report.joined, "versioned": report.versioned,
            "conflicts": report.conflicts, "known": report.known, "ended": report.ended,
            "dropped_sources": report.dropped_sources,
            "failed": [{"path": p, "error": e} for p, e in report.failed]}
