"""A person's own changes to memories: forget, edit, pin, and reading a version chain.

Invariants:
- `forget` marks the memory (and every version of it) `forgotten` and records a tombstone
  of each wording in its project, so no later import can bring it back;
- `edit` never rewrites a memory in place: it adds a new version (same root, `replaces` the
  old one) and supersedes the old one, setting its `valid_until`;
- every change leaves an audit row with the state before and after.
"""

from __future__ import annotations

from typing import Any

from .. import vectors
from ..embed import Embedder, default_embedder
from ..errors import LorelineError
from ..models import Memory
from ..store import Store
from ..store import memories as rows
from ..store import search


def _snapshot(memory: Memory) -> dict[str, Any]:
    return {"status": memory.status, "text": memory.text, "pinned": memory.pinned,
            "valid_until": memory.valid_until, "version": memory.version}


def chain(store: Store, memory_id: int) -> list[Memory]:
    """Every version of the memory's chain, oldest first."""
    memory = rows.get(store, memory_id)
    root = memory.root_id or memory.id
    return rows.load(store, rows.chain_ids(store, root))


def forget(store: Store, memory_id: int, actor: str = "user") -> list[int]:
    """Forget a memory and all its versions; returns the ids that changed."""
    changed: list[int] = []
    with store.write():
        for version in chain(store, memory_id):
            rows.tombstone(store, version.project, version.text)
            if version.status == "forgotten":
                continue
            rows.forget(store, version.id)
            rows.audit(store, actor, "forget", version.id, before=_snapshot(version), after={"status": "forgotten"})
            changed.append(version.id)
    return changed


def pin(store: Store, memory_id: int, pinned: bool = True, actor: str = "user") -> Memory:
    memory = rows.get(store, memory_id)
    with store.write():
        rows.set_pinned(store, memory_id, pinned)
        rows.audit(store, actor, "pin" if pinned else "unpin", memory_id,
                   before={"pinned": memory.pinned}, after={"pinned": pinned})
    return rows.get(store, memory_id)


def edit(store: Store, memory_id: int, text: str, actor: str = "user",
         embedder: Embedder | None = None) -> Memory:
    """A new version with the person's wording; the old one is superseded."""
    old = rows.get(store, memory_id)
    text = " ".join(text.split())
    if not text:
        raise LorelineError("the new text is empty")
    if old.status != "active":
        raise LorelineError(f"memory #{memory_id} is {old.status}; only an active memory can be edited")
    with store.write():
        new_id = supersede_with(store, old, text, actor, embedder or default_embedder(store))
    return rows.get(store, new_id)


def set_cues(store: Store, memory_id: int, cues: str, actor: str = "user",
             embedder: Embedder | None = None, written_by: str | None = None) -> Memory:
    """Replace a memory's retrieval cues (the questions it answers and its topic words, one a
    line; empty: none) in place: they help recall find it and change nothing it says. Its
    vector is made again from the text with the new cues. A secret in a cue is redacted."""
    old = rows.get(store, memory_id)
    from ..privacy.redact import redact  # a secret typed into a cue is never stored

    lines = [" ".join(redact(line).split()) for line in cues.replace(";", "\n").splitlines()]
    cleaned = "\n".join(line for line in lines if line)
    if old.status not in ("active", "held"):
        raise LorelineError(f"memory #{memory_id} is {old.status}; only an active memory's cues can be edited")
    embedder = embedder or default_embedder(store)
    with store.write():
        rows.set_cues(store, memory_id, cleaned)
        search.put_vector(store, memory_id, embedder.embed(rows.embedded_text(old.text, cleaned)))
        vectors.put_cues(store, memory_id, embedder, cleaned)
        after: dict[str, Any] = {"cues": cleaned, **({"written_by": written_by} if written_by else {})}
        rows.audit(store, actor, "cues", memory_id, before={"cues": old.cues}, after=after)
    return rows.get(store, memory_id)


def supersede_with(store: Store, old: Memory, text: str, actor: str, embedder: Embedder,
                   kind: str | None = None, action: str = "edit", details: dict[str, Any] | None = None,
                   vector: bytes | None = None) -> int:
    """Add the next version of `old` with `text` and supersede `old` (inside a transaction);
    `vector` is `embedder`'s vector of `text` when the caller already has it."""
    stamp = rows.now()
    new_id = rows.insert(store, rows.NewMemory(
        project=old.project, kind=kind or old.kind, text=text, observed_at=stamp, extractor=f"{actor}",
        scope=old.scope, version=old.version + 1, root_id=old.root_id or old.id, replaces=old.id, cues=old.cues,
    ))
    rows.copy_sources(store, new_id, old.id, stamp)
    rows.set_status(store, old.id, "superseded", stamp)
    search.put_vector(store, new_id, embedder.embed(rows.embedded_text(text, old.cues)) if vector is None else vector)
    search.copy_cue_vectors(store, old.id, new_id)  # the new version keeps the cues
    rows.audit(store, actor, action, new_id, before=_snapshot(old),
               after={"text": text, "replaces": old.id, **(details or {})})
    return new_id
