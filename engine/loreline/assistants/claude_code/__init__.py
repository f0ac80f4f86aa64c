"""Claude Code: `~/.claude` (`$CLAUDE_CONFIG_DIR`), sessions in `projects/<slug>/<uuid>.jsonl`,
hooks in `settings.json` (or a project's personal `.claude/settings.local.json`), the MCP server
in `~/.claude.json`, native memory in CLAUDE.md files and auto memory, and distillation with its
own login (`claude -p`, the `claude-code` backend)."""

from __future__ import annotations

import glob
from collections.abc import Callable
from pathlib import Path

from ...config import Setting
from . import folder
from ..base import Applied, Assistant, AutoMemory, Connector, LoginBackend, ProjectMemory, SessionFormat

TYPE_CHECKING = False  # typing is left to the type checker: the everyday commands import none of it
if TYPE_CHECKING:
    from typing import Any

    from ...native import NativeFile
    from ...transcripts.discover import Discovery, Found

NAME = "claude-code"


def find_sessions(root: Path, result: Discovery) -> list[Found]:
    from . import discovery

    return discovery.find_sessions(root, result)


def session_format() -> SessionFormat:
    from . import sessions

    return SessionFormat(sessions.ClaudeCodeReader, sessions.looks_like)


def login_backend() -> LoginBackend:
    from . import login

    return login.BACKEND


def project_memory() -> ProjectMemory:
    from . import claude_md

    return ProjectMemory(claude_md.project_files, claude_md.read, claude_md.loaded_files)


def locate_session(root: Path, session_id: str) -> Path | None:
    found = sorted(glob.glob(str(root / "projects" / "*" / f"{glob.escape(session_id)}.jsonl")))
    return Path(found[-1]) if found else None


def memory_files(root: Path) -> list[Path]:
    from . import claude_md

    return claude_md.user_files(root)


def memory_reader() -> Callable[[Path, Path], list[NativeFile]]:
    from . import claude_md

    return claude_md.read_user


def _auto_memory() -> AutoMemory:
    from . import auto_memory as memory

    return AutoMemory(memory.TOOL, memory.memory_dirs, memory.folder_of, memory.project_of, memory.files,
                      memory.read, memory.INDEX, memory.loaded_part, memory.LOAD_LINES, memory.LOAD_BYTES,
                      memory.enabled)


#: the settings of its login backend (`login.py`)
SETTINGS = (
    ("distill.claude_code_model", Setting(str, "claude-haiku-4-5", "model the claude-code backend asks "
                                          "Claude Code for (a full name or an alias such as haiku)")),
    ("distill.claude_path", Setting(str, "", "the `claude` CLI the claude-code backend drives; empty means "
                                    "`claude` on PATH")),
)


def connect(project: Path | None) -> Applied:
    """Hooks, then the MCP server; when a later file cannot be changed, the earlier ones get
    their content back, so a failure changes nothing."""
    from . import install as claude_code
    from . import mcp
    from ...connect import all_or_nothing, created_file, kept_original

    path, config = claude_code.settings_path(project), mcp.claude_config_path()
    shared = claude_code.shared_project_path(project) if project is not None else path
    with all_or_nothing(path, shared, config), kept_original(path, config):
        with created_file(path, NAME):
            hooks = claude_code.connect(path)
        moved: tuple[Any, ...] = ()
        if project is not None:
            legacy = claude_code.disconnect(shared) if claude_code.installed(shared) else None
            moved = (legacy,) if legacy is not None and legacy.changed else ()
        with created_file(config, NAME):
            server = mcp.connect_claude(project)
    if project is not None:
        claude_code.ignore_local_settings(project)
    return Applied(hooks, moved, server)


def disconnect(project: Path | None) -> Applied:
    from . import install as claude_code
    from . import mcp
    from ...connect import all_or_nothing, given_back, remove_if_created

    path, config = claude_code.settings_path(project), mcp.claude_config_path()
    with all_or_nothing(path, config), given_back(path, config):
        hooks = claude_code.disconnect(path)
        server = mcp.disconnect_claude(project)
    remove_if_created(path, NAME)
    remove_if_created(config, NAME)
    return Applied(hooks, (), server)


def status() -> dict[str, Any]:
    from . import install as claude_code

    user = claude_code.settings_path()
    events = claude_code.installed(user)
    return {"path": str(user), "installed": bool(events), "events": events}


ASSISTANT = Assistant(
    name=NAME, label="Claude Code", home_default=folder.DEFAULT, home_env=folder.ENV,
    home_option="--claude-dir", find_sessions=find_sessions, locate_session=locate_session,
    memory_files=memory_files, memory_reader=memory_reader, session_format=session_format,
    project_memory=project_memory, auto_memory=_auto_memory,
    connector=Connector(connect, disconnect, status, summary="settings.json hooks", project_scope=True),
    distill_backend="claude-code", login_backend=login_backend, settings=SETTINGS,
)
