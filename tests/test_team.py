"""The team store against a real PostgreSQL + pgvector server: schema, publishing rules,
provenance and authors, the belief pipeline on arrival, edits, forgets, outages."""

from __future__ import annotations

from pathlib import Path

import pytest

from loreline.beliefs import conflicts, curate
from loreline.errors import TeamError, TeamUnreachableError
from loreline.store import Store, teamsync
from loreline.store import memories as rows
from loreline.embed import HashingEmbedder, default_embedder
from loreline.store.team import VECTOR_WIDTHS, TeamStore, check_dsn
from loreline.store.team import search as team_search
from loreline.store.team.changes import SharedMemory, publish
from loreline.team import recall as team_recall
from loreline.team.remote import normalise, remote_for
from loreline.team.sync import SyncReport, sync
from tests.team_fixtures import pg, team_dsn  # noqa: F401
from tests.team_helpers import active_texts, import_said, make_repo, memory_id, server_text, settings

pytestmark = pytest.mark.slow  # a real PostgreSQL + pgvector server

SSH = "git@github.com:acme/billing.git"
HTTPS = "https://github.com/acme/billing"

LOCKS = "We decided to use advisory locks for billing jobs because each job needs exactly one worker."
PNPM = "In this repo we use pnpm, never npm."
PRIVATE = "We decided to keep the quarterly numbers in a private sheet because finance asked for it."


def test_ssh_and_https_forms_of_one_remote_are_one_project(tmp_path: Path) -> None:
    assert normalise(SSH) == normalise(HTTPS) == normalise("ssh://git@GitHub.com:22/acme/billing.git/") \
        == "github.com/acme/billing"
    assert normalise("https://ana@github.com/acme/billing.git") == "github.com/acme/billing"
    assert normalise("/srv/git/billing.git") is None
    ana = make_repo(tmp_path / "home" / "ana" / "src" / "billing", SSH)
    raj = make_repo(tmp_path / "Users" / "raj" / "work" / "billing", HTTPS)
    assert remote_for(ana) == remote_for(raj) == "github.com/acme/billing"
    assert remote_for(str(tmp_path / "no-git"), override="team/notes") == "team/notes"


def test_a_dsn_with_a_password_is_refused() -> None:
    for dsn in ("postgresql://ana:hunter2@db/loreline", "host=db user=ana password=hunter2 dbname=x",
                "postgresql://ana@db/loreline?sslmode=require&password=hunter2"):
        with pytest.raises(TeamError, match="holds a password"):
            check_dsn(dsn)
    assert check_dsn("postgresql://ana@db:5432/loreline") == "postgresql://ana@db:5432/loreline"


def test_the_schema_is_created_by_named_migrations_once(team_dsn: str) -> None:
    with TeamStore(team_dsn) as team:
        assert team.rows("SELECT name FROM loreline_migrations ORDER BY name") == [
            ("0001_team_initial",), ("0002_team_fts_by_project",), ("0003_team_vector_widths",),
            ("0004_team_cues",)]
        indexes = {r[0]: r[1] for r in team.rows("SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'memories'")}
    assert "gin" in indexes["memories_tsv"]
    assert {n for n, d in indexes.items() if "hnsw" in d} == {f"memories_vec_{w}" for w in VECTOR_WIDTHS}
    for width in VECTOR_WIDTHS:  # every width the code searches has its own partial index
        assert f"vector({width})" in indexes[f"memories_vec_{width}"]
        assert f"WHERE (vector_dims(embedding) = {width})" in indexes[f"memories_vec_{width}"]
    with TeamStore(team_dsn) as again:
        assert again.scalar("SELECT count(*) FROM loreline_migrations") == 4


def test_an_unreachable_server_is_one_line_and_the_local_store_keeps_working(tmp_path: Path) -> None:
    project = make_repo(tmp_path / "billing", SSH)
    with Store(tmp_path / "ana.db") as store:
        import_said(store, project, [LOCKS], tmp_path, "s1")
        teamsync_share_all(store)
        with pytest.raises(TeamUnreachableError, match="cannot reach the team server"):
            sync(store, settings("postgresql://ana@127.0.0.1:1/loreline", "ana"))
        assert active_texts(store, project) == [LOCKS]
        assert "cannot reach" in (store.meta("team.last_error") or "")


def teamsync_share_all(store: Store) -> None:
    with store.write():
        for (mid,) in store.rows("SELECT id FROM memories"):
            teamsync.share(store, int(mid))


def go(store: Store, project: str, dsn: str, author: str) -> SyncReport:
    """One sync from a machine whose session runs in `project` (as `loreline team sync` there)."""
    return sync(store, settings(dsn, author), projects=(project,))


