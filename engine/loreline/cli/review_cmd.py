"""`loreline review | approve | reject`: memories held for a person's review, with the reason."""

from __future__ import annotations

import argparse

from ..api import serialize
from . import render
from .common import chosen_project, emit_json, open_api, plural


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser("review", help="memories held for your review (remote code, disabled checks, "
                                      "data sent out, credentials), each with the reason")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--project", metavar="DIR", help="the project of this directory")
    where.add_argument("--all", action="store_true", help="every project")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run_review)
    p = sub.add_parser("approve", help="approve a held memory: it becomes active and may be injected")
    p.add_argument("id", type=int)
    p.set_defaults(func=run_approve)
    p = sub.add_parser("reject", help="reject a held memory: it is forgotten and never comes back")
    p.add_argument("id", type=int)
    p.set_defaults(func=run_reject)


def run_review(args: argparse.Namespace) -> int:
    project = None if args.all else chosen_project(args.project)
    with open_api() as lore:
        page = lore.held(project)
    if args.json:
        emit_json([serialize.memory(m, full=True) for m in page.items])
    else:
        print(render.held_list(list(page.items), page.total, "all projects" if project is None else project))
    return 0


def run_approve(args: argparse.Namespace) -> int:
    with open_api() as lore:
        memory = lore.approve(args.id)
    print(f"Approved memory #{memory.id}; it is active now.")
    return 0


def run_reject(args: argparse.Namespace) -> int:
    with open_api() as lore:
        changed = lore.reject(args.id).ids
    print(f"Rejected memory #{args.id}" + (f" ({plural(len(changed), 'version')})" if len(changed) > 1 else "")
          + "; it will not come back from any import.")
    return 0
