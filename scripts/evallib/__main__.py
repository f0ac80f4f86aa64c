"""`scripts/eval`: extraction and retrieval metrics; `scripts/eval redaction …` hands over.

    scripts/eval [all|extraction|retrieval] [--backend rules,anthropic] [--real rules] [--cv] [--verbose]
    scripts/eval redaction [ARGS…]      → scripts/eval_redaction.py main(ARGS)
    scripts/eval say-once [--backend rules] [--history DIR [--labels FILE]]
                                        → would the person have had to repeat themselves? (`sayonce_cli`)
    scripts/eval answers status|pending|show|check|prune DIR
                                        → a set of recorded model answers (`answers_cli`)
    scripts/eval serve-answers DIR      → a set of recorded answers as an OpenAI-compatible server on loopback,
                                          for `--backend openai-compatible` (`answer_server`)
    scripts/eval make-sessions          → regenerate tests/eval/sessions and labels.json
    scripts/eval learned                → could a learned sentence scorer replace the rules? (tuning half only)
    scripts/eval fusion-grid            → recall's fusion scored over a grid on the retrieval tuning halves
                                          (the memories with the glossary's cues only, then with a model's)
    scripts/eval backend --backend NAME --set real [--half test] [--max-calls N] [--through-import]
                                        → one backend (rules, anthropic, claude-code, codex, gemini,
                                          openai-compatible: built as an import builds it, with your key,
                                          login or server) over the real labelled set
    scripts/eval call-cost              → model calls and input tokens per session, per model backend, and
                                          what the account of actions adds to each session's distill input
    scripts/eval cue-rows --half tune   → every retrieval set's half, recall and the prompt hook, with the
                                          glossary's cues only and with a model's (`cuerows`)
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import orjson

from benchlib import docs
from loreline.errors import LorelineError
from loreline.recall import FUSIONS

from . import backends, dataset, extraction, fusiongrid, learnedcv, realcv, realreport, realset, report, retrieval

RESULTS = docs.ROOT / ".bench" / "eval.json"


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="scripts/eval", description="Loreline's extraction and retrieval evaluation.")
    p.add_argument("what", nargs="?", default="all", choices=("all", "extraction", "retrieval", "make-sessions", "learned", "fusion-grid",
                                                          "backend", "call-cost", "cue-rows"),
                   help="what to evaluate (all); `redaction` hands over to scripts/eval_redaction.py")
    p.add_argument("--backend", default="rules,anthropic",
                   help="distiller backends, comma-separated (rules,anthropic; anthropic is skipped without a key)")
    p.add_argument("--real", default="rules",
                   help="backends also scored on the real labelled set, comma-separated (rules; a model backend "
                        "is billed for every one of its sessions)")
    p.add_argument("--cv", action="store_true",
                   help="also score the real set's tuning half leave-one-group-out (rules only; never reads the test half)")
    p.add_argument("--set", default="real", choices=("real",), help="backend mode: the labelled set (real)")
    p.add_argument("--half", default="test", choices=("tune", "test"),
                   help="backend mode: which half of the real set (test; the rules were tuned on tune only)")
    p.add_argument("--through-import", action="store_true",
                   help="backend mode, rules only: import each project's sessions of the half in turn (as a person's "
                        "history) and judge what is left active, said-again promotions included")
    p.add_argument("--max-calls", type=int, default=400,
                   help="backend mode: stop after this many model calls (the cost cap; default 400)")
    p.add_argument("--verbose", "-v", action="store_true", help="print every miss and false positive")
    p.add_argument("--json", type=Path, default=RESULTS, help="where to write results (.bench/eval.json)")
    p.add_argument("--docs", type=Path, default=docs.DOC, help="the Markdown file whose eval section is rewritten")
    p.add_argument("--no-docs", action="store_true", help="do not rewrite the eval section of docs/benchmarks.md")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list[:1] == ["redaction"]:
        return redaction(args_list[1:])
    if args_list[:1] == ["answers"]:
        from . import answers_cli

        return answers_cli.main(args_list[1:])
    if args_list[:1] == ["serve-answers"]:
        from . import answer_server

        return answer_server.main(args_list[1:])
    if args_list[:1] == ["say-once"]:
        from . import sayonce_cli

        return sayonce_cli.main(args_list[1:])
    args = build_parser().parse_args(args_list)
    if args.what == "make-sessions":
        cases = dataset.write()
        print(f"wrote {len(cases)} cases to {dataset.SESSIONS} and {dataset.LABELS}")
        return 0
    if args.what == "fusion-grid":
        for label, with_cues in (("glossary cues only", False), ("with model cues", True)):
            raws = [raw for i, spec in enumerate(fusiongrid.sets())
                    for raw in fusiongrid.raw_tune_half(spec, Path(tempfile.mkdtemp(prefix=f"loreline-grid-{i}-")),
                                                        with_cues)]
            print(f"{label}:")
            print(fusiongrid.render(fusiongrid.grid(raws), len(raws), FUSIONS["minilm"]))
        return 0
    if args.what == "cue-rows":
        from . import cuerows

        print(cuerows.render(args.half, cuerows.rows(args.half)))
        return 0
    if args.what == "backend":
        from . import backendrun

        name = args.backend if args.backend != "rules,anthropic" else "auto"
        if args.through_import:
            from . import realimport

            if name != "rules":
                print("eval: --through-import scores the offline rules only", file=sys.stderr)
                return 2
            print(realimport.render(realimport.score_half(args.half)))
            return 0
        try:
            result = backendrun.run(name, args.half, args.max_calls)
        except LorelineError as err:
            print(f"eval: {err}", file=sys.stderr)
            return 2
        print(backendrun.render(result))
        return 0
    if args.what == "call-cost":
        from . import callcost

        print(callcost.render(callcost.sets()))
        print(callcost.render_actions(callcost.actions_sets()))
        return 0
    if args.what == "learned":
        rows = learnedcv.evaluate()
        print(learnedcv.render(rows))
        if not args.no_docs and rows:
            docs.write_section("learned", learnedcv.markdown(rows), args.docs)
        return 0
    try:
        chosen = backends.select([n.strip() for n in args.backend.split(",") if n.strip()])
    except ValueError as err:
        print(f"eval: {err}", file=sys.stderr)
        return 2
    return evaluate(args, chosen)


def evaluate(args: argparse.Namespace, chosen: list[backends.Backend]) -> int:
    started = time.perf_counter()
    work = Path(tempfile.mkdtemp(prefix="loreline-eval-"))
    runs: list[extraction.Run] = []
    real: list[tuple[str, realset.HalfScore]] = []
    cv: tuple[list[realcv.GroupScore], realcv.GroupScore, dict[str, realcv.CueTally]] | None = None
    results: list[retrieval.Result] = []
    cases = dataset.load()
    skipped = [b for b in chosen if b.make is None] if args.what in ("all", "extraction") else []
    try:
        if args.what in ("all", "extraction"):
            for backend in chosen:
                if backend.make is not None:
                    runs.append(extraction.run(backend.name, backend.make(), cases, dataset.SESSIONS,
                                               work / f"home-{backend.name}"))
                    if backend.name in args.real.split(","):
                        real += [(backend.name, realset.score_half(backend.make(), half)) for half in ("tune", "test")]
                    if backend.name == "rules" and args.cv:
                        cv = realcv.cross_validate()
        if args.what in ("all", "retrieval"):
            results = [retrieval.evaluate(work / f"home-retrieval-{n}", spec) for n, spec in enumerate(retrieval.SETS)]
            cue_writers = [b.strip() for b in args.backend.split(",")
                           if b.strip().startswith("recorded:") or b.strip() == "openai-compatible"]
            results += [retrieval.evaluate(work / f"home-retrieval-{n}-cues", spec, with_cues=True, backend=b)
                        for b in cue_writers for n, spec in enumerate(retrieval.SETS)]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    elapsed = time.perf_counter() - started
    info = docs.machine()
    print(report.render(runs, skipped, results, info, args.verbose))
    if real:
        print(realreport.render(real))
    if cv is not None:
        print(realcv.render(*cv))
    print(f"total {elapsed:.1f} s")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    document = report.as_json(runs, skipped, results, info, elapsed)
    document["real"] = [{"backend": name, **realset.as_json(score)} for name, score in real]
    if cv is not None:
        document["real_cv"] = [realcv.as_json(group) for group in [*cv[0], cv[1]]]
    args.json.write_bytes(orjson.dumps(document, option=orjson.OPT_INDENT_2) + b"\n")
    if not args.no_docs:
        sessions = sum(len(c.sessions) for c in cases)
        section = report.markdown(runs, skipped, results, info, elapsed, len(cases), sessions)
        if real:
            section += "\n" + realreport.markdown(real)
        if cv is not None:
            section += "\n" + realcv.markdown(*cv[:2]) + "\n"
        docs.write_section("eval", section, args.docs)
    return 0


def redaction(argv: list[str]) -> int:
    """Hand over to scripts/eval_redaction.py, imported only when asked for."""
    if importlib.util.find_spec("eval_redaction") is None:
        print("eval: the redaction eval (scripts/eval_redaction.py) is not there yet; nothing to run",
              file=sys.stderr)
        return 2
    module = importlib.import_module("eval_redaction")
    return int(module.main(argv) or 0)


if __name__ == "__main__":
    sys.exit(main())
