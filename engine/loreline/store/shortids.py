"""Short ids, the way git shortens object names: as many leading characters as it takes to
tell an id apart from every other id of its kind the store holds, never fewer than
`MIN_LENGTH`.

Codex names its sessions with time-ordered UUIDs, so two sessions of the same minute share
their first eight characters; a fixed cut would show them as one. `unique_prefix` is the
rule; `sessions` applies it to session ids (those of every source and of every imported
session file). An id's longest common prefix with any other id is its longest with one of
its two neighbours in sorted order, so only those are read, through the indexes: the cost is
the same for ten sessions or a hundred thousand.

Every surface shows what this module works out (`Provenance.session_label`, filled when
`memories.load` reads a memory's sources): the CLI, the language server, the MCP server.
"""

from __future__ import annotations

from collections.abc import Iterable
from os.path import commonprefix

from . import Store

MIN_LENGTH = 8

_NEIGHBOURS = (
    "SELECT max(session_id) FROM provenance WHERE session_id < :id "
    "UNION ALL SELECT min(session_id) FROM provenance WHERE session_id > :id "
    "UNION ALL SELECT max(session_id) FROM ledger WHERE session_id < :id "
    "UNION ALL SELECT min(session_id) FROM ledger WHERE session_id > :id"
)


def unique_prefix(ident: str, others: Iterable[str], minimum: int = MIN_LENGTH) -> str:
    """The shortest prefix of `ident` (at least `minimum` characters, or all of it) that none
    of `others` starts with; the whole id when another id starts with all of it."""
    length = minimum
    for other in others:
        if other != ident:
            length = max(length, len(commonprefix((ident, other))) + 1)
    return ident[:length]


def sessions(store: Store, ids: Iterable[str]) -> dict[str, str]:
    """Each session id with its shortest unique prefix among the sessions the store holds."""
    out: dict[str, str] = {}
    for ident in set(ids):
        if len(ident) <= MIN_LENGTH:
            out[ident] = ident
            continue
        neighbours = [row[0] for row in store.rows(_NEIGHBOURS, {"id": ident}) if row[0] is not None]
        out[ident] = unique_prefix(ident, neighbours)
    return out
