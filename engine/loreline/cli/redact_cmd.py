"""`loreline redact [FILE]`: print a file (or stdin) with its secrets replaced by markers.

Useful before pasting a log or a transcript anywhere: the same redactor the import uses.
The text goes to stdout, a one-line summary of what was replaced to stderr.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import TranscriptMissingError
from ..api.transcripts import redact_counts, sanitize_counts


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser(
        "redact", help="print a file (or stdin) with secrets replaced by [REDACTED:<family>] markers",
        description="Read FILE (or stdin when FILE is omitted or '-'), replace every secret the "
                    "redactor recognises with a typed marker, write the result to stdout and a "
                    "summary of what was replaced to stderr.",
    )
    p.add_argument("file", nargs="?", default="-", metavar="FILE", help="the file to redact (default: stdin)")
    p.add_argument("--sanitize", action="store_true",
                   help="also remove hidden text first (zero-width and bidi characters, HTML comments, "
                        "harness wrappers, <private> spans), as the import does")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    data = _read(args.file)
    text = data.decode("utf-8", errors="replace")
    hidden: dict[str, int] = {}
    if args.sanitize:
        text, hidden = sanitize_counts(text)
    redacted, counts = redact_counts(text)
    sys.stdout.buffer.write(redacted.encode("utf-8"))
    sys.stdout.flush()
    print(summary(counts, hidden), file=sys.stderr)
    return 0


def _read(name: str) -> bytes:
    if name == "-":
        return sys.stdin.buffer.read()
    path = Path(name)
    if not path.is_file():
        raise TranscriptMissingError(f"no such file: {path}")
    return path.read_bytes()


def summary(counts: dict[str, int], hidden: dict[str, int] | None = None) -> str:
    """`redacted 3 secrets (password 2, aws-access-key 1)`, plus what sanitizing removed."""
    total = sum(counts.values())
    line = f"redacted {total} secret{'' if total == 1 else 's'}"
    if counts:
        line += " (" + ", ".join(f"{family} {n}" for family, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))) + ")"
    if hidden:
        line += "; sanitized: " + ", ".join(f"{kind} {n}" for kind, n in sorted(hidden.items()))
    return line
