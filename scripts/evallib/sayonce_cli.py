"""`scripts/eval say-once`: the command line of the say-once replay (`sayonce`).

    scripts/eval say-once [--backend rules[,recorded:DIR,claude-code…]] [--half tune|test|both] [--judge BACKEND]
    scripts/eval say-once --history DIR [--labels FILE] [--backend rules]

`--backend recorded:DIR` answers every model request from the recorded answers in DIR (no model,
no network); a request without an answer is written to DIR and listed at the end, and the run
says the figure is incomplete. `LORELINE_RECORD=DIR` with a model backend records what it sends
and what comes back. `--judge BACKEND` adds a model judge of each repeat at the claim (a model
backend or recorded:DIR; its verdicts are requests like any other).

Prompts are answered by the hook's words recall (the path it takes whenever the warm recall
process is not running). The labelled set's figure goes to `.bench/sayonce.json` and the `say-once` section of
docs/benchmarks.md (`--no-docs` keeps the file as it is). A backend other than `rules` needs its
key or login (`ANTHROPIC_API_KEY`, or `distill.backend` in the config); it is billed for every
session replayed.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from benchlib import docs

from . import sayonce, sayonce_report

RESULTS = docs.ROOT / ".bench" / "sayonce.json"


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="scripts/eval say-once",
                                description="Replay multi-session histories through the real hooks and count the "
                                            "repeats Loreline would have spared.")
    p.add_argument("--backend", default="rules", help="distiller backends, comma-separated (rules)")
    p.add_argument("--half", default="both", choices=("tune", "test", "both", "model"),
                   help="which half of the labelled set (both); model: the test half's histories a model-backed "
                        "run is reported on (`model_subset` in the label file)")
    p.add_argument("--history", type=Path, help="a folder of your own sessions of one project")
    p.add_argument("--labels", type=Path, help="a labelled set in the format of tests/eval/sayonce/labels.json (default: that set); with --history: the format of tests/eval/sayonce/labels.json (a `projects` table "
                        "or a bare `repeats` list), with `file:line` paths relative to DIR")
    p.add_argument("--judge", help="also judge each repeat at the claim with a model: a model backend or recorded:DIR")
    p.add_argument("--verbose", "-v", action="store_true", help="list every repeat, saved or missed")
    p.add_argument("--json", type=Path, default=RESULTS, help="where to write results (.bench/sayonce.json)")
    p.add_argument("--no-docs", action="store_true", help="do not rewrite the say-once section of docs/benchmarks.md")
    p.add_argument("--missing", type=Path, help="write the keys of the requests recorded answers lacked, one per line "
                                                "(for `scripts/eval answers export --keys`)")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    backends = [b.strip() for b in args.backend.split(",") if b.strip()]
    if args.history is not None:
        return history(args, backends)
    halves = ("tune", "test") if args.half == "both" else (args.half,)
    judge = None
    if args.judge:
        from .sayonce_judge import make_judge

        judge = make_judge(args.judge)
    rows: list[tuple[str, str, dict[str, object]]] = []
    for backend in backends:
        results = sayonce.run_labelled(backend, halves, labels=args.labels or sayonce.LABELS, recall_mode="words",
                                       judge=judge)
        for half in halves:
            total = sayonce_report.totals(results[half])
            rows.append((backend, half, total))
            print(f"[{backend}] " + sayonce_report.line(half, total))
            if args.verbose:
                print("\n".join(sayonce_report.details(results[half])))
    complete = missing_answers(args.missing)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps([{"backend": b, "half": h, **t} for b, h, t in rows], indent=1))
    if not args.no_docs and args.half == "both" and complete and args.labels is None:
        docs.write_section("say-once", sayonce_report.markdown(rows, written_by(backends)))
    return 0 if complete else 3


def missing_answers(out: Path | None = None) -> bool:
    """Name the requests recorded answers lacked in this run (every key to `out` when given);
    True when none was missing."""
    from loreline.distill import recorded

    if out is not None:
        out.write_text("".join(f"{key}\n" for key in dict.fromkeys(k for _, k, _ in recorded.MISSING)), encoding="utf-8")
    if not recorded.MISSING:
        return True
    by_folder: dict[str, list[str]] = {}
    for folder, key, tool in recorded.MISSING:
        by_folder.setdefault(folder, []).append(f"{key[:16]} {tool}")
    for folder, keys in by_folder.items():
        print(f"say-once: {len(keys)} request(s) had no recorded answer in {folder} (written to its requests/; "
              f"the figures above are incomplete):", file=sys.stderr)
        print("\n".join(f"  {k}" for k in keys[:50]) + (f"\n  … {len(keys) - 50} more" if len(keys) > 50 else ""),
              file=sys.stderr)
    return False


def written_by(backends: list[str]) -> dict[str, str]:
    from loreline.distill.recorded import AnswerSet

    found = {}
    for backend in backends:
        if backend.startswith("recorded:"):
            meta = AnswerSet(Path(backend.split(":", 1)[1])).meta()
            found[backend.split(":", 1)[1]] = str(meta.get("written_by", "not said"))
    return found


def history(args: argparse.Namespace, backends: list[str]) -> int:
    folder = args.history.expanduser()
    if not folder.is_dir():
        print(f"say-once: {folder} is not a folder of sessions", file=sys.stderr)
        return 2
    sessions = sayonce.history_sessions(folder)
    if len(sessions) < 2:
        print(f"say-once: {folder} holds {len(sessions)} readable session(s); a replay needs two or more",
              file=sys.stderr)
        return 2
    repeats: list[dict[str, object]] = []
    if args.labels is not None:
        data = json.loads(args.labels.read_text(encoding="utf-8"))
        repeats = [r for p in data.get("projects", {}).values() for r in p.get("repeats", [])] \
            if "projects" in data else list(data.get("repeats", []))
    for backend in backends:
        result = sayonce.replay_project(folder.name, sessions, repeats, backend, "words", folder)
        print(f"[{backend}] {len(sessions)} sessions of {folder}, oldest first")
        print("\n".join(sayonce_report.history_report(result, verbose=args.verbose)))
        total = sayonce_report.totals([result])
        if repeats:
            print(f"[{backend}] " + sayonce_report.line("labelled", total))
            print("\n".join(sayonce_report.details([result], "keyword")))
        else:
            print(f"[{backend}] shown: {total['start_shown']:.0f} memories over {total['starts']:.0f} session "
                  f"starts, {total['prompt_shown']:.0f} over {total['prompts']:.0f} prompts. Without labels "
                  f"(--labels) nothing here says which were wanted: mark your repeats to get the saved share.")
    return 0
