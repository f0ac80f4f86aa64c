"""`loreline export`: the store (or one project of it) as JSONL records, or as Markdown.

JSONL, one record a line:
- first a header: `{"record": "loreline-export", "version": 1, "exported_at", "projects", ...}`;
- `{"record": "memory", ...every column..., "provenance": [...], "files": [...]}` in id order
  (every status, every version: `root_id` and `replaces` name other memories' `id`s);
- `{"record": "conflicts" | "tombstones" | "audit", ...every column...}`.

Machine-local state (the ledger, replay keys, the capture queue, usage, vectors) is not
exported: vectors and full-text rows are rebuilt on import. Characters a terminal would obey
are written as JSON escapes; to a terminal, held memories' text, excerpts and audit details are
left out (a file keeps them, for `import memories`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import orjson

from ..privacy.gate import WITHHELD
from ..records import record

from .. import __version__
from ..store import Store
from ..store import portable as tables
from ..store.memories import now

FORMAT = "loreline-export"
VERSION = 1


@record
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


# what orjson leaves raw and a terminal would obey (DEL, C1 controls, line separators, bidi
# overrides and isolates), as UTF-8: written as JSON escapes instead, the same JSON
_RAW_RE = re.compile(rb"\x7f|\xc2[\x80-\x9f]|\xe2\x80[\xa8\xa9\xaa-\xae]|\xe2\x81[\xa6-\xa9]")


def _escaped(match: re.Match[bytes]) -> bytes:
    return b"\\u%04x" % ord(match.group().decode("utf-8"))


def write_jsonl(store: Store, project: str | None, out: Any, *, withhold_held: bool = False) -> Counts:
    """Write the export to a binary file object; returns what it held. `withhold_held` (a
    terminal): the text, excerpts and audit details of held memories are left out."""
    seen = {"memory": 0, "conflicts": 0, "tombstones": 0, "audit": 0}
    held: set[int] = set()
    for record in records(store, project):
        if withhold_held:
            record = _withheld(record, held)
        out.write(_RAW_RE.sub(_escaped, orjson.dumps(record)) + b"\n")
        kind = str(record["record"])
        if kind in seen:
            seen[kind] += 1
    return Counts(seen["memory"], seen["conflicts"], seen["tombstones"], seen["audit"])


def _withheld(record: dict[str, Any], held: set[int]) -> dict[str, Any]:
    """A record with held text withheld (memories come before the audit rows that name them)."""
    if record["record"] == "memory" and record.get("status") == "held":
        held.add(int(record["id"]))
        reason = str(record.get("hold_reason") or "").split(":", 1)[0]  # the kind, not the words it quotes
        return {**record, "text": WITHHELD, "hold_reason": reason or None, "provenance": [{**p, "excerpt": WITHHELD}
                                                           for p in record.get("provenance") or []]}
    if record["record"] == "audit" and record.get("memory_id") in held:
        return {**record, "before": None, "after": None}
    return record
