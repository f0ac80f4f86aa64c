"""`loreline import memories FILE.jsonl`: an export read back into this store.

Invariants:
- the whole file is read and checked before anything is written: a malformed line is one
  error naming its line number, and the store is untouched;
- everything is written in one transaction;
- idempotent: a row whose natural key (`store.portable.NATURAL_KEYS`) is already here is
  kept as it is; a second import of the same file writes nothing;
- lossless: every column of every exported row is written (columns this store lacks are
  the only thing dropped, and the report says which); ids are kept when free, so an import
  into an empty store reproduces the source ids; references (versions, conflicts, audit)
  are remapped when they are not;
- `--project` keeps one project; `--map FROM=TO` rewrites project keys, session paths and
  absolute file paths; vectors and full-text rows are rebuilt for the memories added;
- a file is not trusted: every record passes the gate a transcript import passes
  (`privacy.gate`): texts and fields lose hidden characters and secrets, and a memory the gate
  would hold arrives held, whatever status the file claims (one a person approved on the other
  machine waits for approval here too).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import orjson

from .. import vectors
from ..embed import Embedder, default_embedder
from ..errors import LorelineError
from ..privacy import gate
from ..privacy.identifiers import stored
from ..records import field, record
from ..store import Store, search
from ..store import memories as rows
from ..store import portable as tables
from .export import FORMAT, VERSION
from .paths import PathMap

_CHILD = ("provenance", "files")
#: columns whose values are numbers, hashes or times: never text a person or a model reads
_PLAIN_COLUMNS = frozenset(("id", "content_hash", "version", "root_id", "replaces", "created_at", "updated_at",
                            "observed_at", "valid_until", "pinned", "confirmed_at", "replay_key", "at", "memory_id",
                            "conflict_id", "line_start", "line_end", "a", "b", "decided_at"))
#: columns that name something (a project, a path, a tool, a session): cleaned as identifiers
_NAME_COLUMNS = frozenset(("project", "session_path", "path", "tool", "session_id", "extractor", "confirmed_by",
                           "kind", "scope", "status", "actor", "action", "decided_by", "resolution"))


@record(frozen=False)
class LoadReport:
    memories: int = 0
    provenance: int = 0
    files: int = 0
    conflicts: int = 0
    tombstones: int = 0
    audit: int = 0
    already: int = 0
    skipped_other_projects: int = 0
    dropped_columns: set[str] = field(default_factory=set)

    @property
    def changed(self) -> bool:
        return any((self.memories, self.provenance, self.files, self.conflicts, self.tombstones, self.audit))


def read(path: Path) -> list[dict[str, Any]]:
    """The file's records, checked: a JSON object per line, the export header first."""
    try:
        raw = path.read_bytes()
    except OSError as err:
        raise LorelineError(f"cannot read {path}: {err.strerror or err}") from None
    out: list[dict[str, Any]] = []
    for number, line in enumerate(raw.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError:
            raise LorelineError(f"{path}:{number}: not a JSON line; nothing was imported") from None
        if not isinstance(record, dict) or not isinstance(record.get("record"), str):
            raise LorelineError(f"{path}:{number}: not a Loreline export record; nothing was imported")
        out.append(record)
    _check_header(path, out)
    return out


def _check_header(path: Path, records: list[dict[str, Any]]) -> None:
    if not records or records[0].get("record") != FORMAT:
        raise LorelineError(f"{path} is not a Loreline export (`loreline export` writes one); nothing was imported")
    if records[0].get("version") != VERSION:
        raise LorelineError(f"{path} is export version {records[0].get('version')}; this Loreline reads "
                            f"version {VERSION}")
    for number, record in enumerate(records[1:], start=2):
        kind = record["record"]
        if kind == "memory":
            missing = [k for k in ("id", "project", "kind", "text", "content_hash", "created_at") if k not in record]
            if missing:
                raise LorelineError(f"{path}: record {number} (a memory) lacks {', '.join(missing)}; "
                                    "nothing was imported")
        elif kind not in ("conflicts", "tombstones", "audit"):
            raise LorelineError(f"{path}: record {number} has an unknown kind {kind!r}; nothing was imported")


def load(store: Store, records: list[dict[str, Any]], *, project: str | None = None,
         paths: PathMap = PathMap(), embedder: Embedder | None = None) -> LoadReport:
    """Write the records into the store (one transaction)."""
    embedder = embedder or default_embedder(store)
    vectors.ensure(store, embedder)
    report = LoadReport()
    body = [_mapped(r, paths) for r in records[1:]]
    keep = [r for r in body if project is None or r.get("project", project) == project or r["record"] == "audit"]
    report.skipped_other_projects = sum(1 for r in body if r["record"] == "memory") - \
        sum(1 for r in keep if r["record"] == "memory")
    with store.write():
        ids = _memories(store, [r for r in keep if r["record"] == "memory"], report, embedder)
        conflict_ids = _conflicts(store, [r for r in keep if r["record"] == "conflicts"], ids, report)
        for tomb in (r for r in keep if r["record"] == "tombstones"):
            report.tombstones += _plain(store, "tombstones", tomb, report)
        _audit(store, [r for r in keep if r["record"] == "audit"], ids, conflict_ids, project, report)
        if report.changed:
            rows.audit(store, "import", "import-export", None,
                       after={"memories": report.memories, "provenance": report.provenance,
                              "conflicts": report.conflicts, "audit": report.audit})
    return report


def _gated(record: dict[str, Any]) -> dict[str, Any]:
    """A record through the gate: names and texts without hidden characters or secrets; a
    memory the gate would hold is held."""
    out = {key: _cleaned(key, value) for key, value in record.items()}
    if out["record"] != "memory":
        return out
    out["provenance"] = [{k: _cleaned(k, v) for k, v in p.items()} if isinstance(p, dict) else p
                         for p in out.get("provenance") or []]
    out["files"] = [_cleaned("path", f) for f in out.get("files") or []]
    admitted = gate.admit(str(record["text"]))
    out["text"] = admitted.text
    status = out.get("status", "active")
    if status not in ("active", "superseded", "forgotten", "held"):
        out["status"], out["hold_reason"] = "held", f"imported with an unknown status {str(status)[:40]!r}"
    elif admitted.hold is not None and status in ("active", "held"):
        out["status"], out["hold_reason"] = "held", out.get("hold_reason") if status == "held" else admitted.hold
    if out.get("status") == "held" and not out.get("hold_reason"):
        out["hold_reason"] = admitted.hold or "imported held"
    return out


def _cleaned(key: str, value: Any) -> Any:
    if not isinstance(value, str) or key in _PLAIN_COLUMNS or key == "record":
        return value
    if key == "project":
        return stored(value)
    return gate.field(value) if key in _NAME_COLUMNS else gate.clean(value)


def _mapped(record: dict[str, Any], paths: PathMap) -> dict[str, Any]:
    out = _gated(record)
    if "project" in out and isinstance(out["project"], str):
        out["project"] = paths.apply(out["project"])
    if out["record"] == "memory":
        out["provenance"] = [{**p, "session_path": paths.apply(p.get("session_path"))}
                             for p in out.get("provenance") or []]
        out["files"] = [paths.apply(f) if isinstance(f, str) and f.startswith(("/", "\\")) else f
                        for f in out.get("files") or []]
    return out


def _memories(store: Store, memories: list[dict[str, Any]], report: LoadReport,
              embedder: Embedder) -> dict[int, int]:
    """Insert the memories not here yet; returns source id → id here."""
    known = tables.columns(store, "memories")
    ids: dict[int, int] = {}
    added: list[dict[str, Any]] = []
    for record in sorted(memories, key=lambda r: int(r["id"])):
        row = {k: v for k, v in record.items() if k not in ("record", *_CHILD)}
        row["content_hash"] = rows.content_hash(str(row["text"]))
        report.dropped_columns |= set(row) - set(known)
        found = tables.find(store, "memories", row)
        if found is not None:
            ids[int(record["id"])] = found
            report.already += 1
            continue
        ids[int(record["id"])] = tables.insert(store, "memories", {**row, "root_id": None, "replaces": None}, known)
        added.append(record)
        report.memories += 1
    for record in added:
        here = ids[int(record["id"])]
        root = ids.get(int(record["root_id"])) if record.get("root_id") is not None else None
        replaces = ids.get(int(record["replaces"])) if record.get("replaces") is not None else None
        tables.set_chain(store, here, root or here, replaces)
        search.put_vector(store, here, embedder.embed(rows.embedded_text(str(record["text"]),
                                                                         str(record.get("cues") or ""))))
        vectors.put_cues(store, here, embedder, str(record.get("cues") or ""))
    for record in memories:
        _children(store, ids[int(record["id"])], record, report)
    return ids


def _children(store: Store, memory_id: int, record: dict[str, Any], report: LoadReport) -> None:
    prov_columns = tables.columns(store, "provenance")
    for prov in record.get("provenance") or []:
        row = {**prov, "memory_id": memory_id}
        if tables.find(store, "provenance", row) is None:
            tables.insert(store, "provenance", row, prov_columns)
            report.provenance += 1
    for path in record.get("files") or []:
        row = {"memory_id": memory_id, "path": path}
        if tables.find(store, "memory_files", row) is None:
            tables.insert(store, "memory_files", row, ("memory_id", "path"))
            report.files += 1


def _conflicts(store: Store, conflicts: list[dict[str, Any]], ids: dict[int, int], report: LoadReport) -> dict[int, int]:
    known = tables.columns(store, "conflicts")
    out: dict[int, int] = {}
    for record in conflicts:
        if int(record["a"]) not in ids or int(record["b"]) not in ids:
            continue  # a side outside the import's scope
        row = {k: v for k, v in record.items() if k != "record"}
        row["a"], row["b"] = ids[int(record["a"])], ids[int(record["b"])]
        found = tables.find(store, "conflicts", row)
        if found is None:
            found = tables.insert(store, "conflicts", row, known)
            report.conflicts += 1
        out[int(record["id"])] = found
    return out


def _plain(store: Store, table: str, record: dict[str, Any], report: LoadReport) -> int:
    row = {k: v for k, v in record.items() if k != "record"}
    if tables.find(store, table, row) is not None:
        return 0
    tables.insert(store, table, row, tables.columns(store, table))
    return 1


def _audit(store: Store, audit: Iterable[dict[str, Any]], ids: dict[int, int], conflict_ids: dict[int, int],
           project: str | None, report: LoadReport) -> None:
    known = tables.columns(store, "audit")
    for record in audit:
        row = {k: v for k, v in record.items() if k != "record"}
        memory, conflict = row.get("memory_id"), row.get("conflict_id")
        if project is not None and memory not in ids and conflict not in conflict_ids:
            continue
        row["memory_id"] = ids.get(int(memory), memory) if memory is not None else None
        row["conflict_id"] = conflict_ids.get(int(conflict), conflict) if conflict is not None else None
        if tables.find(store, "audit", row) is None:
            tables.insert(store, "audit", row, known)
            report.audit += 1
