"""`loreline confirm | check`: memories that rest on files, and whether those files changed."""

from __future__ import annotations

import argparse

from .common import chosen_project, emit_json, open_api, plural


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser("confirm", help="vouch for a memory as the code stands now (clears 'may be stale')")
    p.add_argument("id", type=int)
    p.set_defaults(func=run_confirm)
    p = sub.add_parser("check", help="compare the files a project's memories rest on with what they were")
    p.add_argument("--project", metavar="DIR", help="the project of this directory (default: current)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run_check)


def who(via: str) -> str:
    """Who confirms, and through which front end (`alice via cli`)."""
    import getpass

    try:
        name = getpass.getuser()
    except (KeyError, OSError):
        name = "user"
    return f"{name} via {via}"


def run_confirm(args: argparse.Namespace) -> int:
    with open_api() as lore:
        memory = lore.confirm(args.id, who("cli"))
    print(f"Confirmed #{memory.id} ({memory.confirmed_at} by {memory.confirmed_by}): {memory.text}")
    return 0


def run_check(args: argparse.Namespace) -> int:
    from ..api import serialize
    from . import render

    project = chosen_project(args.project)
    with open_api() as lore:
        report = lore.check_files(project)
        stale = lore.memories(project, stale=True).items
    if args.json:
        emit_json({"project": project, "checked": report.checked, "flagged": list(report.flagged),
                   "cleared": list(report.cleared), "stale": [serialize.memory(m) for m in stale]})
        return 0
    print(f"Checked {plural(report.checked, 'file tie')}: {len(report.flagged)} newly may be stale, "
          f"{len(report.cleared)} cleared; {plural(len(stale), 'memory')} may be stale.")
    for memory in stale:
        print(render.memory_line(memory))
    return 0
