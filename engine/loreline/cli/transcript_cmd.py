"""`loreline transcript PATH`: a session's turns exactly as a distiller would read them.

The turns are parsed, sanitized and redacted by the same functions the import pipeline
uses (`pipeline.clean_turns`), the actions folded and bounded and every turn labelled by
`chunk.account` (`L12 [USER] …`, `L14 [RAN] pytest -q → 3 failed, 10 passed`), so what this
prints is what a model is sent — nothing else. A footer counts what the parser left out, by
reason. `--json` gives each turn's speaker (`user`, `assistant`, `action`) and origin (for an
action: `ran`, `edited`, `denied`). Reads the session file only; the store is never opened.
"""

from __future__ import annotations

import argparse

from ..names import FORMATS
from .common import emit_json, plural

TYPE_CHECKING = False  # typing and pathlib are left to the commands that run: `--help` imports neither
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from ..models import Chunk, Transcript, Turn


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser("transcript", help="show a session's cleaned, redacted turns as a model would see them")
    p.add_argument("path", metavar="PATH", help="a session file (Claude Code, Codex, Cursor or generic JSONL)")
    p.add_argument("--tool", choices=FORMATS, help="the file's format (default: detected)")
    p.add_argument("--chunks", action="store_true", help="show where the chunks sent to the model begin and end")
    p.add_argument("--json", action="store_true", help="print turns, drop counts (and chunks) as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ..api.transcripts import chunk, clean_turns, parse, printable

    path = Path(args.path).expanduser()
    t = parse(path, tool=args.tool).transcript
    turns = clean_turns(t.turns)
    dropped = dict(t.stats.dropped)
    if len(turns) < len(t.turns):
        dropped["empty-after-cleaning"] = len(t.turns) - len(turns)
    chunks = chunk(turns, session_id=t.session_id, path=str(path)) if args.chunks else []
    if args.json:
        emit_json(_as_json(t, turns, dropped, chunks if args.chunks else None))
    else:
        print(printable(_as_text(t, turns, dropped, chunks if args.chunks else None), multiline=True))
    return 0


def _as_text(t: Transcript, turns: list[Turn], dropped: dict[str, int], chunks: list[Chunk] | None) -> str:
    from ..api.transcripts import account

    if chunks is None:
        body = "\n\n".join(text for _, text in account(turns))
    else:
        body = "\n\n".join(f"{_chunk_rule(c, len(chunks))}\n{c.text}" for c in chunks)
    return (body + "\n\n" if body else "") + footer(t, turns, dropped)


def _chunk_rule(piece: Chunk, total: int) -> str:
    return (f"── chunk {piece.index + 1}/{total} · L{piece.line_start}-{piece.line_end} · "
            f"{plural(len(piece.turns), 'turn')} · {len(piece.text):,} chars ──")


def footer(t: Transcript, turns: list[Turn], dropped: dict[str, int]) -> str:
    """One line: what was kept and what was dropped, by reason (most frequent first)."""
    from ..api.transcripts import stored

    users = sum(1 for turn in turns if turn.speaker == "user")
    actions = sum(1 for turn in turns if turn.speaker == "action")
    done = f", {plural(actions, 'action')}" if actions else ""
    kept = f"kept {plural(len(turns), 'turn')} ({users} user, {len(turns) - users - actions} assistant{done})"
    reasons = ", ".join(f"{reason} {n}" for reason, n in sorted(dropped.items(), key=lambda kv: (-kv[1], kv[0])))
    return (f"— {t.tool} session {stored(t.session_id)} · {plural(t.lines_total, 'line')} · {kept} · "
            f"dropped: {reasons or 'nothing'}")


def _as_json(t: Transcript, turns: list[Turn], dropped: dict[str, int], chunks: list[Chunk] | None) -> dict[str, Any]:
    from ..api.transcripts import stored

    from ..api.transcripts import account, left_out

    shown = [turn for turn, _ in account(turns) if turn is not None]  # repeated actions folded, the bound kept
    out: dict[str, Any] = {
        "path": stored(t.path), "tool": t.tool, "session_id": stored(t.session_id),
        "cwd": stored(t.cwd) if t.cwd else t.cwd, "started_at": t.started_at,
        "lines": t.lines_total, "bad_lines": t.stats.bad_lines,
        "turns": [{"speaker": turn.speaker, "origin": turn.origin, "line_start": turn.line_start,
                   "line_end": turn.line_end, "timestamp": turn.timestamp, "text": turn.text,
                   "files": list(turn.files)} for turn in shown],
        "actions_left_out": left_out(turns),
        "dropped": dict(sorted(dropped.items())),
    }
    if chunks is not None:
        out["chunks"] = [{"index": c.index, "line_start": c.line_start, "line_end": c.line_end,
                          "turns": len(c.turns), "chars": len(c.text), "text": c.text} for c in chunks]
    return out

