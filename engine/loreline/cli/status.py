"""`loreline status`: what the store holds and how capture is doing."""

from __future__ import annotations

import argparse

from .common import chosen_project, emit_json, open_api, plural


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser("status", help="counts, sessions imported, store location and size")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from .. import usage
    from ..api import serialize
    from . import capture_status

    with open_api() as lore:
        found = lore.status(chosen_project(None))
    info = found.facts
    if args.json:
        emit_json(serialize.status(found))
        return 0
    mem = info["memories"]
    assert isinstance(mem, dict)
    kinds = info["active_by_kind"]
    assert isinstance(kinds, dict)
    spent = info["model_use"]
    assert isinstance(spent, dict)
    if spent["cap_reached"]:
        print("!! " + usage.cap_message(spent["unattended_calls"], spent["daily_unattended_cap"]))
    print(f"Store      {info['store']} ({int(info['store_bytes']) / 1024:.0f} KiB)")
    print(f"Memories   {mem['active']} active in {plural(int(info['projects']), 'project')}"
          f" · {mem['superseded']} superseded · {mem['forgotten']} forgotten"
          + (f" · {mem['held']} held for review (`loreline review`)" if mem.get("held") else ""))
    if kinds:
        print("           " + " · ".join(f"{k} {v}" for k, v in sorted(kinds.items())))
    print(f"Sessions   {info['sessions_imported']} imported · last import {info['last_import'] or 'never'}")
    print(f"Conflicts  {info['pending_conflicts']} pending")
    here = found.counts
    print(f"This       {found.project}: {here.active} active · {here.pending_conflicts} pending conflicts")
    print(f"Distiller  {info['backend']} · embedder {info['embedder']}")
    if info.get("embedder_target") not in (None, info["embedder"]):
        print(f"           `loreline reembed` moves the vectors to {info['embedder_target']}")
    print(f"Model use  today {spent['attended_calls']} attended · {spent['unattended_calls']}/"
          f"{spent['daily_unattended_cap']} unattended calls · {spent['input_tokens']:,} tokens in"
          f" · {spent['output_tokens']:,} out")
    capture = info["capture"]
    assert isinstance(capture, dict)
    print("\n".join(capture_status.lines(capture)))
    team = info.get("team")
    if isinstance(team, dict) and team.get("enabled"):
        from ..api import team as team_api

        print("\n".join(team_api.status_lines(team)))
    _native_lines(info)
    return 0


def _native_lines(info: dict[str, object]) -> None:
    from ..native import governor

    native = info.get("native")
    if isinstance(native, list) and native:
        print("\n".join(governor.lines(native)))
