"""`loreline export`: the store (or one project of it) as JSONL records, or as Markdown.

JSONL, one record a line:
- first a header: `{"record": "loreline-export", "version": 1, "exported_at", "projects", ...}`;
- `{"record": "memory", ...every column..., "provenance": [...], "files": [...]}` in id order
  (every status, every version: `root_id` and `replaces` name other memories' `id`s);
- `{"record": "conflicts" | "tombstones" | "audit", ...every column...}`.

Machine-local state (the ledger, replay keys, the capture queue, usage, vectors) is not
exported: vectors and full-text rows are rebuilt on import.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import orjson

from .. import __version__
from ..store import Store
from ..store import portable as tables
from ..store.memories import now

FORMAT = "loreline-export"
VERSION = 1


@dataclass(frozen=True, slots=True)
class Counts:
    memories: int
    conflicts: int
    tombstones: int
    audit: int


def records(store: Store, project: str | None) -> Iterator[dict[str, Any]]:
    """The export's records in writing order (the header first)."""
    memories = tables.dump(store, "memories", project or None)
    ids = [int(m["id"]) for m in memories]
    conflicts = tables.dump(store, "conflicts", project or None)
    yield {"record": FORMAT, "version": VERSION, "loreline": __version__, "exported_at": now(),
           "projects": sorted({str(m["project"]) for m in memories} | ({project} if project else set())),
           "scope": "project" if project else "all"}
    provenance = _by_memory(tables.dump(store, "provenance", project or None))
    files = _by_memory(tables.dump(store, "memory_files", project or None))
    for memory in memories:
        yield {"record": "memory", **memory, "provenance": provenance.get(int(memory["id"]), []),
               "files": [f["path"] for f in files.get(int(memory["id"]), [])]}
    for conflict in conflicts:
        yield {"record": "conflicts", **conflict}
    for tomb in tables.dump(store, "tombstones", project or None):
        yield {"record": "tombstones", **tomb}
    for row in _audit(store, project, ids, [int(c["id"]) for c in conflicts]):
        yield {"record": "audit", **row}


def _by_memory(rows: list[dict[str, Any]]) -> dict[int, list[dict[str, Any]]]:
    out: dict[int, list[dict[str, Any]]] = {}
    for row in rows:
        memory_id = int(row.pop("memory_id"))
        out.setdefault(memory_id, []).append(row)
    return out


def _audit(store: Store, project: str | None, ids: list[int], conflict_ids: list[int]) -> list[dict[str, Any]]:
    if project is None:
        return tables.dump(store, "audit")
    wanted = set(ids)
    conflicts = set(conflict_ids)
    return [row for row in tables.dump(store, "audit")
            if row.get("memory_id") in wanted or row.get("conflict_id") in conflicts]


def write_jsonl(store: Store, project: str | None, out: Any) -> Counts:
    """Write the export to a binary file object; returns what it held."""
    seen = {"memory": 0, "conflicts": 0, "tombstones": 0, "audit": 0}
    for record in records(store, project):
        out.write(orjson.dumps(record) + b"\n")
        kind = str(record["record"])
        if kind in seen:
            seen[kind] += 1
    return Counts(seen["memory"], seen["conflicts"], seen["tombstones"], seen["audit"])
