"""`loreline export` and `loreline import memories`: memories moved between stores."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ..api import sources
from .common import emit_json, plural


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser("export", help="write memories with their provenance as JSONL (or Markdown)")
    p.add_argument("--project", metavar="DIR", help="only this project (default: every project)")
    p.add_argument("--format", choices=("jsonl", "markdown"), default="jsonl",
                   help="jsonl: everything, for `loreline import memories`; markdown: active memories by kind")
    p.add_argument("-o", "--output", metavar="FILE", help="write here instead of standard output")
    p.set_defaults(func=run_export)


def register_import(inner: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = inner.add_parser("memories", help="import a `loreline export` JSONL file (idempotent)")
    p.add_argument("file", metavar="FILE.jsonl")
    p.add_argument("--project", metavar="DIR", help="only this project (after --map)")
    p.add_argument("--map", action="append", metavar="FROM=TO",
                   help="the project lives at TO here and lived at FROM there (repeatable)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(func=run_import)


def run_export(args: argparse.Namespace) -> int:
    project = sources.project_arg(args.project)
    if args.format == "markdown":
        text = sources.export_markdown(project)
        if args.output:
            _write_private(Path(args.output), text.encode("utf-8"))
        else:
            sys.stdout.write(text)
        return 0
    if not args.output:
        counts = sources.export_jsonl(project, sys.stdout.buffer)
    else:
        with _private(Path(args.output)) as handle:
            counts = sources.export_jsonl(project, handle)
    if args.output:
        print(f"exported {plural(counts.memories, 'memory')}, {plural(counts.conflicts, 'conflict')}, "
              f"{plural(counts.tombstones, 'tombstone')} and {plural(counts.audit, 'audit row')} to {args.output}",
              file=sys.stderr)
    return 0


def _private(path: Path):  # type: ignore[no-untyped-def]
    """A new or truncated file readable by this user only (an export holds excerpts)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    return os.fdopen(fd, "wb")


def _write_private(path: Path, data: bytes) -> None:
    with _private(path) as handle:
        handle.write(data)


def run_import(args: argparse.Namespace) -> int:
    mapping = sources.path_map(args.map)
    project = sources.project_arg(args.project)
    report = sources.import_memories(Path(args.file).expanduser(), project, mapping)
    if args.json:
        emit_json(_report_json(report))
    else:
        print(_report_line(report))
    return 0


def _report_line(report: sources.LoadReport) -> str:
    if not report.changed:
        line = f"nothing new: {plural(report.already, 'memory')} already here"
    else:
        line = (f"imported {plural(report.memories, 'memory')}, {plural(report.provenance, 'source')}, "
                f"{plural(report.conflicts, 'conflict')}, {plural(report.tombstones, 'tombstone')}, "
                f"{plural(report.audit, 'audit row')}; {report.already} already here")
    if report.skipped_other_projects:
        line += f"; {plural(report.skipped_other_projects, 'memory')} of other projects left out"
    if report.dropped_columns:
        line += f"; columns this store lacks were dropped: {', '.join(sorted(report.dropped_columns))}"
    return line


def _report_json(report: sources.LoadReport) -> dict[str, object]:
    return {"memories": report.memories, "provenance": report.provenance, "files": report.files,
            "conflicts": report.conflicts, "tombstones": report.tombstones, "audit": report.audit,
            "already": report.already, "skipped_other_projects": report.skipped_other_projects,
            "dropped_columns": sorted(report.dropped_columns)}
