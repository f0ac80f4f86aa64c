"""Memories that do not come from transcripts: the assistants' own memory files (`loreline
import native`) and another store's export (`loreline export` / `import memories`).

Each call opens the store itself, refuses a read-only one for writes with its one line, and
answers the report the engine produced.
"""

from __future__ import annotations

from pathlib import Path
from typing import IO

from .. import backends
from ..errors import StoreError
from ..native import run as native_run
from ..native.sync import SyncReport
from ..portable import export, load, markdown
from ..portable.export import Counts
from ..portable.load import LoadReport
from ..portable.paths import PathMap
from ..store import Store
from ..transcripts import discover


def import_native(claude_dir: str | None = None, codex_home: str | None = None, project: str | None = None,
                  memory_dir: Path | None = None, backend: str | None = None) -> SyncReport:
    """Read Claude Code auto memory, CLAUDE.md layers and Codex memories as sources."""
    roots = native_run.Roots(discover.claude_dir(claude_dir), discover.codex_home(codex_home), project, memory_dir)
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
