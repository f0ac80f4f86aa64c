"""`loreline brief`: the project brief SessionStart gives, with each line's sources; a person's edit and pin."""

from __future__ import annotations

import argparse

from .common import chosen_project, emit_json, open_api

TYPE_CHECKING = False  # typing is left to the type checker: `--help` imports none of it
if TYPE_CHECKING:
    from ..api import Brief, BriefView


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser("brief", help="the project brief each session starts with, each line with the memories it "
                                     "rests on (edit, pin, versions)")
    p.add_argument("--project", metavar="DIR", help="the project of this directory (default: current)")
    p.add_argument("--refresh", action="store_true", help="write it again now (by the configured model, else the rules)")
    p.add_argument("--backend", metavar="NAME", help="with --refresh: the backend that writes it (rules: offline)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run_show)
    actions = p.add_subparsers(dest="action", metavar="ACTION")
    e = actions.add_parser("edit", help="reword line N (kept in every rewrite while its memories stay active)")
    e.add_argument("line", type=int, metavar="N")
    e.add_argument("text")
    e.set_defaults(func=run_edit)
    n = actions.add_parser("pin", help="pin line N so every rewrite keeps it while its memories stay active "
                                       "(--off to unpin)")
    n.add_argument("line", type=int, metavar="N")
    n.add_argument("--off", action="store_true")
    n.set_defaults(func=run_pin)
    v = actions.add_parser("versions", help="every version of the brief, newest first: who wrote it and when")
    v.add_argument("--limit", type=int, default=20)
    v.add_argument("--json", action="store_true", default=argparse.SUPPRESS)
    v.set_defaults(func=run_versions)
    for each in (e, n, v):  # given before or after the action (SUPPRESS: the one given stands)
        each.add_argument("--project", metavar="DIR", default=argparse.SUPPRESS,
                          help="the project of this directory (default: current)")


def run_show(args: argparse.Namespace) -> int:
    from ..errors import NotFoundError

    project = chosen_project(args.project)
    with open_api() as lore:
        view = lore.refresh_brief(project, args.backend) if args.refresh else lore.brief(project)
    if view is None:
        if args.json:
            emit_json(None)
            return 0
        raise NotFoundError(f"no brief of {project} yet: it is written after an import, or now with "
                            "`loreline brief --refresh`")
    return _print(view, args.json)


def run_edit(args: argparse.Namespace) -> int:
    with open_api() as lore:
        view = lore.edit_brief_line(chosen_project(args.project), args.line, args.text)
    return _print(view, False)


def run_pin(args: argparse.Namespace) -> int:
    with open_api() as lore:
        view = lore.pin_brief_line(chosen_project(args.project), args.line, not args.off)
    return _print(view, False)


def run_versions(args: argparse.Namespace) -> int:
    from ..api import serialize

    with open_api() as lore:
        found = lore.brief_versions(chosen_project(args.project), args.limit)
    if args.json:
        emit_json([serialize.brief_version(b) for b in found])
        return 0
    if not found:
        print("No brief yet.")
    for b in found:
        print(_version_line(b))
    return 0


def _print(view: BriefView, as_json: bool) -> int:
    from ..api import serialize

    if as_json:
        emit_json(serialize.brief(view))
    else:
        print(text(view))
    return 0


def _version_line(b: Brief) -> str:
    marks = [f"{len(b.lines)} lines", f"written by {b.writer}"]
    if b.changed_by:
        marks.append(f"changed by {b.changed_by}")
    if b.dropped:
        marks.append(f"{b.dropped} model lines dropped by the check")
    if b.stale:
        marks.append("stale")
    return f"v{b.version}  {b.created_at[:19]}  " + ", ".join(marks)


def text(view: BriefView) -> str:
    """The brief for a terminal: each line numbered, marked pinned or edited, with its sources."""
    from ..brief.block import TOPICS
    from ..privacy.display import printable
    from .common import short_date

    b = view.brief
    out = [f"Brief of {printable(b.project)} · {_version_line(b)}"]
    if view.fallback:
        out.append(f"  (the model's brief was not used: {printable(view.fallback)})")
    if view.hidden:
        out.append(f"  ({view.hidden} lines not shown: a memory they cite is no longer active; the next import "
                   "writes the brief again)")
    for key, heading in TOPICS:
        lines = [line for line in b.lines if line.topic == key]
        if lines:
            out.append(f"\n{heading}:")
        for line in lines:
            mark = "".join(m for m, on in ((" [pinned]", line.pinned), (" [edited]", line.edited)) if on)
            out.append(f"  {line.number:>2}. {printable(line.text)}{mark}")
            for memory_id in line.memories:
                m = view.source(memory_id)
                if m is not None:
                    out.append(f"        #{m.id} {m.kind} · {short_date(m.observed_at or m.created_at)} · "
                               f"{len({p.session_id for p in m.provenance})} session(s): {printable(m.text)[:120]}")
    if not b.lines:
        out.append("  (no line: the project has no active memory to brief)")
    return "\n".join(out)
