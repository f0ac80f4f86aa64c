"""What Loreline knows about one AI coding assistant, as one object (`Assistant`).

Each assistant package (`claude_code`, `codex`, `cursor`, `gemini`) builds one `Assistant`;
the registry (`loreline.assistants.registry`) lists them. Everything else loops over the
registry instead of naming tools: discovery, the capture worker, the CLI's `--tool` choices,
`connect`/`disconnect`, native memory import and status. The code below the adapters (the
transcript readers, native memory) is handed what it needs of them as these records and
never imports an adapter.

The behaviour an assistant supplies is a set of plain functions. They import the code that
does the work (transcript readers, connectors, native readers) only when called, so reading
the registry stays cheap and free of import cycles.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from ..records import record

TYPE_CHECKING = False  # typing is left to the type checker: the everyday commands import none of it
if TYPE_CHECKING:
    from typing import Any

    from ..config import Setting
    from ..connect import Change
    from ..native import NativeFile
    from ..transcripts.discover import Discovery, Found

#: a live session is one whose file changed this recently (it is probably still being written)
SETTLE_SECONDS = 300


def settled(found: Found, now: float, settle_seconds: float = SETTLE_SECONDS) -> bool:
    """The common rule for "finished": the session file has not changed for `settle_seconds`."""
    return found.mtime <= now - settle_seconds


@record
class Applied:
    """What one connect or disconnect did: the hooks file first, then any older Loreline
    entries moved out of another file, then the MCP server's entry."""

    hooks: Change
    moved: tuple[Change, ...] = ()
    mcp: Change | None = None


@record
class Connector:
    """How `loreline connect|disconnect <assistant>` installs capture and the MCP server.

    `connect(project)` / `disconnect(project)` say what they changed (`Applied`); `project` is
    a folder for assistants with a personal per-project settings file (`project_scope`), else
    None. `status()` tells what is installed now: `{"path", "installed", "events"}`."""

    connect: Callable[[Path | None], Applied]
    disconnect: Callable[[Path | None], Applied]
    status: Callable[[], dict[str, Any]]
    #: what `connect` installs, for `--help` and the docs
    summary: str = ""
    #: accepts `--project DIR`
    project_scope: bool = False
    #: a line printed after connecting (e.g. how the tool asks to trust new hooks)
    after_connect: str = ""
    #: the user-level files `status()` reads (so a cached status knows when to look again)
    files: Callable[[], list[Path]] = list


@record
class LoginBackend:
    """A distillation backend that drives the assistant's own CLI under the user's login
    (`--backend <name>`, and `auto` after an API key, in registry order)."""

    #: the backend's name (`--backend codex`)
    name: str
    #: the CLI it drives, found on PATH unless the `path_setting` config names one
    command: str
    path_setting: str
    #: the config setting with the model it asks for, and what an empty one means in
    #: `loreline status` and in the consent sentence
    model_setting: str
    #: how the CLI is logged in ("claude.ai", "chatgpt", ...), or None
    login: Callable[[str], str | None]
    #: `(distiller, client)` for `cli` under `config`, running in `workdir`
    build: Callable[[Any, Path, Path], tuple[Any, Any]]
    default_model_status: str = ""
    default_model_consent: str = ""
    #: an explicit `--backend <name>` refuses to run without a login, with this message
    needs_login: str | None = None
    #: the `login` answers that are a subscription plan (its runs count against the plan's
    #: usage limits, and `connect` and `status` say so), and the plan's name for a person
    plan_logins: tuple[str, ...] = ()
    plan_name: str = ""


@record
class ProjectMemory:
    """The memory files an assistant keeps in a project's folder (CLAUDE.md, GEMINI.md)."""

    #: the files under a project's folder
    files: Callable[[Path], list[Path]]
    #: one file, as a native source of `project`: `read(path, project)`
    read: Callable[[Path, str], Any]
    #: the files a session started in a folder loads: `loaded(folder, home)`
    loaded: Callable[[Path, Path], list[Path]]


@record
class AutoMemory:
    """A memory folder the assistant keeps per project (Claude Code's auto memory) and the
    index in it, of which a session loads only the start."""

    #: the provenance tool name of its memories
    tool: str
    #: (the project's folder under the home, its memory folder) for every project with one:
    #: `folders(home)`
    folders: Callable[[Path], list[tuple[Path, Path]]]
    #: the memory folder of one project: `folder_of(home, project)`
    folder_of: Callable[[Path, str], Path]
    #: the project a folder of `folders` belongs to, from what the assistant keeps there
    project_of: Callable[[Path], str | None]
    #: the memory files of a memory folder, and one read as a native source of a project
    files: Callable[[Path], list[Path]]
    read: Callable[[Path, str], NativeFile]
    #: the index's file name and what a session loads of it: `loaded_part(path)` is the text
    #: loaded and the number of lines left out, under these caps
    index: str
    loaded_part: Callable[[Path], tuple[str, int]]
    load_lines: int
    load_bytes: int
    #: whether a session started in a project loads it at all: `enabled(project, home)`
    enabled: Callable[[Path, Path], bool]


