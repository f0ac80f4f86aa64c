"""The ledger: what of each session file has been imported, so re-imports cost nothing.

Per session path it records a watermark (a line count and the byte offset where that line
ends), the position 40 lines earlier (where context re-reading starts), a hash of every
byte up to the watermark, the file's size and mtime, and the policy that read it.

- unchanged: size and mtime equal (or the prefix hash equal) under the same policy →
  skipped after one lookup, no parsing, no model call;
- grown: the bytes up to the old watermark hash the same → resume from the context
  position; lines up to the old watermark are context only;
- rewritten: the prefix differs (or the policy changed) → reprocess from the start; exact
  merge, provenance uniqueness and replay keys keep that from duplicating anything.

The watermark only ever sits on a line boundary, and it is written in the same transaction
as the memories of the last chunk, so a crash re-reads rather than skips.
"""

from __future__ import annotations

import os
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from ..privacy.identifiers import stored
from .. import records
from . import Store
from .memories import now

if TYPE_CHECKING:  # importing the transcripts package loads every reader: `loreline status` only counts
    import hashlib

    from ..transcripts.jsonl import ReadPosition

_BLOCK = 1 << 20


class State(Enum):
    NEW = "new"
    UNCHANGED = "unchanged"
    GROWN = "grown"
    REWRITTEN = "rewritten"


@records.record
class Entry:
    session_path: str
    session_id: str
    tool: str
    project: str
    end: ReadPosition
    context: ReadPosition
    prefix_hash: str
    size: int
    mtime_ns: int
    policy: str


@records.record
class Prefix:
    """A hash of a file's first `offset` bytes, still open to more: a grown file's watermark
    hash continues from the prefix `check` verified instead of reading it all again."""

    offset: int
    digest: "hashlib.blake2b"


@records.record
class Check:
    state: State
    entry: Entry | None
    size: int
    mtime_ns: int
    verified: Prefix | None = None


def lookup(store: Store, path: str) -> Entry | None:
    row = store.one(
        "SELECT session_path, session_id, tool, project, line, offset, context_line, context_offset, "
        "prefix_hash, size, mtime_ns, policy FROM ledger WHERE session_path = ?",
        (stored(path),),
    )
    if row is None:
        return None
    from ..transcripts.jsonl import ReadPosition

    return Entry(row[0], row[1], row[2], row[3], ReadPosition(row[4], row[5]), ReadPosition(row[6], row[7]),
                 row[8], row[9], row[10], row[11])


def check(store: Store, path: Path, policy: str) -> Check:
    """Classify a session file against its ledger entry without parsing it."""
    stat = os.stat(path)
    entry = lookup(store, str(path))
    if entry is None:
        return Check(State.NEW, None, stat.st_size, stat.st_mtime_ns)
    if entry.policy != policy:
        return Check(State.REWRITTEN, entry, stat.st_size, stat.st_mtime_ns)
    if entry.size == stat.st_size and entry.mtime_ns == stat.st_mtime_ns:
        return Check(State.UNCHANGED, entry, stat.st_size, stat.st_mtime_ns)
    if stat.st_size < entry.end.offset:
        return Check(State.REWRITTEN, entry, stat.st_size, stat.st_mtime_ns)
    prefix = hash_prefix(path, entry.end.offset)
    if prefix.digest.hexdigest() != entry.prefix_hash:
        return Check(State.REWRITTEN, entry, stat.st_size, stat.st_mtime_ns)
    state = State.UNCHANGED if stat.st_size == entry.size else State.GROWN
    return Check(state, entry, stat.st_size, stat.st_mtime_ns, prefix)


def hash_prefix(path: Path, length: int, known: Prefix | None = None) -> Prefix:
    """The hash of the first `length` bytes, continuing from `known` when it covers less."""
    import hashlib  # here: it loads OpenSSL, which counting the ledger's rows does not need

    start = known if known is not None and known.offset <= length else None
    digest = start.digest.copy() if start else hashlib.blake2b(digest_size=20)
    with open(path, "rb") as handle:
        handle.seek(start.offset if start else 0)
        _feed(digest, handle, length - (start.offset if start else 0))
    return Prefix(length, digest)


def prefix_hash(path: Path, length: int, known: Prefix | None = None) -> str:
    return hash_prefix(path, length, known).digest.hexdigest()


def _feed(digest: "hashlib.blake2b", handle: BinaryIO, length: int) -> None:
    left = length
    while left > 0:
        block = handle.read(min(_BLOCK, left))
        if not block:
            break
        digest.update(block)
        left -= len(block)


def record(store: Store, entry: Entry) -> None:
    """Write the watermark (inside the caller's transaction)."""
    store.conn.execute(
        "INSERT INTO ledger(session_path, session_id, tool, project, line, offset, context_line, context_offset, "
        "prefix_hash, size, mtime_ns, policy, updated_at) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?) "
        "ON CONFLICT(session_path) DO UPDATE SET session_id=excluded.session_id, tool=excluded.tool, "
        "project=excluded.project, line=excluded.line, offset=excluded.offset, context_line=excluded.context_line, "
        "context_offset=excluded.context_offset, prefix_hash=excluded.prefix_hash, size=excluded.size, "
        "mtime_ns=excluded.mtime_ns, policy=excluded.policy, updated_at=excluded.updated_at",
        (stored(entry.session_path), stored(entry.session_id), entry.tool, stored(entry.project), entry.end.line,
         entry.end.offset,
         entry.context.line, entry.context.offset, entry.prefix_hash, entry.size, entry.mtime_ns, entry.policy, now()),
    )


def touch(store: Store, path: str, size: int, mtime_ns: int) -> None:
    """Remember a new mtime for a file whose bytes did not change."""
    store.conn.execute("UPDATE ledger SET size = ?, mtime_ns = ?, updated_at = ? WHERE session_path = ?",
                       (size, mtime_ns, now(), stored(path)))


def project_sessions(store: Store, project: str, other_than: str, limit: int) -> list[tuple[str, str]]:
    """(path, tool) of the project's other sessions, most recently first recorded first."""
    rows = store.rows("SELECT session_path, tool FROM ledger WHERE project = ? AND session_path != ? "
                      "ORDER BY rowid DESC LIMIT ?", (project, stored(other_than), limit))
    return [(str(path), str(tool)) for path, tool in rows]


def sessions(store: Store) -> int:
    """How many sessions the ledger knows."""
    return int(store.scalar("SELECT count(*) FROM ledger") or 0)


def last_update(store: Store) -> str | None:
    """When any session was last imported."""
    found = store.scalar("SELECT max(updated_at) FROM ledger")
    return None if found is None else str(found)
