"""What leaves this machine: the shared state of one local memory chain, or nothing.

A chain is published only when all of these hold for its current version:
- project scope (user-scope memories are personal), in a project with a shared id;
- approved by the person (`team share`), or allowed by the policy (`team.share`: pinned, all);
- active and not held in a pending conflict with another of this machine's memories;
- known from this machine's own sessions (a teammate's memory is theirs to publish);
- free of secrets: redaction runs again and a wording it would change is never sent.
Sources go with it as (tool, session id, lines, redacted excerpt): never a local path.

A chain published before that no longer qualifies is retracted, its text and sources wiped
from the server: forgotten here → status `forgotten` (a tombstone: teammates forget it too and
never re-import the wording); otherwise (unshared, held in a pending conflict, edited into
something private) → status `superseded`, "withdrawn": teammates retire their copy unless it is
also their own, and get it back if it is published again.
"""

from __future__ import annotations

from ..privacy.redact import contains_secret, redact
from ..store import Store, teamsync
from ..store.memories import content_hash
from ..store.team.changes import SharedMemory, SharedSource
from .settings import TeamSettings

EXCERPT_CHARS = 400


def outgoing(store: Store, root_id: int, remote: str, me: str, settings: TeamSettings) -> SharedMemory | None:
    """The row to publish for this chain, a tombstone to retract it, or None (nothing to send)."""
    versions = teamsync.chain(store, root_id)
    if not versions:
        return None
    current = next((v for v in versions if v.status == "active"), versions[0])
    link = teamsync.out_link(store, root_id)
    uid = link.uid if link else f"{me}:{root_id}"
    if current.status == "active" and _publishable(store, root_id, current, settings):
        sources = tuple(_source(*row) for row in teamsync.local_sources(store, current.id))
        return SharedMemory(uid, remote, me, settings.author, current.kind, current.text,
                            content_hash(current.text), "active", current.version, current.observed_at,
                            current.extractor, sources, cues=current.cues)
    status = "forgotten" if current.status == "forgotten" else "superseded"  # forgotten, or withdrawn
    if link is None or link.status == "forgotten" or link.status == status:
        return None
    return SharedMemory(uid, remote, me, settings.author, current.kind, "", link.content_hash, status,
                        current.version, None, current.extractor)


def _publishable(store: Store, root_id: int, current: teamsync.ChainRow, settings: TeamSettings) -> bool:
    if current.scope != "project" or contains_secret(current.text) or contains_secret(current.cues):
        return False
    if not _approved(store, root_id, current, settings.share):
        return False
    if teamsync.in_pending_conflict(store, current.id):
        return False
    return bool(teamsync.local_sources(store, current.id, limit=1))


def _approved(store: Store, root_id: int, current: teamsync.ChainRow, policy: str) -> bool:
    if policy == "all":
        return True
    if policy == "pinned" and current.pinned:
        return True
    return teamsync.is_shared(store, root_id)


def _source(tool: str, session_id: str, start: int, end: int, excerpt: str, observed_at: str | None) -> SharedSource:
    clean = redact(excerpt)
    if len(clean) > EXCERPT_CHARS:
        clean = clean[: EXCERPT_CHARS - 1] + "…"
    return SharedSource(tool, redact(session_id), int(start), int(end), clean, observed_at)
