"""Memories that do not come from transcripts: the assistants' own memory files (`loreline
import native`) and another store's export (`loreline export` / `import memories`).

Each call opens the store itself, refuses a read-only one for writes with its one line, and
answers the report the engine produced.
"""

from __future__ import annotations

from collections.abc import Mapping

from pathlib import Path
from typing import IO

from .. import backends
from ..errors import StoreError
from ..native import run as native_run
from ..native.governor import lines as native_lines
from ..native.sync import SyncReport
from ..portable import export, load, markdown
from ..portable.export import Counts
from ..portable.load import LoadReport
from ..portable.paths import PathMap, project_arg
from ..portable.paths import parse as path_map
from ..store import Store

__all__ = ["Counts", "LoadReport", "PathMap", "SyncReport", "export_jsonl", "export_markdown", "import_memories",
           "import_native", "native_lines", "path_map", "project_arg"]


def import_native(homes: Mapping[str, str | None] | None = None, project: str | None = None,
                  memory_dir: Path | None = None, backend: str | None = None) -> SyncReport:
    """Read the assistants' own memory files (Claude Code auto memory, CLAUDE.md layers, Codex
    memories, GEMINI.md) as sources; `homes` overrides an assistant's folder by name."""
    from ..assistants import registry

    roots = native_run.Roots.of(registry.ALL, homes or {}, project, memory_dir)
    judge = backends.choose(backend, None).judge
    with Store() as store:
        _writable(store)
        return native_run.run(store, roots, judge=judge)


def export_markdown(project: str | None) -> str:
    with Store() as store:
        return markdown.render(store, project)


def export_jsonl(project: str | None, out: IO[bytes], *, withhold_held: bool = False) -> Counts:
    with Store() as store:
        return export.write_jsonl(store, project, out, withhold_held=withhold_held)


def import_memories(path: Path, project: str | None, mapping: PathMap) -> LoadReport:
    records = load.read(path)
    with Store() as store:
        _writable(store)
        return load.load(store, records, project=project, paths=mapping)


def _writable(store: Store) -> None:
    if store.read_only:
        raise StoreError(store.read_only_message())
