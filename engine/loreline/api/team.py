"""The team store for front ends: connect, sync, share, status and recall (`loreline team`).

psycopg and the sync code are imported inside each call: importing this module loads neither.
"""

from __future__ import annotations

from typing import Any

from ..errors import LorelineError, NotFoundError, TeamUnreachableError
from ..store import Store


def connect(dsn: str, secret: str | None) -> str | None:
    """Check the server answers, keep the password in the OS keyring (where: returned), and
    record the DSN (never with a password) in the config."""
    from .. import config, keys
    from ..store.team import TeamStore, check_dsn
    from ..team import settings as team_settings

    dsn = check_dsn(dsn)
    if secret:
        keys.usable_backend(team_settings.secret(dsn))  # no keyring to keep it: say so before connecting
    with TeamStore(dsn, secret or team_settings.password(dsn)):
        pass
    where = keys.save_secret(team_settings.secret(dsn), secret) if secret else None
    config.set_value("team.dsn", dsn)
    return where


def shared_id(project: str) -> str | None:
    """The project's id across machines (its normalised git remote), None when it has none."""
    from ..team import settings as team_settings
    from ..team.remote import remote_for

    return remote_for(project, team_settings.load().remote)


def sync(project: str) -> Any:
    """Publish and receive now for `project`; the report (its `line()` is for people)."""
    from ..store.team import check_dsn
    from ..team import settings as team_settings
    from ..team import sync as team_sync

    settings = team_settings.load()
    check_dsn(settings.dsn)  # not connected, or a password in the file: say so before anything else
    with Store() as store:
        try:
            return team_sync.sync(store, settings, projects=(project,))
        except TeamUnreachableError as err:
            raise TeamUnreachableError(f"{err}; local memories are untouched, the next sync catches up") from None


def share(ids: list[int], approve: bool) -> int:
    """Approve (or withdraw) memories for the team; how many changed."""
    from ..store import memories as rows
    from ..store import teamsync

    changed = 0
    with Store() as store, store.write():
        for memory_id in ids:
            memory = rows.get(store, memory_id)
            if memory.scope != "project":
                raise LorelineError(f"memory #{memory_id} is personal (user scope) and is never shared")
            root = memory.root_id or memory.id
            done = teamsync.share(store, root) if approve else teamsync.unshare(store, root)
            if done:
                rows.audit(store, "user", "share" if approve else "unshare", memory_id)
                changed += 1
    return changed


def status(probe: bool = True) -> dict[str, Any]:
    from ..team import status as team_status

    with Store() as store:
        return dict(team_status.collect(store, probe=probe))


def status_lines(state: dict[str, Any]) -> list[str]:
    from ..team import status as team_status

    return list(team_status.lines(state))


def recall(project: str, query: str, limit: int) -> list[Any]:
    """Every teammate's shared memories of `project` on the server, best first."""
    from ..team import recall as team_recall
    from ..team import settings as team_settings
    from ..team.sync import open_team

    remote = shared_id(project)
    if remote is None:
        raise NotFoundError(f"{project} has no shared id (no git remote origin; set team.remote)")
    with open_team(team_settings.load()) as team:
        return list(team_recall.recall(team, query, remote, limit=limit))
