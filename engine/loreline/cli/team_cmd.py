"""`loreline team`: share a project's memories with a team through PostgreSQL + pgvector.

    team connect DSN [--password-stdin]   save the server (no password in the file), check it, register
                                          this folder's project; the password goes to the OS keyring
    team status                           settings, last sync, what is published/received, server lag
    team sync                             push and pull now
    team share ID… / team unshare ID…     approve (or withdraw) memories for publishing
    team recall QUERY                     search the team store itself (authors shown)

psycopg and the sync code are imported inside the commands: the CLI's start-up never loads them.
"""

from __future__ import annotations

import argparse
import sys

from .common import chosen_project, emit_json

TYPE_CHECKING = False  # typing and pathlib are left to the commands that run: `--help` imports neither
if TYPE_CHECKING:
    from typing import Any


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser("team", help="share project memories with a team (PostgreSQL + pgvector)")
    cmds = p.add_subparsers(dest="team_command", required=True, metavar="ACTION")
    c = cmds.add_parser("connect", help="use a team server: postgresql://user@host:port/db (no password)")
    c.add_argument("dsn")
    c.add_argument("--password-stdin", action="store_true", help="read the password from stdin into the OS keyring")
    c.add_argument("--dir", help="the project folder to register (default: the current folder)")
    c.set_defaults(func=_connect)
    s = cmds.add_parser("status", help="team settings, last sync and counts")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=_status)
    y = cmds.add_parser("sync", help="publish approved memories and receive teammates' now")
    y.add_argument("--dir", help="also register this project folder")
    y.set_defaults(func=_sync)
    for name, helptext in (("share", "approve memories for publishing"), ("unshare", "withdraw approval")):
        a = cmds.add_parser(name, help=helptext)
        a.add_argument("ids", nargs="+", type=int)
        a.set_defaults(func=_share, approve=name == "share")
    r = cmds.add_parser("recall", help="search the team store (every teammate's shared memories)")
    r.add_argument("query")
    r.add_argument("--dir")
    r.add_argument("--limit", type=int, default=10)
    r.add_argument("--json", action="store_true")
    r.set_defaults(func=_recall)


def _connect(args: argparse.Namespace) -> int:
    from ..api import team

    secret = sys.stdin.readline().rstrip("\n") if args.password_stdin else None
    where = team.connect(args.dsn, secret)
    if where:
        print(f"Password kept in the OS keyring ({where}).")
    return _sync(args)


def _sync(args: argparse.Namespace) -> int:
    from ..api import team

    project = chosen_project(getattr(args, "dir", None))
    if team.shared_id(project) is None:
        print(f"Note: {project} has no git remote `origin`, so it is not shared; set `git config loreline.remote "
              "NAME` there (or the team.remote setting) to share it.", file=sys.stderr)
    print(team.sync(project).line())
    return 0


def _share(args: argparse.Namespace) -> int:
    from ..api import team

    changed = team.share(args.ids, args.approve)
    verb = "Approved" if args.approve else "Withdrew"
    print(f"{verb} {changed} of {len(args.ids)} for the team; `loreline team sync` (or the worker) sends it.")
    return 0


def _status(args: argparse.Namespace) -> int:
    from ..api import team

    state = team.status(probe=True)
    if args.json:
        emit_json(state)
        return 0
    for line in team.status_lines(state):
        print(line)
    return 0


def _recall(args: argparse.Namespace) -> int:
    from ..api import team
    from ..privacy.display import printable

    hits = team.recall(chosen_project(args.dir), args.query, args.limit)
    if args.json:
        emit_json([_hit_json(h) for h in hits])
        return 0
    for hit in hits:
        print(f"[{hit.kind}] {printable(hit.text)}  — {printable(hit.author)}")
    if not hits:
        print("No shared memory matches.", file=sys.stderr)
    return 0


def _hit_json(hit: Any) -> dict[str, Any]:
    return {"uid": hit.uid, "author": hit.author, "kind": hit.kind, "text": hit.text, "score": hit.score,
            "observed_at": hit.observed_at}

