"""What the store holds and how capture is doing: the facts behind `loreline status` and the
language server's `loreline/status` (each edge renders them its own way)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from . import capture, home, usage

from .capture import jobs
from .embed import default_embedder
from .errors import LorelineError
from .records import record
from .store import Store, conflicts, ledger
from .store import memories as rows


@record
class Facts:
    """The store-wide facts, in the order `loreline status --json` writes them. The nested
    values are the JSON objects written as they are: `memories` and `active_by_kind` count by
    status and by kind, `model_use` is today's spend (`usage.today_summary`), `capture` the hooks,
    spool and queue (`capture_state`), `team` the team sync, `native` the governor report."""

    store: str
    store_bytes: int
    memories: dict[str, int]
    active_by_kind: dict[str, int]
    projects: int
    sessions_imported: int
    last_import: str | None
    pending_conflicts: int
    embedder: str
    embedder_target: str
    backend: str
    #: which model distills captured sessions, under whose login or key, and the daily cap
    distill_consent: str
    model_use: dict[str, Any]
    capture: dict[str, Any]
    team: dict[str, Any]
    native: list[dict[str, Any]]
    #: the settings file: where, and the keys and tables in it that no setting defines
    settings: dict[str, Any]


def collect(store: Store) -> Facts:
    size = sum(os.path.getsize(p) for p in (str(store.path), f"{store.path}-wal") if os.path.exists(p))
    return Facts(
        store=str(store.path),
        store_bytes=size,
        memories=rows.count_by_status(store),
        active_by_kind=rows.active_by_kind(store),
        projects=rows.active_projects(store),
        sessions_imported=ledger.sessions(store),
        last_import=ledger.last_update(store),
        pending_conflicts=conflicts.pending_count(store),
        embedder=default_embedder(store).fingerprint,
        embedder_target=default_embedder().fingerprint,
        backend=_backend(),
        distill_consent=_consent(),
        model_use=usage.today_summary(store),
        capture=capture_state(store),
        team=_team(store),
        native=_native(store),
        settings=settings_state(),
    )


def settings_state() -> dict[str, Any]:
    """The settings file: where it is and what it holds that no setting defines (each with the
    closest known key), or why it cannot be read."""
    from . import config
    from .assistants import registry

    path = home.config_path()
    try:
        found = config.unknown(path, registry.schema())
    except LorelineError as err:
        return {"path": str(path), "exists": path.exists(), "unknown": [], "error": str(err)}
    return {"path": str(path), "exists": path.exists(), "error": None,
            "unknown": [{"key": u.key, "table": u.table, "did_you_mean": u.suggestion} for u in found]}


def _team(store: Store) -> dict[str, Any]:
    """Team sync as this machine last saw it (no server round trip: `loreline team status` probes)."""
    from .team import status as team_status

    try:
        return team_status.collect(store)
    except LorelineError as err:
        return {"enabled": False, "error": str(err)}


def _native(store: Store) -> list[dict[str, Any]]:
    """The governor report on the assistants' own memory files (`loreline import native`)."""
    from .assistants import registry
    from .native import governor

    return governor.report(store, registry.ALL)


def _consent() -> str:
    from . import backends

    try:
        return backends.consent()
    except LorelineError as err:
        return f"unknown ({err})"


def _backend() -> str:
    from . import backends

    try:
        return backends.describe()
    except LorelineError as err:
        return f"unknown ({err})"


def capture_state(store: Store, cwd: str | None = None) -> dict[str, Any]:
    queue = jobs.summary(store)
    spool = _spool()
    stamps = [s for s in (spool["newest"], queue["last_event_at"]) if s]
    return {
        "hooks": _hooks(cwd or os.getcwd()),
        "prompt_recall": _prompt_recall(),
        "paused_here": capture.opted_out(),
        "settings_error": _settings_error(),
        "last_capture": max(stamps) if stamps else None,
        "spool": spool,
        "queue": queue,
    }


def _prompt_recall() -> dict[str, Any]:
    """How the prompt hook chooses in this shell's sessions, and whether the warm process runs."""
    from .capture import warmsocket

    try:
        mode = capture.prompt_recall(capture.load_settings())
    except LorelineError:
        mode = capture.prompt_recall(capture.Settings())
    return {"mode": mode, "warm": mode == "meaning" and warmsocket.listening()}


def _hooks(cwd: str) -> dict[str, Any]:
    """Claude Code's user and project settings, then every other connectable assistant by name."""
    from .assistants import registry
    from .assistants.claude_code import install as claude_code
    from .project import project_key

    user = claude_code.settings_path()
    project = claude_code.settings_path(Path(project_key(cwd)))
    found: dict[str, Any] = {
        "claude_code_user": {"path": str(user), "events": claude_code.installed(user)},
        "claude_code_project": {"path": str(project), "events": claude_code.installed(project)},
    }
    for assistant in registry.connectable():
        if assistant.name != "claude-code" and assistant.connector is not None:
            found[assistant.name] = assistant.connector.status()
    return found


def _spool() -> dict[str, Any]:
    folder = home.spool_dir()
    newest = 0.0
    waiting = 0
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if capture.is_spool_name(entry.name):
                    waiting += 1
                    newest = max(newest, entry.stat().st_mtime)
    except FileNotFoundError:
        pass
    dropped = capture.dropped_count()
    return {"waiting": waiting, "newest": capture.utc_stamp(newest) if newest else None,
            "dropped": dropped, "last_drop": _mtime(capture.dropped_counter_path()) if dropped else None}


def _mtime(path: Path) -> str | None:
    try:
        return capture.utc_stamp(path.stat().st_mtime)
    except OSError:
        return None


def _settings_error() -> str | None:
    try:
        capture.load_settings()
    except LorelineError as err:
        return str(err)
    return None


def inputs(store: Store) -> list[Path]:
    """Every file `collect` reads: while none of them changes (and the day does not), neither
    do the facts, but for an API key stored in the keyring by another process."""
    from .assistants import registry
    from .assistants.claude_code import install as claude_code
    from .project import project_key

    db = Path(store.path)
    others = [path for a in registry.connectable() if a.connector is not None for path in a.connector.files()]
    return [db, db.with_name(db.name + "-wal"), home.config_path(), home.spool_dir(),
            capture.dropped_counter_path(), claude_code.settings_path(),
            claude_code.settings_path(Path(project_key(os.getcwd()))), *others]