def _two_machines(tmp_path: Path) -> tuple[Store, str, Store, str]:
    ana_project = make_repo(tmp_path / "home" / "ana" / "src" / "billing", SSH)
    raj_project = make_repo(tmp_path / "Users" / "raj" / "work" / "billing", HTTPS)
    return Store(tmp_path / "ana.db"), ana_project, Store(tmp_path / "raj.db"), raj_project


def test_only_approved_project_memories_leave_and_arrive_with_author_and_provenance(
        tmp_path: Path, team_dsn: str) -> None:
    ana, ana_project, raj, raj_project = _two_machines(tmp_path)
    import_said(ana, ana_project, [LOCKS, PNPM, PRIVATE], tmp_path, "ana-1")
    with ana.write():
        teamsync.share(ana, memory_id(ana, LOCKS))
        teamsync.share(ana, memory_id(ana, PNPM))
        personal = rows.insert(ana, rows.NewMemory("(user)", "preference", "I always use vim keybindings.", None,
                                                   "user", scope="user"))
        teamsync.share(ana, personal)
        rows.audit(ana, "user", "add", personal)
    report = go(ana, ana_project, team_dsn, "ana")
    assert report.pushed == 2
    on_server = server_text(team_dsn)
    assert LOCKS in on_server and PNPM in on_server
    assert PRIVATE not in on_server and "vim keybindings" not in on_server
    assert str(tmp_path) not in on_server  # no local path of ana's

    got = go(raj, raj_project, team_dsn, "raj")
    assert got.outcomes == {"added": 2}
    assert active_texts(raj, raj_project) == sorted([LOCKS, PNPM])
    memory = rows.get(raj, memory_id(raj, LOCKS))
    assert memory.project == raj_project
    [source] = memory.provenance
    assert source.session_path == "team:ana" and source.tool == "claude-code"
    assert source.line_start >= 1 and LOCKS[:30] in source.excerpt
    assert teamsync.authors(raj, [memory.id]) == {memory.id: "ana"}
    assert go(raj, raj_project, team_dsn, "raj").pulled == 0  # incremental: nothing new, nothing re-read
    ana.close()
    raj.close()


def test_a_duplicate_becomes_one_memory_with_two_sources_and_a_reversal_a_conflict(
        tmp_path: Path, team_dsn: str) -> None:
    ana, ana_project, raj, raj_project = _two_machines(tmp_path)
    import_said(ana, ana_project, [LOCKS], tmp_path, "ana-1")
    import_said(raj, raj_project, [LOCKS], tmp_path, "raj-1")
    teamsync_share_all(ana)
    go(ana, ana_project, team_dsn, "ana")
    got = go(raj, raj_project, team_dsn, "raj")
    assert got.outcomes == {"merged": 1}
    [memory] = [m for m in rows.query(raj, rows.Filter(project=raj_project))[0]]
    assert {p.session_path for p in memory.provenance} == {"team:ana", memory.provenance[0].session_path} \
        and len(memory.provenance) == 2

    reverse = "Scrap that, from now on we use Redis locks for billing jobs because advisory locks deadlocked."
    import_said(ana, ana_project, [reverse], tmp_path, "ana-2", day=9)
    teamsync_share_all(ana)
    go(ana, ana_project, team_dsn, "ana")
    go(raj, raj_project, team_dsn, "raj")
    conflicts = raj.rows("SELECT a, b, status, resolution FROM conflicts")
    assert len(conflicts) == 1
    assert rows.get(raj, int(conflicts[0][1])).text == reverse
    ana.close()
    raj.close()


def test_edit_and_forget_propagate_and_a_secret_never_leaves(tmp_path: Path, team_dsn: str) -> None:
    ana, ana_project, raj, raj_project = _two_machines(tmp_path)
    import_said(ana, ana_project, [LOCKS, PNPM], tmp_path, "ana-1")
    teamsync_share_all(ana)
    go(ana, ana_project, team_dsn, "ana")
    go(raj, raj_project, team_dsn, "raj")
    edited = "We decided to use advisory locks for billing and payout jobs because each job needs one worker."
    curate.edit(ana, memory_id(ana, LOCKS), edited)
    curate.forget(ana, memory_id(ana, PNPM))
    report = go(ana, ana_project, team_dsn, "ana")
    assert (report.pushed, report.retracted) == (1, 1)
    got = go(raj, raj_project, team_dsn, "raj")
    assert got.outcomes == {"edited": 1, "forgotten": 1}
    assert active_texts(raj, raj_project) == [edited]
    assert raj.scalar("SELECT count(*) FROM tombstones WHERE project = ?", (raj_project,)) == 1
    on_server = server_text(team_dsn)
    assert PNPM not in on_server and edited in on_server  # the old wording stays only as its source's excerpt

    secret = "We decided to call billing with token ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8" + " because ops said so."
    curate.edit(ana, memory_id(ana, edited), secret)
    go(ana, ana_project, team_dsn, "ana")
    assert "ghp_" not in server_text(team_dsn)
    go(raj, raj_project, team_dsn, "raj")
    assert active_texts(raj, raj_project) == []  # the retracted memory is forgotten there too
    ana.close()
    raj.close()


