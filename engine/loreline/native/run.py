"""`loreline import native`: every native memory file found, synced, then coverage refreshed.

The assistants are handed in (`Roots.assistants`, the registry's list from the caller); this
module reads what each provides and imports none. Found: each assistant's per-project memory
folders (`auto_memory`: Claude Code's `<claude dir>/projects/*/memory/`, the project from the
ledger's sessions in that folder, else what the assistant keeps there), the project memory
files (`project_memory`: CLAUDE.md layers, GEMINI.md) of every project Loreline knows that
exists on this machine, and the user-level memory files (`memory_files`, read by
`memory_reader`: `~/.claude/CLAUDE.md` and its rules, kept as the project of the assistant's
folder itself, searchable and never injected since every session loads them). Files recorded
earlier and now gone are followed as deletions. A file that cannot be read is reported and
the rest go on.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from .. import beliefs
from ..embed import Embedder
from ..errors import LorelineError
from ..store import Store
from ..store import native as table
from ..store import memories as rows
from ..records import record
from . import NativeFile, coverage
from .sync import SyncReport, prepare, sync_deleted, sync_file, unchanged

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..assistants.base import Assistant, AutoMemory


@record
class Roots:
    #: the assistants whose memory is read (the registry's, in its order)
    assistants: tuple[Assistant, ...]
    #: each assistant's home folder, by name
    homes: Mapping[str, Path]
    #: only this project (None: every project found)
    project: str | None = None
    #: a per-project memory folder for `project` somewhere else (`autoMemoryDirectory`)
    memory_dir: Path | None = None

    @classmethod
    def of(cls, assistants: Sequence[Assistant], given: Mapping[str, str | None], project: str | None = None,
           memory_dir: Path | None = None) -> Roots:
        """Every assistant's home: the one `given` by name, else where the assistant keeps it."""
        return cls(tuple(assistants), {a.name: a.home(given.get(a.name)) for a in assistants}, project, memory_dir)

    def auto_memories(self) -> list[tuple[AutoMemory, Path]]:
        """Each assistant's per-project memory folders, with its home."""
        return [(a.auto_memory(), self.homes[a.name]) for a in self.assistants
                if a.auto_memory is not None and a.name in self.homes]


def run(store: Store, roots: Roots, embedder: Embedder | None = None,
        judge: beliefs.Judge | None = None) -> SyncReport:
    embedder = prepare(store, embedder)
    report = SyncReport()
    dirs: dict[str, Path] = {}
    for auto, folder in roots.auto_memories():
        found = _auto_memory(store, roots, auto, folder, report)
        for project, memory_dir in found.items():
            for path in auto.files(memory_dir):
                _one(store, path, _reader(auto.read, project), report, embedder, judge)
        dirs.update(found)
    projects = _projects(store, roots, dirs)
    in_projects = [a.project_memory() for a in roots.assistants if a.project_memory is not None]
    for project in projects:
        for memory in in_projects:
            for path in memory.files(Path(project)):
                _one(store, path, _reader(memory.read, project), report, embedder, judge)
    if roots.project is None:
        for assistant in roots.assistants:
            own = roots.homes.get(assistant.name)
            if assistant.memory_reader is None or own is None or assistant.memory_files is None:
                continue
            read = assistant.memory_reader()
            for path in assistant.memory_files(own):
                _one(store, path, _at_home(read, own), report, embedder, judge)
    for seen in table.seen(store):
        if not os.path.lexists(seen.path) and (roots.project is None or seen.project == roots.project):
            sync_deleted(store, seen.path, report)
    _coverage(store, roots, projects, dirs)
    return report


def follow(store: Store, assistants: Sequence[Assistant], project: str | None = None,
           judge: beliefs.Judge | None = None, *, homes: Mapping[str, str | None] | None = None) -> SyncReport | None:
    """`run` for callers whose own work comes first (a discovery import, the capture worker):
    the roots as discovery finds them, and a failure is None rather than an error."""
    roots = Roots.of(assistants, homes or {}, project)
    try:
        return run(store, roots, judge=judge)
    except (LorelineError, OSError):
        return None


#: how an assistant's user-level memory files (`memory_files`) are read: its `memory_reader`
Reader = Callable[[Path], list[NativeFile]]


def _reader(read: Callable[[Path, str], NativeFile], project: str) -> Reader:
    return lambda path: [read(path, project)]


def _at_home(read: Callable[[Path, Path], list[NativeFile]], home: Path) -> Reader:
    return lambda path: read(path, home)


def _one(store: Store, path: Path, reader: Reader, report: SyncReport, embedder: Embedder,
         judge: beliefs.Judge | None) -> None:
    if unchanged(store, path):
        report.unchanged += 1
        return
    try:
        parts = reader(path)
    except OSError as err:
        report.failed.append((str(path), f"cannot read: {err.strerror or err}"))
        return
    sync_file(store, parts, report, embedder, judge)


def _auto_memory(store: Store, roots: Roots, auto: AutoMemory, home: Path, report: SyncReport) -> dict[str, Path]:
    """One assistant's per-project memory folders, by project."""
    found: dict[str, Path] = {}
    if roots.memory_dir is not None and roots.project is not None:
        return {roots.project: roots.memory_dir} if roots.memory_dir.is_dir() else {}
    if roots.project is not None:
        direct = auto.folder_of(home, roots.project)
        if direct.is_dir():
            return {roots.project: direct}
    for folder, memory_dir in auto.folders(home):
        project = table.project_of_sessions(store, str(folder)) or auto.project_of(folder)
        if project is None:
            report.failed.append((str(memory_dir), "cannot tell which project this folder is (no session names "
                                                   "its directory); use --project DIR --memory-dir FOLDER"))
            continue
        if roots.project is None or project == roots.project:
            found[project] = memory_dir
    return found


def _projects(store: Store, roots: Roots, dirs: dict[str, Path]) -> list[str]:
    """Project folders on this machine whose CLAUDE.md layers to read."""
    if roots.project is not None:
        return [roots.project] if os.path.isdir(roots.project) else []
    known = set(rows.projects(store, project_scope_only=True))
    for folder in roots.homes.values():  # the user's own files (CLAUDE.md, GEMINI.md): their own project
        known.discard(str(folder))
    return sorted(p for p in known | set(dirs) if os.path.isabs(p) and os.path.isdir(p))


def _coverage(store: Store, roots: Roots, projects: list[str], dirs: dict[str, Path]) -> None:
    with store.write():
        for project in sorted(set(projects) | set(dirs)):
            if os.path.isdir(project):
                loaded = coverage.loaded(Path(project), roots.assistants, roots.homes, dirs.get(project))
                coverage.refresh(store, project, loaded)
