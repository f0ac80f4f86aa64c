"""Vectors of two widths in one team table, against a real PostgreSQL + pgvector server: 384-wide
rows go in, come out and are recalled; a query meets only rows of its own embedder and width;
the planner reaches each width's partial index; a team database made before widths existed is
migrated with its vectors intact."""

from __future__ import annotations

import hashlib
import math
import re
from array import array

import pytest

from loreline.embed import Embedder, HashingEmbedder
from loreline.errors import TeamError
from loreline.store.team import TeamStore, migrations, vector_text
from loreline.store.team import search as team_search
from loreline.store.team.changes import SharedMemory, SharedSource, changes_after, publish
from loreline.team import recall as team_recall
from tests.team_fixtures import pg, team_dsn  # noqa: F401

pytestmark = pytest.mark.slow  # a real PostgreSQL + pgvector server

PROJECT = "github.com/acme/billing"
LOCKS = "We decided to use advisory locks for billing jobs because each job needs exactly one worker."
PNPM = "In this repo we use pnpm, never npm."
QUEUE = "We route the invoice queue through one broker because ordering matters for refunds."


class Words384:
    """A deterministic 384-wide embedder for these tests: each word adds ±1 to a bucket picked by
    its hash, then the vector is scaled to unit length. Same words, same direction."""

    dim = 384

    def __init__(self, fingerprint: str = "test384-v1", salt: bytes = b"") -> None:
        self.fingerprint = fingerprint
        self._salt = salt

    def embed(self, text: str) -> bytes:
        values = [0.0] * self.dim
        for word in re.findall(r"\w+", text.lower()):
            h = int.from_bytes(hashlib.blake2b(self._salt + word.encode(), digest_size=8).digest(), "little")
            values[h % self.dim] += 1.0 if (h >> 32) & 1 else -1.0
        norm = math.sqrt(sum(v * v for v in values)) or 1.0
        return array("f", (v / norm for v in values)).tobytes()


def shared(uid: str, text: str, author: str = "ana", project: str = PROJECT) -> SharedMemory:
    source = SharedSource("claude-code", f"s-{uid}", 3, 4, text[:40], "2026-11-02T09:00:00Z")
    return SharedMemory(f"{author}:{uid}", project, author, author, "decision", text,
                        hashlib.sha256(text.encode()).hexdigest()[:32], "active", 1, "2026-11-02T09:00:00Z",
                        "rules@1", sources=(source,))


def put(team: TeamStore, embedder: Embedder, texts: dict[str, str], author: str = "ana",
        project: str = PROJECT) -> set[str]:
    return publish(team, project, [(shared(uid, text, author, project), embedder.embed(text), embedder.fingerprint)
                                   for uid, text in texts.items()])


def test_a_384_wide_embedders_memories_go_in_come_out_and_are_recalled(team_dsn: str) -> None:
    wide = Words384()
    with TeamStore(team_dsn) as team:
        assert put(team, wide, {"1": LOCKS, "2": PNPM}) == {"ana:1", "ana:2"}
        assert put(team, wide, {"1": QUEUE}, author="raj") == {"raj:1"}
        assert put(team, wide, {"1": LOCKS}) == set()  # the same state again changes nothing
        pulled = changes_after(team, PROJECT, 0)
        dims = team.rows("SELECT uid, vector_dims(embedding), embedder FROM memories ORDER BY uid")
        hits = team_recall.recall(team, "which locks do the billing jobs use", PROJECT, embedder=wide)
        nearest = team_search.knn(team, wide.embed("invoice queue broker ordering"), PROJECT, 10, wide.fingerprint)
    assert [(m.uid, m.text, m.sources[0].session_id) for m in pulled] == [
        ("ana:1", LOCKS, "s-1"), ("ana:2", PNPM, "s-2"), ("raj:1", QUEUE, "s-1")]
    assert dims == [("ana:1", 384, "test384-v1"), ("ana:2", 384, "test384-v1"), ("raj:1", 384, "test384-v1")]
    assert hits[0].text == LOCKS and hits[0].author == "ana"
    assert [uid for uid, _ in nearest][0] == "raj:1" and len(nearest) == 3
    distances = [d for _, d in nearest]
    assert distances == sorted(distances) and distances[0] < 0.5 < distances[-1]


def test_rows_of_two_widths_in_one_project_never_meet(team_dsn: str) -> None:
    narrow, wide, other_wide = HashingEmbedder(), Words384(), Words384("other384-v2", salt=b"x")
    texts = {str(i): f"We decided to keep service {i} on port {8000 + i} because the gateway expects it."
             for i in range(12)}
    with TeamStore(team_dsn) as team:
        put(team, narrow, {k: v for k, v in texts.items() if int(k) < 4}, author="ana")
        put(team, wide, {k: v for k, v in texts.items() if 4 <= int(k) < 8}, author="raj")
        put(team, other_wide, {k: v for k, v in texts.items() if int(k) >= 8}, author="kim")
        put(team, wide, {"x": texts["5"]}, author="raj", project="github.com/acme/other")
        query = "keep service 5 on its port for the gateway"
        by_wide = team_search.knn(team, wide.embed(query), PROJECT, 50, wide.fingerprint)
        by_other = team_search.knn(team, other_wide.embed(query), PROJECT, 50, other_wide.fingerprint)
        by_narrow = team_search.knn(team, narrow.embed(query), PROJECT, 50, narrow.fingerprint)
        # a 384-wide query under the 256-wide embedder's name finds nothing rather than failing
        crossed = team_search.knn(team, wide.embed(query), PROJECT, 50, narrow.fingerprint)
    assert {uid for uid, _ in by_wide} == {f"raj:{i}" for i in range(4, 8)} and by_wide[0][0] == "raj:5"
    assert {uid for uid, _ in by_other} == {f"kim:{i}" for i in range(8, 12)}
    assert {uid for uid, _ in by_narrow} == {f"ana:{i}" for i in range(4)}
    assert crossed == []


