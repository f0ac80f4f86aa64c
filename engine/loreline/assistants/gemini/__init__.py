"""Gemini CLI: `~/.gemini` (`$GEMINI_CLI_HOME/.gemini`), sessions in
`tmp/<project>/chats/session-<time>-<id8>.jsonl`, hooks (SessionStart, BeforeAgent, SessionEnd)
and the MCP server in `settings.json`, native memory in GEMINI.md files; the `gemini` distillation
backend drives its CLI under the user's own login (`login.py`, `distill.py`)."""

from __future__ import annotations

import glob
from collections.abc import Callable
from pathlib import Path

from . import folder
from ..base import Applied, Assistant, Connector, LoginBackend, ProjectMemory, SessionFormat
from ...config import Setting

TYPE_CHECKING = False  # typing is left to the type checker: the everyday commands import none of it
if TYPE_CHECKING:
    from typing import Any

    from ...native import NativeFile
    from ...transcripts.discover import Discovery, Found

NAME = "gemini"
MEMORY_NAME = "GEMINI.md"


def find_sessions(root: Path, result: Discovery) -> list[Found]:
    from . import discovery

    return discovery.find_sessions(root, result)


def session_format() -> SessionFormat:
    """Checked first; its chats re-append a message whenever it changes."""
    from . import sessions

    return SessionFormat(sessions.GeminiReader, sessions.looks_like, detect_order=-1, rereads=True,
                         named_like=lambda path: path.name.startswith("session-") and "chats" in path.parts,
                         project_root=sessions.project_root)


def memory_reader() -> Callable[[Path, Path], list[NativeFile]]:
    from . import gemini_md

    return gemini_md.read_user


def project_memory() -> ProjectMemory:
    from . import gemini_md

    return ProjectMemory(gemini_md.project_files, gemini_md.read, gemini_md.loaded_files)


#: the settings of its login backend (`login.py`, `distill.py`)
SETTINGS = (
    ("distill.gemini_model", Setting(str, "", "model the gemini backend asks Gemini CLI for; empty means "
                                     "gemini-2.5-flash")),
    ("distill.gemini_path", Setting(str, "", "the `gemini` CLI the gemini backend drives; empty means `gemini` on "
                                    "PATH")),
)


def login_backend() -> LoginBackend:
    from . import login

    return login.BACKEND


def locate_session(root: Path, session_id: str) -> Path | None:
    """The session file whose name ends with the id's first eight characters and whose first
    line names the whole id."""
    short = glob.escape(session_id[:8])
    for name in sorted(glob.glob(str(root / "tmp" / "*" / "chats" / f"session-*-{short}.jsonl")), reverse=True):
        try:
            with open(name, "rb") as handle:
                head = handle.readline(64 * 1024)
        except OSError:
            continue
        if session_id.encode() in head:
            return Path(name)
    return None


def memory_files(root: Path) -> list[Path]:
    """The global GEMINI.md (every session loads it)."""
    path = root / MEMORY_NAME
    return [path] if path.is_file() else []


def connect(project: Path | None) -> Applied:
    from . import install as gemini
    from ...connect import all_or_nothing, kept_original

    path = gemini.settings_path()
    with all_or_nothing(path), kept_original(path):
        hooks, server = gemini.connect(path)
    return Applied(hooks, (), server)


def disconnect(project: Path | None) -> Applied:
    from . import install as gemini
    from ...connect import all_or_nothing, given_back

    path = gemini.settings_path()
    with all_or_nothing(path), given_back(path):
        hooks, server = gemini.disconnect(path)
    return Applied(hooks, (), server)


def status() -> dict[str, Any]:
    from . import install as gemini

    events = gemini.installed()
    return {"path": str(gemini.settings_path()), "installed": bool(events), "events": events}


def _files() -> list[Path]:
    from . import install as gemini

    return [gemini.settings_path()]


ASSISTANT = Assistant(
    name=NAME, label="Gemini CLI", home_default=folder.DEFAULT, home_env=folder.ENV,
    home_env_parent=folder.ENV_PARENT,
    home_option="--gemini-dir", find_sessions=find_sessions, locate_session=locate_session,
    memory_files=memory_files, session_format=session_format, project_memory=project_memory, memory_reader=memory_reader,
    connector=Connector(connect, disconnect, status, summary="settings.json hooks and MCP server",
                        files=lambda: _files()),
    distill_backend="gemini", login_backend=login_backend, settings=SETTINGS,
)