def test_team_recall_fuses_full_text_and_vectors_and_names_the_author(tmp_path: Path, team_dsn: str) -> None:
    ana, ana_project, _raj, _ = _two_machines(tmp_path)
    import_said(ana, ana_project, [LOCKS, PNPM], tmp_path, "ana-1")
    teamsync_share_all(ana)
    go(ana, ana_project, team_dsn, "ana")
    with TeamStore(team_dsn) as team:
        hits = team_recall.recall(team, "which locks do billing jobs use?", "github.com/acme/billing")
        compound = "advisorylocks billingjobs"  # no word in common: only the vectors see the likeness
        lexical = team_search.fts(team, compound, "github.com/acme/billing", 10)
        embedder = default_embedder()  # the one that made ana's vectors
        nearest = team_search.knn(team, embedder.embed(compound), "github.com/acme/billing", 10,
                                  embedder.fingerprint)
        loaded = team_search.load(team, [uid for uid, _ in nearest])
    assert hits[0].text == LOCKS and hits[0].author == "ana"
    assert lexical == [] and loaded[nearest[0][0]][2] == LOCKS
    ana.close()


def test_cues_travel_with_a_memory_are_searched_there_and_a_cue_edit_propagates(tmp_path: Path,
                                                                               team_dsn: str) -> None:
    ana, ana_project, raj, raj_project = _two_machines(tmp_path)
    import_said(ana, ana_project, [LOCKS, PNPM], tmp_path, "ana-1")
    assert "javascript package manager" in rows.get(ana, memory_id(ana, PNPM)).cues  # the glossary's
    curate.set_cues(ana, memory_id(ana, LOCKS), "who takes the overnight baton?; job locking")
    teamsync_share_all(ana)
    go(ana, ana_project, team_dsn, "ana")
    with TeamStore(team_dsn) as team:
        hits = team_recall.recall(team, "who takes the overnight baton?", "github.com/acme/billing")
        lexical = team_search.fts(team, "baton", "github.com/acme/billing", 10)
        loaded = team_search.load(team, lexical)
    assert hits[0].text == LOCKS and [loaded[uid][2] for uid in lexical] == [LOCKS]  # by its cue words
    go(raj, raj_project, team_dsn, "raj")
    assert rows.get(raj, memory_id(raj, LOCKS)).cues == "who takes the overnight baton?\njob locking"

    curate.set_cues(ana, memory_id(ana, LOCKS), "which lock do billing jobs take?")
    assert go(ana, ana_project, team_dsn, "ana").pushed == 1
    assert go(raj, raj_project, team_dsn, "raj").outcomes == {"edited": 1}
    assert rows.get(raj, memory_id(raj, LOCKS)).cues == "which lock do billing jobs take?"
    assert active_texts(raj, raj_project) == sorted([LOCKS, PNPM])  # the text stays as it was
    ana.close()
    raj.close()


def test_a_wider_policy_publishes_what_was_already_there(tmp_path: Path, team_dsn: str) -> None:
    ana, ana_project, _raj, _ = _two_machines(tmp_path)
    import_said(ana, ana_project, [LOCKS, PNPM], tmp_path, "ana-1")
    assert go(ana, ana_project, team_dsn, "ana").pushed == 0  # nothing approved
    with ana.write():
        teamsync.share(ana, memory_id(ana, LOCKS))  # approved, but without an audit row of its own
    wider = sync(ana, settings(team_dsn, "ana", share="all"), projects=(ana_project,))
    assert wider.pushed == 2 and PNPM in server_text(team_dsn)
    narrower = sync(ana, settings(team_dsn, "ana", share="approved"), projects=(ana_project,))
    assert (narrower.pushed, narrower.retracted, narrower.withdrawn) == (0, 0, 1) and PNPM not in server_text(team_dsn)
    ana.close()