def test_a_width_the_table_does_not_hold_is_one_clear_error(team_dsn: str) -> None:
    odd = array("f", [1.0] * 512).tobytes()
    with TeamStore(team_dsn) as team:
        with pytest.raises(TeamError, match="vectors of 256 or 384 values, not 512"):
            team_search.knn(team, odd, PROJECT, 10, "test512-v1")
        with pytest.raises(TeamError, match="not 512"):
            publish(team, PROJECT, [(shared("1", LOCKS), odd, "test512-v1")])
        with pytest.raises(TeamError, match="not 96.25"):
            team_search.knn(team, odd[:385], PROJECT, 10, "test512-v1")
        assert team.scalar("SELECT count(*) FROM memories") == 0  # refused before anything was written


def _plan(team: TeamStore, embedder: Embedder, query: str, *, exact: bool = False) -> str:
    vec = vector_text(embedder.embed(query))
    sql = team_search.knn_sql(embedder.dim, exact=exact)
    return "\n".join(str(r[0]) for r in team.rows("EXPLAIN " + sql, (vec, PROJECT, embedder.fingerprint, vec, 10)))


def test_the_planner_reaches_the_partial_index_of_the_querys_width(team_dsn: str) -> None:
    narrow, wide = HashingEmbedder(), Words384()
    texts = {str(i): f"We decided to route queue {i} through broker {i % 17} because ordering matters."
             for i in range(1500)}
    query = "route queue 7 through a broker"
    with TeamStore(team_dsn) as team:
        put(team, narrow, texts, author="ana")
        put(team, wide, texts, author="raj")
        team.conn.execute("ANALYZE memories")
        plan_256, plan_384 = _plan(team, narrow, query), _plan(team, wide, query)
        exact = _plan(team, wide, query, exact=True)
        nearest = team_search.knn(team, wide.embed(query), PROJECT, 10, wide.fingerprint)
    assert "Index Scan using memories_vec_256" in plan_256 and "memories_vec_384" not in plan_256
    assert "Index Scan using memories_vec_384" in plan_384 and "memories_vec_256" not in plan_384
    assert "memories_vec_" not in exact  # the exact scan reads the rows, not an approximate index
    assert nearest[0][0] == "raj:7" and all(uid.startswith("raj:") for uid, _ in nearest)


def test_a_team_database_from_before_widths_keeps_its_vectors_and_takes_wider_ones(
        team_dsn: str, monkeypatch: pytest.MonkeyPatch) -> None:
    narrow, wide = HashingEmbedder(), Words384()
    with monkeypatch.context() as old:
        # a database from before widths (with the cue column the code writes today)
        old.setattr(migrations, "MIGRATIONS", [m for m in migrations.MIGRATIONS
                                               if m[0] < "0003" or m[0] == "0004_team_cues"])
        with TeamStore(team_dsn) as team:
            assert team.scalar("SELECT format_type(atttypid, atttypmod) FROM pg_attribute "
                               "WHERE attrelid = 'memories'::regclass AND attname = 'embedding'") == "vector(256)"
            put(team, narrow, {"1": LOCKS, "2": PNPM, "3": QUEUE})
            before = team.rows("SELECT uid, embedding::text FROM memories ORDER BY uid")
            file_before = team.scalar("SELECT pg_relation_filenode('memories')")
            with pytest.raises(TeamError, match="expected 256 dimensions"):
                put(team, wide, {"4": LOCKS}, author="raj")  # the old column holds one width only
    with TeamStore(team_dsn) as team:
        column = team.scalar("SELECT format_type(atttypid, atttypmod) FROM pg_attribute "
                             "WHERE attrelid = 'memories'::regclass AND attname = 'embedding'")
        after = team.rows("SELECT uid, embedding::text FROM memories ORDER BY uid")
        file_after = team.scalar("SELECT pg_relation_filenode('memories')")
        indexes = {r[0] for r in team.rows("SELECT indexname FROM pg_indexes WHERE tablename = 'memories'")}
        found = team_search.knn(team, narrow.embed("advisory locks for billing jobs"), PROJECT, 10,
                                narrow.fingerprint)
        assert put(team, wide, {"4": LOCKS}, author="raj") == {"raj:4"}
        wide_found = team_search.knn(team, wide.embed("advisory locks for billing jobs"), PROJECT, 10,
                                     wide.fingerprint)
        applied = [r[0] for r in team.rows("SELECT name FROM loreline_migrations ORDER BY name")]
    assert column == "vector" and after == before and len(before) == 3
    assert file_after == file_before  # the table was not rewritten, only its indexes
    assert {"memories_vec_256", "memories_vec_384"} <= indexes and "memories_vec" not in indexes
    assert [uid for uid, _ in found][0] == "ana:1" and {uid for uid, _ in found} == {"ana:1", "ana:2", "ana:3"}
    assert [uid for uid, _ in wide_found] == ["raj:4"]
    assert applied[-2:] == ["0003_team_vector_widths", "0004_team_cues"]
