"""Sync: this machine's store and the team store, both ways, incrementally.

Push: the audit rows written since the last push (`team.pushed_audit`) name the chains
that changed (all of them after a change of the `team.share` policy); each becomes its shared row, a tombstone, or nothing (`publish.outgoing`).
The out-links are recorded before the server is written and the push cursor moves only
after the server committed, so a crash or a dropped connection at any point is followed by
a push of the same chains again, which the server treats as a no-op (`changes.publish`).

Pull: per remote project, the rows with `seq` above the local cursor, a batch at a time;
each batch is applied and the cursor moved in one local transaction, so a pull interrupted
anywhere resumes after the last batch it finished, and applying a row twice changes nothing.

While the server is down, nothing here touches the local store's own data: capture and
recall keep working, and the next sync catches up from the cursors.
"""

from __future__ import annotations


from .. import beliefs
from ..embed import Embedder, default_embedder
from ..errors import TeamUnreachableError
from ..records import field, record
from ..store import Store, teamsync
from ..store import memories as rows
from ..store.memories import now
from ..store.team import TeamStore
from ..store.team import changes
from ..store.teamsync import Link
from . import publish, receive
from .remote import remote_for
from .settings import TeamSettings, password

PUSH_BATCH = 200


@record(frozen=False)
class SyncReport:
    """What one sync changed: rows the server took (unchanged re-sends are not counted) and
    what the received rows did here (belief outcomes, edits, forgets)."""

    pushed: int = 0
    retracted: int = 0
    withdrawn: int = 0
    pulled: int = 0
    outcomes: dict[str, int] = field(default_factory=dict)
    remotes: list[str] = field(default_factory=list)

    def line(self) -> str:
        got = ", ".join(f"{n} {k}" for k, n in sorted(self.outcomes.items())) or "nothing new"
        return (f"team sync: {len(self.remotes)} project(s); published {self.pushed}, forgotten {self.retracted}, "
                f"withdrawn {self.withdrawn}; "
                f"received {self.pulled} ({got})")


def open_team(settings: TeamSettings) -> TeamStore:
    return TeamStore(settings.dsn, password(settings.dsn))


def register(store: Store, settings: TeamSettings, extra: tuple[str, ...] = ()) -> dict[str, str]:
    """Local project key → shared id for every local project that has one (recorded as cursors)."""
    projects = rows.projects(store, project_scope_only=True)
    known = {project: remote for remote, project, _ in teamsync.cursors(store)}
    found: dict[str, str] = {}
    for project in [*extra, *projects]:
        remote = known.get(project) or remote_for(project, settings.remote)
        if remote:
            found.setdefault(project, remote)
    fresh = {p: r for p, r in found.items() if p not in known}
    if fresh:
        with store.write():
            for project, remote in fresh.items():
                teamsync.add_cursor(store, remote, project)
    return {project: remote for remote, project, _ in teamsync.cursors(store)}


def sync(store: Store, settings: TeamSettings, *, embedder: Embedder | None = None,
         judge: beliefs.Judge | None = None, team: TeamStore | None = None,
         projects: tuple[str, ...] = ()) -> SyncReport:
    """Push then pull every registered project; TeamUnreachableError when the server is away."""
    embedder = embedder or default_embedder(store)
    me = teamsync.origin(store)
    remotes = register(store, settings, projects)
    report = SyncReport(remotes=sorted(set(remotes.values())))
    own = team is None
    try:
        team = team or open_team(settings)
        push(store, team, me, settings, remotes, embedder, report)
        for remote, project, cursor in teamsync.cursors(store):
            pull(store, team, me, remote, project, cursor, embedder, judge, report)
    except TeamUnreachableError as err:
        _note(store, "team.last_error", str(err))
        raise
    finally:
        if own and team is not None:
            team.close()
    _note(store, "team.last_sync", now())
    _note(store, "team.last_error", "")
    return report


def push(store: Store, team: TeamStore, me: str, settings: TeamSettings, remotes: dict[str, str],
         embedder: Embedder, report: SyncReport) -> None:
    after, upto = teamsync.meta_int(store, "team.pushed_audit"), teamsync.last_audit(store)
    if store.meta("team.share_policy") != settings.share:
        after = 0  # a new policy may publish (or retract) chains nothing touched since: look at all of them
    if upto <= after:
        return
    by_remote: dict[str, list[changes.SharedMemory]] = {}
    for root in teamsync.touched_roots(store, after, upto):
        versions = teamsync.chain(store, root)
        remote = remotes.get(versions[0].project) if versions else None
        row = publish.outgoing(store, root, remote, me, settings) if remote else None
        if row is not None:
            by_remote.setdefault(row.project, []).append(row)
    for remote, rows in by_remote.items():
        for start in range(0, len(rows), PUSH_BATCH):
            _send(store, team, remote, rows[start:start + PUSH_BATCH], embedder, report)
    _note(store, "team.pushed_audit", str(upto))
    _note(store, "team.share_policy", settings.share)


def _send(store: Store, team: TeamStore, remote: str, rows: list[changes.SharedMemory], embedder: Embedder,
          report: SyncReport) -> None:
    with store.write():
        for row in rows:
            root = int(row.uid.rsplit(":", 1)[1])
            teamsync.put_link(store, Link(row.uid, remote, root, row.author, "out", row.content_hash, row.status))
    fingerprint = store.meta("embedder") or embedder.fingerprint
    payload = [(row, _vector(store, row), fingerprint) for row in rows]
    changed = changes.publish(team, remote, payload)
    report.pushed += sum(1 for r in rows if r.uid in changed and r.status == "active")
    report.retracted += sum(1 for r in rows if r.uid in changed and r.status == "forgotten")
    report.withdrawn += sum(1 for r in rows if r.uid in changed and r.status == "superseded")


def _vector(store: Store, row: changes.SharedMemory) -> bytes | None:
    root = int(row.uid.rsplit(":", 1)[1])
    current = next((v for v in teamsync.chain(store, root) if v.status == "active"), None)
    return teamsync.vector_of(store, current.id) if current is not None else None


def pull(store: Store, team: TeamStore, me: str, remote: str, project: str, cursor: int, embedder: Embedder,
         judge: beliefs.Judge | None, report: SyncReport) -> None:
    while True:
        rows = changes.changes_after(team, remote, cursor)
        if not rows:
            return
        items = receive.prepare(store, rows, project, me, embedder, judge)
        with store.write():
            for item in items:
                outcome = receive.apply(store, item, project, embedder)
                report.outcomes[outcome] = report.outcomes.get(outcome, 0) + 1
            teamsync.set_cursor(store, remote, rows[-1].seq)
        report.pulled += len(items)
        cursor = rows[-1].seq


def _note(store: Store, key: str, value: str) -> None:
    with store.write():
        store.set_meta(key, value)