@record
class SessionFormat:
    """How `loreline.transcripts` reads this assistant's session files."""

    #: `reader(stats)` makes a reader (`feed(lineno, record)`, `finish()`)
    reader: Callable[..., Any]
    #: whether one record is this format's (the formats are disjoint)
    looks_like: Callable[[dict[str, Any]], bool]
    #: whether a file with no parseable record came from this tool, by where it lives; None:
    #: the format a file nothing else claims is guessed to be
    named_like: Callable[[Path], bool] | None = None
    #: detection tries lower first (ties in registry order)
    detect_order: int = 0
    #: a whole-file `.json` session document: `is_document(head)`, and
    #: `feed_document(handle, size, reader, stats)` returning the item count
    is_document: Callable[[bytes], bool] | None = None
    feed_document: Callable[..., int] | None = None
    #: the tool re-appends messages when they change: an incremental read reads the whole file
    #: and keeps what came after the watermark (`reader(stats, since_line=...)`)
    rereads: bool = False
    #: the project of a session whose records name none
    project_root: Callable[[Path], str | None] | None = None
    #: the project of a session whose records name none and that the ledger does not know,
    #: guessed from where its file lives (slower: it may look at folders on disk)
    project_guess: Callable[[Path], str | None] | None = None


@record
class Assistant:
    """Everything Loreline knows about one assistant."""

    #: the name users type (`--tool codex`, `loreline connect codex`) and that transcripts carry
    name: str
    #: how messages name it ("Codex")
    label: str
    #: its configuration folder under the user's home (".codex") and the variable that moves it
    home_default: str
    home_env: str | None
    #: the CLI option that points discovery at another home (`--codex-home`)
    home_option: str
    #: session files under `home` (newest first is the caller's business), with the left-out
    #: files and their reasons added to the discovery
    find_sessions: Callable[[Path, Discovery], list[Found]]
    #: the session file of a session id (for capture events that arrive without a path)
    locate_session: Callable[[Path, str], Path | None]
    #: its user-level native memory files (loaded by the tool itself at session start) under
    #: `home`; None for an assistant whose native memory Loreline does not read
    memory_files: Callable[[Path], list[Path]] | None
    #: capture hooks and MCP entry; None where Loreline does not connect it (yet)
    connector: Connector | None = None
    #: the distillation backend that uses this tool's own login (`loreline.distill` / the
    #: `--backend` name), None where there is none
    distill_backend: str | None = None
    #: how its session files are read (imports the reader only when called)
    session_format: Callable[[], SessionFormat] | None = None
    #: the native memory reader of `memory_files`: `read(path, home)` → its native files (a
    #: user-level file is kept as the project of the assistant's folder)
    memory_reader: Callable[[], Callable[[Path, Path], list[NativeFile]]] | None = None
    #: its memory files in a project's folder (imports the reader only when called)
    project_memory: Callable[[], ProjectMemory] | None = None
    #: its `distill_backend` (imports the backend only when called)
    login_backend: Callable[[], LoginBackend] | None = None
    #: whether a discovered session is finished (default: its file has settled)
    finished: Callable[[Found, float, float], bool] = settled
    #: the variable names a home folder holding `home_default` (Gemini CLI's `$GEMINI_CLI_HOME`)
    #: rather than the folder itself
    home_env_parent: bool = False
    #: the settings it contributes to `loreline config` (its login backend's CLI and model)
    settings: tuple[tuple[str, Setting], ...] = ()
    #: the memory folder it keeps per project (Claude Code's auto memory; imports the reader
    #: only when called)
    auto_memory: Callable[[], AutoMemory] | None = None

    def home(self, explicit: str | os.PathLike[str] | None = None) -> Path:
        """Its folder: `explicit`, else `$<home_env>`, else `~/<home_default>`."""
        return home_folder(self.home_default, self.home_env, explicit, env_parent=self.home_env_parent)


def home_folder(default: str, env_name: str | None, explicit: str | os.PathLike[str] | None = None, *,
                env_parent: bool = False) -> Path:
    """An assistant's folder: `explicit`, else `$<env_name>` (the folder, or with `env_parent`
    the home holding `default`), else `~/<default>`."""
    if explicit:
        return Path(explicit).expanduser()
    env = os.environ.get(env_name, "").strip() if env_name else ""
    if not env:
        return Path.home() / default
    return Path(env).expanduser() / default if env_parent else Path(env).expanduser()
