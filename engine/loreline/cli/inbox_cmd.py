"""`loreline review`: the review inbox — memories held for review and pending conflicts.

On a terminal (and with no `--approve`/`--reject`/`--json`) it walks the inbox item by item:
a held memory is approved, edited then approved, rejected or skipped; a conflict is resolved
(keep new, existing or both) or skipped. Otherwise it lists the inbox, or acts on one id.
"""

from __future__ import annotations

import argparse
import sys

from ..api import Loreline, serialize
from ..inbox import Inbox
from . import render
from .common import chosen_project, emit_json, open_api, plural

MEMORY_KEYS = {"a": "approve", "e": "edit", "r": "reject", "s": "skip"}
CONFLICT_KEYS = {"n": "new", "e": "existing", "b": "both", "s": "skip"}


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser("review", help="the review inbox: memories waiting for your approval and pending conflicts")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--project", metavar="DIR", help="the project of this directory (default: current)")
    where.add_argument("--all", action="store_true", help="every project")
    act = p.add_mutually_exclusive_group()
    act.add_argument("--approve", type=int, metavar="ID", help="approve a held memory: it becomes active")
    act.add_argument("--reject", type=int, metavar="ID", help="reject a held memory: forgotten for good")
    p.add_argument("--text", help="with --approve: approve it in this wording")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run_review)


def run_review(args: argparse.Namespace) -> int:
    with open_api() as lore:
        if args.approve is not None:
            memory = lore.approve(args.approve, args.text)
            print(f"Approved #{memory.id}; it is active now: {render.memory_line(memory).strip()}")
            return 0
        if args.reject is not None:
            lore.reject(args.reject)
            print(f"Rejected #{args.reject}; it will not come back from any import.")
            return 0
        project = None if args.all else chosen_project(args.project)
        found = lore.inbox(project)
        if args.json:
            emit_json(serialize.inbox(found))
        elif sys.stdin.isatty() and sys.stdout.isatty() and (found.held or found.conflicts):
            walk(lore, found)
        else:
            print(listing(found, "all projects" if project is None else project))
    return 0


def listing(found: Inbox, where: str) -> str:
    held, conflicts = found.held, found.conflicts
    if not held and not conflicts:
        return f"Nothing waits for review in {where}."
    out = [f"Review inbox for {where}: {plural(len(held), 'memory')} held, {plural(len(conflicts), 'conflict')}"]
    for m in held:
        out.append(render.memory_line(m) + f"   (held: {m.hold_reason})")
    for c in conflicts:
        out.append(f" conflict #{c.id}: #{c.existing.id} ↔ #{c.new.id}" + (f" ({c.reason})" if c.reason else ""))
    out.append("loreline review --approve ID [--text T] | --reject ID; loreline resolve ID --keep new|existing|both")
    return "\n".join(out)


def walk(lore: Loreline, found: Inbox) -> None:
    """One prompt per item; end of input or `q` stops."""
    for m in found.held:
        print(render.memory_detail(m) + f"\n  held: {m.hold_reason}")
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
