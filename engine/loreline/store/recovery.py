"""What to do when the store file is damaged: the steps `loreline status` prints.

Loreline keeps no copy of the store of its own; what it holds comes back from where it came
from: the sessions on disk (re-imported), the assistants' memory files, an export the person
made, the team server. The damaged file is moved aside, never deleted, so hand-made changes
(pins, edits, forgets) can still be salvaged from it.
"""

from __future__ import annotations

import shlex
from pathlib import Path


def headline(problem: str) -> str:
    """The one line saying the store is damaged (`problem`: the StoreCorruptError's line)."""
    return f"{problem.split('; move it aside', 1)[0]}: no session gets memories until it is replaced"


def steps(db: Path) -> list[str]:
    """How to recover from a damaged store at `db`, one step a line."""
    aside = db.with_name(db.name + ".damaged")
    extra = [db.with_name(db.name + s) for s in ("-wal", "-shm") if db.with_name(db.name + s).exists()]
    move = f"mv {shlex.quote(str(db))} {shlex.quote(str(aside))}"
    if extra:
        move += " && " + " && ".join(f"mv {shlex.quote(str(p))} {shlex.quote(str(aside) + p.name[len(db.name):])}"
                                     for p in extra)
    return [
        "To recover (Loreline keeps no copy of its own; it rebuilds from your sessions):",
        f"  1. move the damaged file aside (kept, not deleted):  {move}",
        "  2. rebuild from the sessions on disk:  loreline import sessions --tool all --days 3650 --sessions 100000",
        "  3. read the assistants' memory files again:  loreline import native",
        "  4. if you exported memories earlier (`loreline export -o FILE`):  loreline import memories FILE",
        "     with a team server connected:  loreline team sync",
        f"Pins, edits and forgets made by hand are only in the damaged file ({aside.name} after step 1).",
    ]
