"""`loreline recall` through the warm recall process, when one is running.

Recall by meaning needs the sentence model, and loading it (numpy, the weights) costs a command
about half a second. The warm recall process (`loreline_warm`, started by the assistants' hooks)
already holds it: `recall` sends it the question over its socket (`capture.warmsocket`) and reads
the memories it names from the store itself, so the hits are the ones `Loreline.recall` gives in
this process, with their provenance. No process, another version, a slow or odd answer: None,
and the caller recalls in-process.
"""

from __future__ import annotations

import json
import socket
import time
from typing import TYPE_CHECKING, Any

from .. import __version__
from ..capture import warmsocket

if TYPE_CHECKING:
    from ..models import RecallHit
    from .session import Loreline

DEADLINE = 2.0  #: seconds to wait for the answer; recalling in-process costs about this much
MAX_ANSWER = 4 << 20
MAX_LIMIT = 1000  #: `loreline_warm.server.MAX_RECALL`


def recall(lore: Loreline, project: str, query: str, *, limit: int, include_inactive: bool) -> list[RecallHit] | None:
    """The warm process's hits for `query`, or None when it gave none usable."""
    if not warmsocket.supported() or not 1 <= limit <= MAX_LIMIT:
        return None
    answer = _ask({"v": 1, "loreline": __version__, "op": "recall", "project": project, "query": query,
                   "limit": limit, "include_inactive": include_inactive})
    found = _hits(answer)
    if found is None:
        return None
    from ..models import RecallHit
    from ..store import memories as rows

    memories = {m.id: m for m in rows.load(lore.store, [memory_id for memory_id, *_ in found])}
    if len(memories) != len({memory_id for memory_id, *_ in found}):
        return None  # a memory went away between the answer and the read: ask again here
    return [RecallHit(memories[memory_id], score, fts, vec) for memory_id, score, fts, vec in found]


def _ask(request: dict[str, Any]) -> bytes | None:
    deadline = time.monotonic() + DEADLINE
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        client.settimeout(DEADLINE)
        warmsocket.connect(client, warmsocket.socket_path())
        client.sendall(json.dumps(request).encode("utf-8") + b"\n")
        return warmsocket.read_line(client, deadline, MAX_ANSWER)
    except (OSError, ValueError):
        return None
    finally:
        client.close()


def _hits(answer: bytes | None) -> list[tuple[int, float, int | None, int | None]] | None:
    try:
        data = json.loads(answer) if answer else None
    except ValueError:
        return None
    if not isinstance(data, dict) or data.get("ok") is not True or not isinstance(data.get("hits"), list):
        return None
    out: list[tuple[int, float, int | None, int | None]] = []
    for hit in data["hits"]:
        if not (isinstance(hit, list) and len(hit) == 4 and _whole(hit[0]) and isinstance(hit[1], (int, float))
                and not isinstance(hit[1], bool) and all(r is None or _whole(r) for r in hit[2:])):
            return None
        out.append((hit[0], float(hit[1]), hit[2], hit[3]))
    return out


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
