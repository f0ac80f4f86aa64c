"""`loreline memories`, `show` and `recall`: reading what the store knows."""

from __future__ import annotations

import argparse

from ..names import KINDS, STATUSES
from .common import chosen_project, emit_json, open_api


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser("memories", help="list a project's memories (default: the current directory's project)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--project", metavar="DIR", help="the project of this directory")
    where.add_argument("--all", action="store_true", help="every project")
    p.add_argument("--kind", choices=KINDS)
    p.add_argument("--status", choices=(*STATUSES, "any"), default="active")
    p.add_argument("--limit", type=int, default=200)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run_memories)

    p = sub.add_parser("show", help="one memory with every source it came from")
    p.add_argument("id", type=int)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run_show)

    p = sub.add_parser("recall", help="memories of a project that answer a query, with provenance (asks the "
                                      "warm recall process when one runs, which holds the model already)")
    p.add_argument("query")
    p.add_argument("--project", metavar="DIR", help="the project of this directory (default: current)")
    p.add_argument("--limit", type=int, default=5)
    p.add_argument("--include-inactive", action="store_true", help="also superseded and forgotten memories")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run_recall)


def run_memories(args: argparse.Namespace) -> int:
    from ..api import serialize
    from . import render

    project = None if args.all else chosen_project(args.project)
    waiting = None
    with open_api() as lore:
        page = lore.memories(project, kind=args.kind, status=None if args.status == "any" else args.status,
                             limit=args.limit)
        if not args.json and args.status == "active":  # what is not used yet, said beside what is
            waiting = lore.memories(project, kind=args.kind, status="held", limit=args.limit)
    if args.json:
        emit_json([serialize.memory(m, full=True) for m in page.items])
        return 0
    print(render.memory_list(list(page.items), page.total, "all projects" if project is None else project))
    if waiting is not None and waiting.total:
        print(render.waiting_list(list(waiting.items), waiting.total))
    return 0


def run_show(args: argparse.Namespace) -> int:
    from ..api import serialize
    from . import render

    with open_api() as lore:
        memory = lore.memory(args.id)
    if args.json:
        emit_json(serialize.memory(memory, full=True))
    else:
        print(render.memory_detail(memory))
    return 0


def run_recall(args: argparse.Namespace) -> int:
    from ..api import serialize, warm
    from . import render

    project = chosen_project(args.project)
    with open_api() as lore:
        hits = warm.recall(lore, project, args.query, limit=args.limit, include_inactive=args.include_inactive)
        if hits is None:
            hits = lore.recall(project, args.query, limit=args.limit, include_inactive=args.include_inactive)
    if args.json:
        emit_json([serialize.recall_hit(h, full=True) for h in hits])
    else:
        print(render.recall_hits(args.query, hits))
    return 0
