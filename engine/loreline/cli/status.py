"""`loreline status`: what the store holds and how capture is doing."""

from __future__ import annotations

import argparse
import sys

from .common import chosen_project, emit_json, open_api, plural

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..errors import StoreCorruptError


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser("status", help="counts, sessions imported, store location and size")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..api import serialize, usage
    from ..errors import StoreCorruptError
    from . import capture_status

    try:
        with open_api() as lore:
            found = lore.status(chosen_project(None))
    except StoreCorruptError as err:
        return _damaged(err, args.json)
    info = found.facts
    if args.json:
        emit_json(serialize.status(found))
        return 0
    mem = info.memories
    kinds = info.active_by_kind
    spent = info.model_use
    for line in usage.gate_problems(spent):
        print("!! " + line)
    _settings_lines(info.settings)
    print(f"Store      {info.store} ({info.store_bytes / 1024:.0f} KiB)")
    print(f"Memories   {mem['active']} active in {plural(info.projects, 'project')}"
          f" · {mem['superseded']} superseded · {mem['forgotten']} forgotten"
          + (f" · {mem['held']} held for review (`loreline review`)" if mem.get("held") else ""))
    if kinds:
        print("           " + " · ".join(f"{k} {v}" for k, v in sorted(kinds.items())))
    print(f"Sessions   {info.sessions_imported} imported · last import {info.last_import or 'never'}")
    print(f"Conflicts  {info.pending_conflicts} pending")
    here = found.counts
    print(f"This       {found.project}: {here.active} active · {here.pending_conflicts} pending conflicts")
    print(f"Distiller  {info.backend} · embedder {info.embedder}")
    print(f"Background {info.distill_consent}")
    if info.embedder_target != info.embedder:
        print(f"           `loreline reembed` moves the vectors to {info.embedder_target}")
    print(f"Model use  today {spent['attended_calls']} attended · {spent['unattended_calls']}/"
          f"{spent['daily_unattended_cap']} unattended calls · {spent['unattended_tokens']:,}/"
          f"{spent['daily_unattended_tokens']:,} unattended tokens · {spent['input_tokens']:,} tokens in"
          f" · {spent['output_tokens']:,} out")
    print("\n".join(capture_status.lines(info.capture)))
    if info.team.get("enabled"):
        from ..api import team as team_api

        print("\n".join(team_api.status_lines(info.team)))
    if info.native:
        from ..api.sources import native_lines

        print("\n".join(native_lines(info.native)))
    return 0


def _damaged(err: StoreCorruptError, as_json: bool) -> int:
    """A damaged store: say so and how to recover (on stderr, as errors are), not the counts."""
    from ..api import recovery_steps

    headline, steps = recovery_steps(str(err))
    if as_json:
        emit_json({"store_damaged": headline, "recovery": steps})
    else:
        print("\n".join([f"loreline: {headline}", *steps]), file=sys.stderr)
    return err.exit_code


def _settings_lines(settings: object) -> None:
    """Keys and tables the settings file holds that no setting defines, first (marked `!!`)."""
    if not isinstance(settings, dict) or not settings["unknown"]:
        return
    print(f"!! {plural(len(settings['unknown']), 'unknown setting')} in {settings['path']}, ignored "
          "(`loreline config unset KEY` removes one):")
    for found in settings["unknown"]:
        name = f"[{found['key']}]" if found["table"] else found["key"]
        close = found["did_you_mean"]
        hint = f"  did you mean {f'[{close}]' if found['table'] else close}?" if close else ""
        print(f"     {name}{hint}")
