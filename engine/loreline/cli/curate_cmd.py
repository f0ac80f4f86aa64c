"""`loreline forget | edit | pin | history | conflicts | resolve | revert`: a person's say."""

from __future__ import annotations

import argparse

from ..names import KEEP
from .common import chosen_project, emit_json, open_api, plural


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser("forget", help="forget a memory and its versions; no re-import brings it back")
    p.add_argument("id", type=int)
    p.set_defaults(func=run_forget)
    p = sub.add_parser("edit", help="reword a memory: a new version by you, the old one superseded; "
                                    "--cues replaces the questions and topic words recall finds it by")
    p.add_argument("id", type=int)
    p.add_argument("text", nargs="?")
    p.add_argument("--cues", metavar="CUES",
                   help='questions it answers and topic words, separated by ";" ("" removes them)')
    p.set_defaults(func=run_edit)
    p = sub.add_parser("pin", help="pin a memory so it is listed and injected first (--off to unpin)")
    p.add_argument("id", type=int)
    p.add_argument("--off", action="store_true")
    p.set_defaults(func=run_pin)
    p = sub.add_parser("history", help="a memory's version chain, each version with its provenance")
    p.add_argument("id", type=int)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run_history)
    p = sub.add_parser("conflicts", help="contradicting memories waiting for a decision")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--project", metavar="DIR")
    where.add_argument("--all", action="store_true")
    p.add_argument("--resolved", action="store_true", help="show resolved conflicts instead")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run_conflicts)
    p = sub.add_parser("resolve", help="settle a conflict: --keep new|existing|both, or --merge TEXT")
    p.add_argument("id", type=int)
    how = p.add_mutually_exclusive_group(required=True)
    how.add_argument("--keep", choices=sorted(KEEP))
    how.add_argument("--merge", metavar="TEXT")
    p.set_defaults(func=run_resolve)
    p = sub.add_parser("revert", help="undo a conflict's resolution; it is pending again")
    p.add_argument("id", type=int)
    p.set_defaults(func=run_revert)


def run_forget(args: argparse.Namespace) -> int:
    with open_api() as lore:
        changed = lore.forget(args.id).ids
    print(f"Forgot memory #{args.id}" + (f" ({plural(len(changed), 'version')})" if len(changed) > 1 else "")
          + "; it will not come back from any import.")
    return 0


def run_edit(args: argparse.Namespace) -> int:
    from ..errors import LorelineError
    from ..privacy.display import printable

    if args.text is None and args.cues is None:
        raise LorelineError("give the new text, --cues, or both")
    with open_api() as lore:
        memory_id = args.id
        if args.text is not None:
            memory = lore.edit(args.id, args.text)
            memory_id = memory.id
            print(f"Memory #{args.id} is superseded by #{memory.id} (v{memory.version}): {printable(memory.text)}")
        if args.cues is not None:
            memory = lore.set_cues(memory_id, args.cues)
            shown = "; ".join(printable(c) for c in memory.cues.splitlines())
            print(f"Memory #{memory.id} is found by: {shown}" if shown else f"Memory #{memory.id} has no cues now.")
    return 0


def run_pin(args: argparse.Namespace) -> int:
    from ..privacy.display import printable

    with open_api() as lore:
        memory = lore.pin(args.id, not args.off)
    print(f"{'Pinned' if memory.pinned else 'Unpinned'} #{memory.id}: {printable(memory.text)}")
    return 0


def run_history(args: argparse.Namespace) -> int:
    from ..api import serialize
    from . import render

    with open_api() as lore:
        versions = lore.history(args.id)
    if args.json:
        emit_json([serialize.memory(m, full=True) for m in versions])
    else:
        print("\n\n".join(render.memory_detail(m) for m in versions))
    return 0


def run_conflicts(args: argparse.Namespace) -> int:
    from ..api import serialize
    from ..privacy.display import printable
    from . import render

    project = None if args.all else chosen_project(args.project)
    with open_api() as lore:
        found = lore.conflicts(project, "resolved" if args.resolved else "pending")
    if args.json:
        emit_json([serialize.conflict(c, full=True) for c in found])
        return 0
    if not found:
        print("No " + ("resolved" if args.resolved else "pending") + " conflicts.")
    for c in found:
        print(f"conflict #{c.id} · {printable(c.project)} · {c.status}" + (f" ({c.resolution} by {c.decided_by})"
                                                                 if c.resolution else ""))
        print("  existing " + render.memory_line(c.existing))
        print("  new      " + render.memory_line(c.new))
        if c.reason:
            print(f"  why: {printable(c.reason)}")
    return 0


def run_resolve(args: argparse.Namespace) -> int:
    with open_api() as lore:
        c = lore.resolve(args.id, keep=args.keep, merge=args.merge)
    print(f"Conflict #{c.id} resolved: {c.resolution}. `loreline revert {c.id}` undoes it.")
    return 0


def run_revert(args: argparse.Namespace) -> int:
    with open_api() as lore:
        c = lore.revert(args.id)
    print(f"Conflict #{c.id} is pending again; both memories are as they were.")
    return 0
