"""`scripts/eval answers …`: look after a set of recorded model answers (`loreline.distill.recorded`).

    scripts/eval answers status DIR            requests, answers and what is pending, by tool; answers
                                               recorded for prompts Loreline no longer sends (stale)
    scripts/eval answers pending DIR [--tool T]  the keys of the requests without an answer
    scripts/eval answers show DIR KEY          one request as the model reads it
    scripts/eval answers check DIR             every answer against its tool's schema
    scripts/eval answers prune DIR             remove requests and answers for stale prompts
    scripts/eval answers export DIR OUT [--tool T] [--keys FILE]  each pending request (of those FILE
                                               lists) as OUT/<key>.md, to be answered one at a time
                                               by whoever writes the answers
    scripts/eval answers take DIR OUT --by WHO  the answers written as OUT/<key>.answer.json, each checked
                                               against its tool's schema, into the set

A set answers requests by the hash of what was sent, so after a prompt changes its old answers are
simply never asked for again: `status` names them, `prune` removes them.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from loreline.distill.recorded import AnswerSet, render_request
from loreline.distill.schema import problems


def current_prompts() -> dict[str, str]:
    """SHA-256 of every system prompt this checkout sends → its name."""
    import hashlib
    from importlib import resources

    found = {}
    folders = [resources.files("loreline.distill").joinpath("prompts"), resources.files("loreline.brief").joinpath("prompts"),
               Path(__file__).with_name("prompts")]
    for folder in folders:
        for item in folder.iterdir():
            if item.name.endswith(".md"):
                text = item.read_text(encoding="utf-8")
                found[hashlib.sha256(text.encode("utf-8")).hexdigest()] = item.name
    return found


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="scripts/eval answers", description="Recorded model answers.")
    sub = p.add_subparsers(dest="what", required=True)
    for name in ("status", "check", "prune"):
        sub.add_parser(name).add_argument("folder", type=Path)
    pending = sub.add_parser("pending")
    pending.add_argument("folder", type=Path)
    pending.add_argument("--tool")
    export = sub.add_parser("export")
    export.add_argument("folder", type=Path)
    export.add_argument("out", type=Path)
    export.add_argument("--tool")
    export.add_argument("--keys", type=Path, help="only the requests whose keys this file lists (one per line; "
                                                  "`scripts/eval say-once --missing FILE` writes one)")
    take = sub.add_parser("take")
    take.add_argument("folder", type=Path)
    take.add_argument("out", type=Path)
    take.add_argument("--by", required=True, help="who wrote these answers (stored with each)")
    show = sub.add_parser("show")
    show.add_argument("folder", type=Path)
    show.add_argument("key")
    return p


def main(argv: Sequence[str]) -> int:
    args = build_parser().parse_args(list(argv))
    answers = AnswerSet(args.folder)
    if not args.folder.is_dir():
        print(f"answers: no answer set at {args.folder}", file=sys.stderr)
        return 2
    if args.what == "show":
        print(render_request(answers, _full_key(answers, args.key)))
        return 0
    if args.what == "pending":
        for key in answers.pending():
            if args.tool is None or answers.request(key)["tool"]["name"] == args.tool:
                print(key)
        return 0
    if args.what == "check":
        return check(answers)
    if args.what == "export":
        args.out.mkdir(parents=True, exist_ok=True)
        keys = [k for k in answers.pending() if args.tool is None or answers.request(k)["tool"]["name"] == args.tool]
        if args.keys is not None:
            wanted = set(args.keys.read_text(encoding="utf-8").split())
            keys = [k for k in keys if k in wanted]
        for key in keys:
            (args.out / f"{key}.md").write_text(render_request(answers, key), encoding="utf-8")
        print(f"wrote {len(keys)} request(s) to {args.out}")
        return 0
    if args.what == "take":
        return take(answers, args.out, args.by)
    if args.what == "prune":
        return prune(answers)
    print(status(answers))
    return 0


def _full_key(answers: AnswerSet, prefix: str) -> str:
    found = [k for k in answers.keys() if k.startswith(prefix)]
    if len(found) != 1:
        raise SystemExit(f"answers: {len(found)} requests start with {prefix!r}")
    return found[0]


def status(answers: AnswerSet) -> str:
    meta = answers.meta()
    prompts = current_prompts()
    answered = set(answers.keys("answers"))
    by_tool: Counter[tuple[str, str]] = Counter()
    for key in answers.keys():
        request = answers.request(key)
        state = ("stale" if request["system_sha256"] not in prompts
                 else "answered" if key in answered else "pending")
        by_tool[(request["tool"]["name"], state)] += 1
    lines = [f"{answers.folder}: model {meta.get('model', '?')}, written by {meta.get('written_by', 'not said')}"]
    for tool in sorted({t for t, _ in by_tool}):
        counts = ", ".join(f"{by_tool[(tool, s)]} {s}" for s in ("answered", "pending", "stale") if by_tool[(tool, s)])
        lines.append(f"  {tool}: {counts}")
    return "\n".join(lines)


def check(answers: AnswerSet) -> int:
    bad = 0
    for key in answers.keys("answers"):
        try:
            tool = answers.request(key)["tool"]
            answer = answers.answer(key)
        except (OSError, ValueError) as err:
            print(f"{key[:16]}: unreadable: {err}")
            bad += 1
            continue
        found = problems(answer, tool.get("input_schema", {}))
        if found:
            bad += 1
            print(f"{key[:16]} {tool['name']}: {'; '.join(found[:3])}")
    print(f"{bad} answer(s) break their schema")
    return 1 if bad else 0


def take(answers: AnswerSet, out: Path, by: str) -> int:
    taken = refused = 0
    for path in sorted(out.glob("*.answer.json")):
        key = path.name.removesuffix(".answer.json")
        if not (answers.folder / "requests" / f"{key}.json").exists():
            print(f"{key[:16]}: no such request in the set; left out")
            refused += 1
            continue
        try:
            answer = json.loads(path.read_text(encoding="utf-8"))
        except ValueError as err:
            print(f"{key[:16]}: not JSON ({err}); left out")
            refused += 1
            continue
        tool = answers.request(key)["tool"]
        found = problems(answer, tool.get("input_schema", {}))
        if found:
            print(f"{key[:16]} {tool['name']}: breaks its schema ({'; '.join(found[:2])}); left out")
            refused += 1
            continue
        answers.save_answer(key, answer, by)
        taken += 1
    print(f"took {taken} answer(s); left out {refused}")
    return 0 if not refused else 1


def prune(answers: AnswerSet) -> int:
    prompts = current_prompts()
    removed = 0
    for key in answers.keys():
        if answers.request(key)["system_sha256"] not in prompts:
            for what in ("requests", "answers"):
                (answers.folder / what / f"{key}.json").unlink(missing_ok=True)
            removed += 1
    print(f"removed {removed} request(s) recorded for prompts this checkout no longer sends")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
