"""One machine of the team simulation, run as its own process with its own LORELINE_HOME.

    python -m tests.team_writer INDEX PROJECT_DIR DSN WORKDIR

Phase 1 imports a session, approves what should be shared and syncs (WORKDIR/first-INDEX);
after WORKDIR/go2 appears, phase 2 forgets one shared memory, edits another, and edits a third
into a secret. Between phases and afterwards it syncs, retrying
while the server is away, until WORKDIR/stop appears; then it syncs once more and writes
WORKDIR/result-INDEX.json (the project's active memories here).
"""

from __future__ import annotations

import json
import secrets
import sys
import time
from pathlib import Path

from loreline.beliefs import curate
from loreline.errors import TeamError
from loreline.store import Store, teamsync
from loreline.store import memories as rows
from loreline.team.sync import sync
from tests.team_helpers import import_said, memory_id, settings

COMMON = "We decided to use advisory locks for billing jobs because each job needs exactly one worker."


def texts(i: int) -> dict[str, str]:
    return {
        "shared": f"We decided to keep service {i} on port {8000 + i} because the gateway expects it.",
        "private": f"We decided writer {i} keeps notes in zeta{i} because they are personal.",
        "personal": f"I always use kappa{i} keybindings.",
        "forget": f"We decided to log tau{i} events because audits need them.",
        "secret": f"We decided to ship omega{i} builds on Fridays because QA is free then.",
        "edited": f"We decided to keep service {i} on port {9000 + i} because the new gateway expects it.",
    }


def sync_until_done(store: Store, project: str, dsn: str, author: str) -> int:
    failures = 0
    while True:
        try:
            sync(store, settings(dsn, author), projects=(project,))
            return failures
        except TeamError:
            failures += 1
            time.sleep(0.2)


def phase_one(store: Store, i: int, project: str, work: Path) -> None:
    t = texts(i)
    import_said(store, project, [COMMON, t["shared"], t["private"], t["forget"], t["secret"]], work, f"s{i}")
    with store.write():
        for key in ("shared", "forget", "secret"):
            teamsync.share(store, memory_id(store, t[key]))
        rows.audit(store, "user", "share", memory_id(store, COMMON))
        teamsync.share(store, memory_id(store, COMMON))
        personal = rows.insert(store, rows.NewMemory(project, "preference", t["personal"], None, "user",
                                                     scope="user"))
        teamsync.share(store, personal)  # approved by mistake: user scope still never leaves
        rows.audit(store, "user", "add", personal)


def phase_two(store: Store, i: int) -> str:
    t = texts(i)
    curate.forget(store, memory_id(store, t["forget"]))
    curate.edit(store, memory_id(store, t["shared"]), t["edited"])
    token = "ghp_" + secrets.token_hex(18)
    curate.edit(store, memory_id(store, t["secret"]), f"{t['secret'][:-1]} with token {token}.")
    return token


def main() -> int:
    i, project, dsn, work = int(sys.argv[1]), sys.argv[2], sys.argv[3], Path(sys.argv[4])
    author = f"dev{i}"
    with Store() as store:
        phase_one(store, i, project, work)
        failures = sync_until_done(store, project, dsn, author)
        (work / f"first-{i}").write_text("done")
        while not (work / "go2").exists():
            time.sleep(0.05)
        token = phase_two(store, i)
        failures += sync_until_done(store, project, dsn, author)
        (work / f"phase-{i}").write_text("done")
        while not (work / "stop").exists():
            failures += sync_until_done(store, project, dsn, author)
            time.sleep(0.3)
        failures += sync_until_done(store, project, dsn, author)
        active = [str(r[0]) for r in store.rows(
            "SELECT text FROM memories WHERE project = ? AND status = 'active' AND scope = 'project'", (project,))]
        authors = teamsync.authors(store, [memory_id(store, COMMON)])
        held = [str(r[0]) for r in store.rows(
            "SELECT text FROM memories WHERE project = ? AND status = 'held' AND scope = 'project'", (project,))]
    result = {"active": active, "held": held, "token": token, "failures": failures, "common_authors": authors}
    (work / f"result-{i}.json").write_text(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
