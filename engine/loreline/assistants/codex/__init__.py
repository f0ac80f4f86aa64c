"""Codex CLI: `~/.codex` (`$CODEX_HOME`), rollouts in `sessions/YYYY/MM/DD/rollout-*.jsonl`
(and `archived_sessions/`), hooks in `hooks.json` (its `notify` program in `config.toml` where
hooks are off), the MCP server as `[mcp_servers.loreline]` in `config.toml`, native memory in
`memories/MEMORY.md`. Distillation with its login: the `codex` backend (`codex exec`; `login.py`,
`distill.py`)."""

from __future__ import annotations

import glob
from collections.abc import Callable
from pathlib import Path

from ...config import Setting
from . import folder
from ..base import Applied, Assistant, Connector, LoginBackend, SessionFormat

TYPE_CHECKING = False  # typing is left to the type checker: the everyday commands import none of it
if TYPE_CHECKING:
    from typing import Any

    from ...native import NativeFile
    from ...transcripts.discover import Discovery, Found

NAME = "codex"
TRUST_HINT = ("Codex runs new hooks only once you trust them: start `codex`, type /hooks and trust "
              "Loreline's entries (again after Loreline moves or changes them).")


def find_sessions(root: Path, result: Discovery) -> list[Found]:
    from . import discovery

    return discovery.find_sessions(root, result)


def session_format() -> SessionFormat:
    from . import sessions

    return SessionFormat(sessions.CodexReader, sessions.looks_like, named_like=named_like,
                         is_document=sessions.is_document, feed_document=sessions.feed_document)


def named_like(path: Path) -> bool:
    """A session document (`.json`) or a rollout."""
    return path.suffix == ".json" or path.name.startswith("rollout-")


def memory_reader() -> Callable[[Path, Path], list[NativeFile]]:
    from . import memory

    return lambda path, home: memory.read(path)


#: the settings of its login backend (`login.py`, `distill.py`)
SETTINGS = (
    ("distill.codex_model", Setting(str, "", "model the codex backend asks Codex for; empty means Codex's "
                                    "own default for the login")),
    ("distill.codex_path", Setting(str, "", "the `codex` CLI the codex backend drives; empty means `codex` on "
                                   "PATH")),
    ("distill.codex_base_url", Setting(str, "", "endpoint the codex backend's runs use (Codex's "
                                       "openai_base_url); empty means $OPENAI_BASE_URL, else Codex's own")),
)


def login_backend() -> LoginBackend:
    from . import login

    return login.BACKEND


def locate_session(root: Path, session_id: str) -> Path | None:
    found = sorted(glob.glob(str(root / "sessions" / "*" / "*" / "*" / f"rollout-*-{glob.escape(session_id)}.jsonl")))
    return Path(found[-1]) if found else None


def memory_files(root: Path) -> list[Path]:
    from . import memory as codex_memory

    path = codex_memory.memory_file(root)
    return [path] if path.is_file() else []


def connect(project: Path | None) -> Applied:
    from . import install as codex, mcp
    from ...connect import all_or_nothing, kept_original

    files = (codex.hooks_path(), codex.config_path())
    with all_or_nothing(*files), kept_original(*files):
        hooks, *moved = codex.connect()
        server = mcp.connect()
    return Applied(hooks, tuple(moved), server)


def disconnect(project: Path | None) -> Applied:
    from . import install as codex, mcp
    from ...connect import all_or_nothing, given_back

    files = (codex.hooks_path(), codex.config_path())
    with all_or_nothing(*files), given_back(*files):
        hooks, *rest = codex.disconnect()
        server = mcp.disconnect()
    return Applied(hooks, tuple(rest), server)


def status() -> dict[str, Any]:
    """Codex's hooks in hooks.json when there are any, else its notify program in config.toml."""
    from ..claude_code import install as claude_code
    from . import install as codex

    events = claude_code.installed(codex.hooks_path(), tool=NAME, table=codex.HOOKS)
    if events:
        return {"path": str(codex.hooks_path()), "installed": True, "events": events}
    return {"path": str(codex.config_path()), "installed": codex.notify_installed(), "events": []}


def _files() -> list[Path]:
    from . import install as codex

    return [codex.config_path(), codex.hooks_path()]


ASSISTANT = Assistant(
    name=NAME, label="Codex", home_default=folder.DEFAULT, home_env=folder.ENV, home_option="--codex-home",
    find_sessions=find_sessions, locate_session=locate_session, memory_files=memory_files,
    session_format=session_format, memory_reader=memory_reader,
    connector=Connector(connect, disconnect, status, after_connect=TRUST_HINT, files=lambda: _files(),
                        summary="hooks.json hooks; the config.toml notify program where Codex's hooks are off"),
    distill_backend="codex", login_backend=login_backend, settings=SETTINGS,
)
