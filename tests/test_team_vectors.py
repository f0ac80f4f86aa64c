"""Received memories keep the vector they arrived with, against a real PostgreSQL + pgvector
server and the real default (sentence) embedder: a row made by this machine's embedder is not
embedded again, and the vector stored here is exactly the one embedding its text gives; a row
of another embedder, another width or without a vector is embedded here."""

from __future__ import annotations

import random
from array import array
from pathlib import Path

import pytest

from loreline.beliefs import curate
from loreline.embed import Embedder, default_embedder
from loreline.recall import recall
from loreline.store import Store, teamsync
from loreline.store import memories as rows
from loreline.store.team import TeamStore, vector_bytes, vector_text
from loreline.store.team.changes import SharedMemory, SharedSource, changes_after, publish
from loreline.team.sync import SyncReport, sync
from tests.team_fixtures import pg, team_dsn  # noqa: F401
from tests.team_helpers import import_said, make_repo, memory_id, settings

pytestmark = pytest.mark.slow  # a real PostgreSQL + pgvector server

SSH = "git@github.com:acme/billing.git"
REMOTE = "github.com/acme/billing"
LOCKS = "We decided to use advisory locks for billing jobs because each job needs exactly one worker."
PNPM = "In this repo we use pnpm, never npm."
QUEUE = "We decided to route the invoice queue through one broker because ordering matters for refunds."
BY_MEANING = "which package manager?"  # no word in common with PNPM: its vector ranks it first


class Counting:
    """The embedder it wraps, recording every text it is asked to embed."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.fingerprint = inner.fingerprint
        self.dim = inner.dim
        self.texts: list[str] = []

    def embed(self, text: str) -> bytes:
        self.texts.append(text)
        return self.inner.embed(text)


def _unit(rng: random.Random, width: int) -> bytes:
    values = [rng.gauss(0.0, 1.0) for _ in range(width)]
    norm = sum(v * v for v in values) ** 0.5
    return array("f", (v / norm for v in values)).tobytes()


def _pull(store: Store, project: str, dsn: str, embedder: Embedder) -> SyncReport:
    return sync(store, settings(dsn, "raj"), embedder=embedder, projects=(project,))


def _local_vector(store: Store, text: str) -> bytes | None:
    return teamsync.vector_of(store, memory_id(store, text))


def _first_by_meaning(store: Store, project: str, embedder: Embedder) -> str:
    """The text of the first hit for `BY_MEANING`, which the vectors rank first (the question's
    category, package manager, reaches it by the glossary's cue words too)."""
    first = recall(store, BY_MEANING, project, embedder=embedder)[0]
    assert first.vec_rank == 1
    return first.memory.text


def test_a_vector_goes_to_the_server_and_back_bit_for_bit(team_dsn: str) -> None:
    rng = random.Random(7)
    vectors = [_unit(rng, 384) for _ in range(20)]
    vectors.append(array("f", [1e-30, -3.4e38, 0.1, *([0.0] * 381)]).tobytes())
    assert all(vector_bytes(vector_text(v) or "") == v for v in vectors)  # the text form alone
    memories = [(SharedMemory(f"kim:{i}", REMOTE, "kim", "kim", "decision", f"memory {i}", f"h{i}", "active", 1,
                              None, "rules@1"), v, "test384-v1") for i, v in enumerate(vectors)]
    with TeamStore(team_dsn) as team:
        publish(team, REMOTE, memories)
        pulled = changes_after(team, REMOTE, 0)
    assert [(m.embedder, m.embedding) for m in pulled] == [("test384-v1", v) for v in vectors]


def test_a_memory_made_by_the_same_embedder_is_not_embedded_again(tmp_path: Path, team_dsn: str) -> None:
    embedder = default_embedder()
    assert embedder.fingerprint.startswith("minilm-") and embedder.dim == 384  # the real sentence model
    ana_project = make_repo(tmp_path / "ana" / "billing", SSH)
    raj_project = make_repo(tmp_path / "raj" / "billing", SSH)
    with Store(tmp_path / "ana.db") as ana, Store(tmp_path / "raj.db") as raj:
        import_said(ana, ana_project, [LOCKS, PNPM, QUEUE], tmp_path, "ana-1")
        sync(ana, settings(team_dsn, "ana", share="all"), projects=(ana_project,))
        counting = Counting(embedder)
        report = _pull(raj, raj_project, team_dsn, counting)
        assert report.outcomes == {"added": 3}
        assert counting.texts == []  # every received vector was the one this machine would make
        for text in (LOCKS, PNPM, QUEUE):
            assert _local_vector(raj, text) == embedder.embed(text)  # bit for bit
        assert _first_by_meaning(raj, raj_project, embedder) == PNPM

        edited = "We decided to use advisory locks for billing and payout jobs because each job needs one worker."
        curate.edit(ana, memory_id(ana, LOCKS), edited)
        sync(ana, settings(team_dsn, "ana", share="all"), projects=(ana_project,))
        assert _pull(raj, raj_project, team_dsn, counting).outcomes == {"edited": 1}
        assert counting.texts == []
        assert _local_vector(raj, edited) == embedder.embed(edited)


def test_a_memory_of_another_embedder_or_width_or_without_a_vector_is_embedded_here(
        tmp_path: Path, team_dsn: str) -> None:
    embedder = default_embedder()
    rng = random.Random(3)
    # kim's rows: another 384-wide embedder; this embedder's name on a 256-wide vector; no vector
    arriving = {PNPM: (_unit(rng, 384), "other384-v2"), LOCKS: (_unit(rng, 256), embedder.fingerprint),
                QUEUE: (None, None)}
    source = SharedSource("claude-code", "s-1", 3, 4, "an excerpt", "2026-11-02T09:00:00Z")
    with TeamStore(team_dsn) as team:
        publish(team, REMOTE, [
            (SharedMemory(f"kim:{i}", REMOTE, "kim", "kim", "decision", text, rows.content_hash(text), "active", 1,
                          "2026-11-02T09:00:00Z", "rules@1", (source,)), vector, fingerprint)
            for i, (text, (vector, fingerprint)) in enumerate(arriving.items())])
        assert [(m.embedder, m.embedding is not None) for m in changes_after(team, REMOTE, 0)] == [
            ("other384-v2", True), (embedder.fingerprint, True), (None, False)]
    raj_project = make_repo(tmp_path / "raj" / "billing", SSH)
    counting = Counting(embedder)
    with Store(tmp_path / "raj.db") as raj:
        assert _pull(raj, raj_project, team_dsn, counting).outcomes == {"added": 3}
        assert sorted(counting.texts) == sorted(arriving)  # each embedded here, once
        for text in arriving:
            assert _local_vector(raj, text) == embedder.embed(text)
        assert _first_by_meaning(raj, raj_project, embedder) == PNPM
