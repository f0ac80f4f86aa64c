"""The team sync state for `loreline team status` and `loreline status`: local facts always,
the server's view (how far behind each project is) only when asked to probe it."""

from __future__ import annotations

from typing import Any

from ..errors import LorelineError
from ..store import Store, teamsync
from . import settings as team_settings


def collect(store: Store, *, probe: bool = False) -> dict[str, Any]:
    settings = team_settings.load()
    state: dict[str, Any] = {
        "enabled": settings.enabled, "server": settings.dsn or None, "author": settings.author,
        "share": settings.share, "last_sync": store.meta("team.last_sync"),
        "last_error": store.meta("team.last_error") or None, **teamsync.counts(store),
        "projects": [{"remote": r, "project": p, "pulled": c} for r, p, c in teamsync.cursors(store)],
    }
    if probe and settings.enabled:
        _probe(state, settings)
    return state


def _probe(state: dict[str, Any], settings: team_settings.TeamSettings) -> None:
    from ..store.team import changes
    from .sync import open_team

    try:
        with open_team(settings) as team:
            for entry in state["projects"]:
                entry["server_head"] = changes.head(team, entry["remote"])
                entry["behind"] = max(0, entry["server_head"] - entry["pulled"])
        state["reachable"] = True
    except LorelineError as err:
        state["reachable"] = False
        state["server_error"] = str(err)


def lines(state: dict[str, Any]) -> list[str]:
    if not state["enabled"]:
        return ["team: not connected (`loreline team connect postgresql://user@host/db`)"]
    out = [f"team: {state['server']} as {state['author']}, sharing {state['share']} memories",
           f"  published {state['published']}, received {state['received']}, approved {state['approved']}; "
           f"last sync {state['last_sync'] or 'never'}"]
    if state.get("reachable") is False:
        out.append(f"  server unreachable: {state.get('server_error')}")
    elif state["last_error"]:
        out.append(f"  last attempt failed: {state['last_error']}")
    for entry in state["projects"]:
        behind = f", {entry['behind']} changes behind" if "behind" in entry else ""
        out.append(f"  {entry['remote']} ← {entry['project']} (cursor {entry['pulled']}{behind})")
    return out
