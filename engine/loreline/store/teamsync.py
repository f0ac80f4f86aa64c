"""The local side of team sync: links, cursors, approvals and the chain reads sync needs.

- `team_links`: one row per shared chain this machine knows (uid on the server ↔ local root
  id), with its author and direction (`out`: published from here, `in`: a teammate's);
- `team_cursors`: per remote project, the last server change applied here and the local
  project key its memories land in;
- `team_shares`: chains a person approved for sharing;
- meta `team.origin` (this machine's random id), `team.pushed_audit` (the last audit row
  already considered for publishing: the push cursor), `team.last_*` (status).

Writers expect to run inside `Store.write()`.
"""

from __future__ import annotations

from typing import Any

from ..records import record
from . import Store
from .memories import now

TEAM_PREFIX = "team:"


@record
class Link:
    uid: str
    remote: str
    root_id: int | None
    author: str
    direction: str
    content_hash: str
    status: str


@record
class ChainRow:
    id: int
    project: str
    scope: str
    kind: str
    text: str
    status: str
    version: int
    observed_at: str | None
    extractor: str
    pinned: bool
    cues: str = ""


def origin(store: Store) -> str:
    """This machine's id in the team (made once, kept in the store)."""
    found = store.meta("team.origin")
    if found:
        return found
    import uuid  # here: it loads platform, which `loreline status` (reading the team's state) never needs

    with store.write():
        found = store.meta("team.origin") or uuid.uuid4().hex[:16]
        store.set_meta("team.origin", found)
    return found


def meta_int(store: Store, key: str) -> int:
    value = store.meta(key)
    return int(value) if value and value.isdigit() else 0


def touched_roots(store: Store, after: int, upto: int) -> list[int]:
    """Chains with an audit row in (after, upto]: what changed since the last push (both sides
    of a conflict that was recorded, resolved or reverted count as changed)."""
    return [int(r[0]) for r in store.rows(
        "SELECT DISTINCT coalesce(m.root_id, m.id) FROM memories m WHERE m.id IN ("
        " SELECT memory_id FROM audit WHERE id > ?1 AND id <= ?2"
        " UNION SELECT c.a FROM audit a JOIN conflicts c ON c.id = a.conflict_id WHERE a.id > ?1 AND a.id <= ?2"
        " UNION SELECT c.b FROM audit a JOIN conflicts c ON c.id = a.conflict_id WHERE a.id > ?1 AND a.id <= ?2"
        ") ORDER BY 1", (after, upto))]


def roots_of_projects(store: Store, projects: tuple[str, ...]) -> list[int]:
    marks = ",".join("?" * len(projects))
    return [int(r[0]) for r in store.rows(
        f"SELECT DISTINCT coalesce(root_id, id) FROM memories WHERE project IN ({marks}) ORDER BY 1", projects)]


def last_audit(store: Store) -> int:
    return int(store.scalar("SELECT coalesce(max(id), 0) FROM audit") or 0)


def chain(store: Store, root_id: int) -> list[ChainRow]:
    """Every version of a chain, newest first."""
    return [ChainRow(int(r[0]), r[1], r[2], r[3], r[4], r[5], int(r[6]), r[7], r[8], bool(r[9]), r[10] or "")
            for r in store.rows(
        "SELECT id, project, scope, kind, text, status, version, observed_at, extractor, pinned, cues FROM memories "
        "WHERE root_id = ? ORDER BY version DESC, id DESC", (root_id,))]


def local_sources(store: Store, memory_id: int, limit: int = 5) -> list[tuple[Any, ...]]:
    """A memory's sources from this machine's own sessions: (tool, session_id, start, end, excerpt, observed_at)."""
    return store.rows(
        "SELECT tool, session_id, line_start, line_end, excerpt, observed_at FROM provenance "
        "WHERE memory_id = ? AND session_path NOT LIKE 'team:%' ORDER BY observed_at, id LIMIT ?", (memory_id, limit))


def in_pending_conflict(store: Store, memory_id: int) -> bool:
    """Held: in a pending conflict with another memory of this machine's own sessions. (A
    conflict with a teammate's memory does not hold it: both sides keep seeing both.)"""
    return store.one(
        "SELECT 1 FROM conflicts c WHERE c.status = 'pending' AND (c.a = ?1 OR c.b = ?1) AND EXISTS ("
        " SELECT 1 FROM provenance p WHERE p.memory_id = CASE WHEN c.a = ?1 THEN c.b ELSE c.a END"
        " AND p.session_path NOT LIKE 'team:%')", (memory_id,)) is not None


def vector_of(store: Store, memory_id: int) -> bytes | None:
    value = store.scalar("SELECT embedding FROM memory_vec WHERE memory_id = ?", (memory_id,))
    return bytes(value) if value is not None else None


