"""`loreline review | approve | reject`: the review inbox — memories held for a person's review,
each with the reason, and pending conflicts.

`review` on a terminal (with none of `--approve`, `--reject`, `--json`) walks the inbox item
by item: a held memory is approved, edited then approved, rejected or skipped; a conflict is
resolved (keep new, existing or both) or skipped. Otherwise it lists the inbox, or acts on one
id (`--approve ID [--text T]`, `--reject ID`, the same as `approve` and `reject`).
"""

from __future__ import annotations

import argparse
import sys

from ..api import Inbox, Loreline, serialize
from ..privacy.display import printable
from . import render
from .common import chosen_project, emit_json, open_api, plural

MEMORY_KEYS = {"a": "approve", "e": "edit", "r": "reject", "s": "skip"}
CONFLICT_KEYS = {"n": "new", "e": "existing", "b": "both", "s": "skip"}


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser("review", help="the review inbox: memories held for your review (steering, what an assistant "
                                      "was asked to keep, capture under capture.review = ask) and pending conflicts")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--project", metavar="DIR", help="the project of this directory")
    where.add_argument("--all", action="store_true", help="every project")
    act = p.add_mutually_exclusive_group()
    act.add_argument("--approve", type=int, metavar="ID", help="approve a held memory: it becomes active")
    act.add_argument("--reject", type=int, metavar="ID", help="reject a held memory: forgotten for good")
    p.add_argument("--text", help="with --approve: approve it in this wording")
    p.add_argument("--json", action="store_true", help="{held: [memory], conflicts: [conflict]}")
    p.set_defaults(func=run_review)
    p = sub.add_parser("approve", help="approve a held memory: it becomes active and may be injected")
    p.add_argument("id", type=int)
    p.add_argument("--text", help="approve it in this wording")
    p.set_defaults(func=run_approve)
    p = sub.add_parser("reject", help="reject a held memory: it is forgotten and never comes back")
    p.add_argument("id", type=int)
    p.set_defaults(func=run_reject)


def run_review(args: argparse.Namespace) -> int:
    if args.approve is not None:
        return approve(args.approve, args.text)
    if args.reject is not None:
        return reject(args.reject)
    project = None if args.all else chosen_project(args.project)
    with open_api() as lore:
        found = lore.inbox(project)
        if args.json:
            emit_json(serialize.inbox(found))
        elif sys.stdin.isatty() and sys.stdout.isatty() and (found.held or found.conflicts):
            walk(lore, found)
        else:
            print(listing(found, "all projects" if project is None else project))
    return 0


def run_approve(args: argparse.Namespace) -> int:
    return approve(args.id, args.text)


def run_reject(args: argparse.Namespace) -> int:
    return reject(args.id)


def approve(memory_id: int, text: str | None) -> int:
    with open_api() as lore:
        memory = lore.approve(memory_id, text)
    print(f"Approved memory #{memory.id}; it is active now.")
    return 0


def reject(memory_id: int) -> int:
    with open_api() as lore:
        changed = lore.reject(memory_id).ids
    print(f"Rejected memory #{memory_id}" + (f" ({plural(len(changed), 'version')})" if len(changed) > 1 else "")
          + "; it will not come back from any import.")
    return 0


def listing(found: Inbox, where: str) -> str:
    """The held memories with their reasons, then the pending conflicts."""
    out = [render.held_list(list(found.held), len(found.held), where)]
    if found.conflicts:
        out.append(f"{plural(len(found.conflicts), 'conflict')} pending "
                   "(`loreline resolve ID --keep new|existing|both`):")
    for c in found.conflicts:
        out.append(f"  conflict #{c.id}: #{c.existing.id} ↔ #{c.new.id}" + (f" ({printable(c.reason)})" if c.reason
                                                                             else ""))
    return "\n".join(out)


def walk(lore: Loreline, found: Inbox) -> None:
    """One prompt per item; end of input or `q` stops."""
    for m in found.held:
        print(render.memory_detail(m))
        choice = ask("[a]pprove, [e]dit then approve, [r]eject, [s]kip, [q]uit? ", MEMORY_KEYS)
        if choice is None:
            return
        if choice == "approve":
            lore.approve(m.id)
        elif choice == "edit":
            lore.approve(m.id, input("new wording: "))
        elif choice == "reject":
            lore.reject(m.id)
    for c in found.conflicts:
        print(f"conflict #{c.id}\n  existing {render.memory_line(c.existing)}\n  new      {render.memory_line(c.new)}")
        keep = ask("keep [n]ew, [e]xisting, [b]oth, [s]kip, [q]uit? ", CONFLICT_KEYS)
        if keep is None:
            return
        if keep != "skip":
            lore.resolve(c.id, keep=keep)


def ask(prompt: str, keys: dict[str, str]) -> str | None:
    while True:
        try:
            answer = input(prompt).strip().lower()[:1]
        except EOFError:
            return None
        if answer == "q":
            return None
        if answer in keys:
            return keys[answer]