def test_a_withdrawn_memory_is_retired_not_forgotten_and_comes_back_when_shared_again(
        tmp_path: Path, team_dsn: str) -> None:
    ana, ana_project, raj, raj_project = _two_machines(tmp_path)
    import_said(ana, ana_project, [LOCKS, PNPM], tmp_path, "ana-1")
    import_said(raj, raj_project, [PNPM], tmp_path, "raj-1")
    teamsync_share_all(ana)
    go(ana, ana_project, team_dsn, "ana")
    go(raj, raj_project, team_dsn, "raj")
    assert active_texts(raj, raj_project) == sorted([LOCKS, PNPM])
    with ana.write():
        for text in (LOCKS, PNPM):
            teamsync.unshare(ana, memory_id(ana, text))
            rows.audit(ana, "user", "unshare", memory_id(ana, text))
    unshared = go(ana, ana_project, team_dsn, "ana")
    assert (unshared.retracted, unshared.withdrawn) == (0, 2)  # withdrawn, not forgotten
    assert LOCKS not in server_text(team_dsn)
    got = go(raj, raj_project, team_dsn, "raj")
    assert got.outcomes == {"withdrawn": 1, "kept": 1}  # raj said PNPM too: his copy stays
    assert active_texts(raj, raj_project) == [PNPM]
    assert raj.scalar("SELECT count(*) FROM tombstones") == 0
    with ana.write():
        teamsync.share(ana, memory_id(ana, LOCKS))
        rows.audit(ana, "user", "share", memory_id(ana, LOCKS))
    go(ana, ana_project, team_dsn, "ana")
    assert go(raj, raj_project, team_dsn, "raj").outcomes == {"restored": 1}
    assert active_texts(raj, raj_project) == sorted([LOCKS, PNPM])
    assert raj.scalar("SELECT count(*) FROM memories WHERE text = ?", (LOCKS,)) == 1
    ana.close()
    raj.close()


def test_a_memory_held_in_a_pending_conflict_is_withdrawn_until_it_is_resolved(
        tmp_path: Path, team_dsn: str) -> None:
    ana, ana_project, raj, raj_project = _two_machines(tmp_path)
    import_said(ana, ana_project, [LOCKS, PNPM], tmp_path, "ana-1")
    teamsync_share_all(ana)
    go(ana, ana_project, team_dsn, "ana")
    go(raj, raj_project, team_dsn, "raj")
    with ana.write():
        conflict = conflicts.record(ana, ana_project, memory_id(ana, PNPM), memory_id(ana, LOCKS), "a test pair")
    go(ana, ana_project, team_dsn, "ana")
    assert go(raj, raj_project, team_dsn, "raj").outcomes == {"withdrawn": 2}
    with ana.write():
        conflicts.resolve(ana, conflict, "keep_both")
    go(ana, ana_project, team_dsn, "ana")
    assert go(raj, raj_project, team_dsn, "raj").outcomes == {"restored": 2}
    assert active_texts(raj, raj_project) == sorted([LOCKS, PNPM])
    ana.close()
    raj.close()


def test_a_conflict_with_a_teammates_memory_holds_nothing_back(tmp_path: Path, team_dsn: str) -> None:
    ana, ana_project, raj, raj_project = _two_machines(tmp_path)
    import_said(ana, ana_project, [LOCKS], tmp_path, "ana-1")
    import_said(raj, raj_project, [PNPM], tmp_path, "raj-1")
    teamsync_share_all(ana)
    teamsync_share_all(raj)
    go(ana, ana_project, team_dsn, "ana")
    go(raj, raj_project, team_dsn, "raj")
    with raj.write():
        conflicts.record(raj, raj_project, memory_id(raj, LOCKS), memory_id(raj, PNPM), "a test pair")
    assert go(raj, raj_project, team_dsn, "raj").withdrawn == 0
    go(ana, ana_project, team_dsn, "ana")
    assert active_texts(ana, ana_project) == sorted([LOCKS, PNPM])
    ana.close()
    raj.close()


def test_a_project_with_a_small_share_of_the_team_table_still_gets_its_nearest_vectors(team_dsn: str) -> None:
    embedder = HashingEmbedder()

    def row(i: int, project: str, text: str) -> tuple[SharedMemory, bytes, str]:
        return (SharedMemory(f"o:{project}:{i}", project, "o", "ana", "decision", text, f"h{i}", "active", 1,
                             None, "rules@1"), embedder.embed(text), embedder.fingerprint)

    big = [row(i, "big/project", f"We decided to route queue {i} through broker {i % 17} because ordering matters.")
           for i in range(3000)]
    small = [row(i, "small/project", f"We picked colour theme {i} for dashboards because contrast helps reading.")
             for i in range(400)]
    with TeamStore(team_dsn) as team:
        publish(team, "big/project", big)
        publish(team, "small/project", small)
        team.conn.execute("ANALYZE memories")
        nearest = team_search.knn(team, embedder.embed("route the queue through a broker"), "small/project", 10,
                                  embedder.fingerprint)
        words_small = team_search.fts(team, "route the queue through a broker", "small/project", 10)
        words_big = team_search.fts(team, "route the queue through a broker", "big/project", 10)
    assert words_small == [] and len(words_big) == 10 and all(u.startswith("o:big/project:") for u in words_big)
    # the HNSW candidates are all the big project's (filtered away after the index search):
    # the exact scan of the project's own rows answers instead
    assert len(nearest) == 10 and all(uid.startswith("o:small/project:") for uid, _ in nearest)