def is_shared(store: Store, root_id: int) -> bool:
    return store.one("SELECT 1 FROM team_shares WHERE root_id = ?", (root_id,)) is not None


def share(store: Store, root_id: int) -> bool:
    store.conn.execute("INSERT OR IGNORE INTO team_shares(root_id, shared_at) VALUES(?, ?)", (root_id, now()))
    return bool(store.conn.changes() > 0)


def unshare(store: Store, root_id: int) -> bool:
    store.conn.execute("DELETE FROM team_shares WHERE root_id = ?", (root_id,))
    return bool(store.conn.changes() > 0)


_LINK = "uid, remote, root_id, author, direction, content_hash, status"


def link(store: Store, uid: str) -> Link | None:
    row = store.one(f"SELECT {_LINK} FROM team_links WHERE uid = ?", (uid,))
    return Link(*row) if row else None


def out_link(store: Store, root_id: int) -> Link | None:
    row = store.one(f"SELECT {_LINK} FROM team_links WHERE root_id = ? AND direction = 'out'", (root_id,))
    return Link(*row) if row else None


def put_link(store: Store, found: Link) -> None:
    store.conn.execute(
        f"INSERT INTO team_links({_LINK}, updated_at) VALUES(?,?,?,?,?,?,?,?) ON CONFLICT(uid) DO UPDATE SET "
        "root_id = excluded.root_id, author = excluded.author, content_hash = excluded.content_hash, "
        "status = excluded.status, updated_at = excluded.updated_at",
        (found.uid, found.remote, found.root_id, found.author, found.direction, found.content_hash, found.status,
         now()))


def cursors(store: Store) -> list[tuple[str, str, int]]:
    """(remote, local project, pulled) for every remote project this machine syncs."""
    return [(str(r[0]), str(r[1]), int(r[2])) for r in store.rows(
        "SELECT remote, project, pulled FROM team_cursors ORDER BY remote")]


def add_cursor(store: Store, remote: str, project: str) -> None:
    store.conn.execute("INSERT OR IGNORE INTO team_cursors(remote, project, pulled, updated_at) VALUES(?,?,0,?)",
                       (remote, project, now()))


def set_cursor(store: Store, remote: str, pulled: int) -> None:
    store.conn.execute("UPDATE team_cursors SET pulled = ?, updated_at = ? WHERE remote = ? AND pulled < ?",
                       (pulled, now(), remote, pulled))


def retire(store: Store, memory_id: int, reason: str) -> bool:
    """Mark an active memory superseded (a teammate withdrew it); False when it was not active."""
    stamp = now()
    store.conn.execute("UPDATE memories SET status = 'superseded', valid_until = ?, updated_at = ? "
                       "WHERE id = ? AND status = 'active'", (stamp, stamp, memory_id))
    if store.conn.changes() == 0:
        return False
    from .memories import audit

    audit(store, "import", "team-withdraw", memory_id, before={"status": "active"},
          after={"status": "superseded", "reason": reason})
    return True


def revive(store: Store, memory_id: int) -> None:
    """Make a memory a teammate had withdrawn active again (they published it once more)."""
    store.conn.execute("UPDATE memories SET status = 'active', valid_until = NULL, updated_at = ? "
                       "WHERE id = ? AND status = 'superseded'", (now(), memory_id))
    from .memories import audit

    audit(store, "import", "team-republish", memory_id, before={"status": "superseded"}, after={"status": "active"})


def tombstone(store: Store, project: str, digest: str) -> None:
    store.conn.execute("INSERT OR IGNORE INTO tombstones(project, content_hash, created_at) VALUES(?,?,?)",
                       (project, digest, now()))


def authors(store: Store, memory_ids: list[int]) -> dict[int, str]:
    """Teammates behind memories that came from the team: memory id → authors, comma-separated."""
    if not memory_ids:
        return {}
    marks = ",".join("?" * len(memory_ids))
    out: dict[int, list[str]] = {}
    for mid, author in store.rows(
        f"SELECT m.id, l.author FROM memories m JOIN team_links l ON l.root_id = coalesce(m.root_id, m.id) "
        f"WHERE m.id IN ({marks}) AND l.direction = 'in' ORDER BY l.author", tuple(memory_ids)):
        names = out.setdefault(int(mid), [])
        if author not in names:
            names.append(str(author))
    return {k: ", ".join(v) for k, v in out.items()}


def counts(store: Store) -> dict[str, int]:
    row = store.one("SELECT (SELECT count(*) FROM team_links WHERE direction = 'out' AND status != 'forgotten'), "
                    "(SELECT count(*) FROM team_links WHERE direction = 'in' AND status = 'active'), "
                    "(SELECT count(*) FROM team_shares)")
    assert row is not None
    return {"published": int(row[0]), "received": int(row[1]), "approved": int(row[2])}
