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
from .store import Store, conflicts, ledger
from .store import memories as rows


def collect(store: Store) -> dict[str, Any]:
    size = sum(os.path.getsize(p) for p in (str(store.path), f"{store.path}-wal") if os.path.exists(p))
    return {
        "store": str(store.path),
        "store_bytes": size,
        "memories": rows.count_by_status(store),
        "active_by_kind": rows.active_by_kind(store),
        "projects": rows.active_projects(store),
        "sessions_imported": ledger.sessions(store),
        "last_import": ledger.last_update(store),
        "pending_conflicts": conflicts.pending_count(store),
        "embedder": default_embedder(store).fingerprint,
        "embedder_target": default_embedder().fingerprint,
        "backend": _backend(),
        "distill_consent": _consent(),
        "model_use": usage.today_summary(store),
        "capture": capture_state(store),
        "team": _team(store),
        "native": _native(store),
    }


def _team(store: Store) -> dict[str, Any]:
    """Team sync as this machine last saw it (no server round trip: `loreline team status` probes)."""
    from .team import status as team_status

    try:
        return team_status.collect(store)
    except LorelineError as err:
        return {"enabled": False, "error": str(err)}


def _native(store: Store) -> list[dict[str, Any]]:
    """The governor report on the assistants' own memory files (`loreline import native`)."""
    from .native import governor

    return governor.report(store)


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
    from .connect import claude_code, codex
    from .project import project_key

    user = claude_code.settings_path()
    project = claude_code.settings_path(Path(project_key(cwd)))
    return {
        "claude_code_user": {"path": str(user), "events": claude_code.installed(user)},
        "claude_code_project": {"path": str(project), "events": claude_code.installed(project)},
        "codex": _codex(),
    }


def _codex() -> dict[str, Any]:
    """Codex's hooks in hooks.json when there are any, else its notify program in config.toml."""
    from .connect import claude_code, codex

    events = claude_code.installed(codex.hooks_path(), tool=codex.TOOL)
    if events:
        return {"path": str(codex.hooks_path()), "installed": True, "events": events}
    return {"path": str(codex.config_path()), "installed": codex.notify_installed(), "events": []}


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
    from .connect import claude_code, codex
    from .project import project_key

    db = Path(store.path)
    return [db, db.with_name(db.name + "-wal"), home.config_path(), home.spool_dir(),
            capture.dropped_counter_path(), claude_code.settings_path(),
            claude_code.settings_path(Path(project_key(os.getcwd()))), codex.config_path()]
