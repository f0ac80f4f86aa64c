"""The store remembers which embedder made its vectors; another one is refused until reembed."""

from __future__ import annotations

import array
from pathlib import Path

import pytest
from loreline import pipeline, vectors
from loreline.distill.rules import RulesDistiller
from loreline.embed import HashingEmbedder
from loreline.errors import StoreError
from loreline.recall import recall
from loreline.samples.builder import ClaudeSession
from loreline.store import Store
from loreline.vectors import EMBEDDER_KEY

from tests.test_cli import cli


def _import(store: Store, tmp_path: Path) -> None:
    s = ClaudeSession("/work/v")
    s.user("In this repo we use pnpm, never npm.")
    s.user("The fix was to pin openssl to 3.0 in the Dockerfile.")
    pipeline.import_sessions(store, [(s.write(tmp_path / "s.jsonl"), None)], pipeline.Options(RulesDistiller()))


def test_the_store_is_stamped_and_another_embedder_is_refused(tmp_path: Path) -> None:
    with Store() as store:
        _import(store, tmp_path)
        assert store.meta(EMBEDDER_KEY).startswith("minilm-")  # the default embedder
        other = HashingEmbedder(dim=256)
        other.fingerprint = "hashing-v2-256"
        with pytest.raises(StoreError, match="loreline reembed"):
            recall(store, "pnpm", "/work/v", embedder=other)
        assert vectors.reembed(store, other) == 2
        assert store.meta(EMBEDDER_KEY) == "hashing-v2-256"
        assert [h.memory.text for h in recall(store, "pnpm", "/work/v", embedder=other)][0].startswith("In this repo")


def test_reembed_rewrites_the_vectors(tmp_path: Path, loreline_home: Path) -> None:
    with Store() as store:
        _import(store, tmp_path)
        store.conn.execute("UPDATE memory_vec SET embedding = ? WHERE memory_id = 1", (array.array("f", [0.0] * 256).tobytes(),))
    out = cli(loreline_home, "reembed").stdout
    assert "Re-embedded 2 memories with minilm-" in out
    with Store() as store:
        vector = array.array("f", store.scalar("SELECT embedding FROM memory_vec WHERE memory_id = 1"))
    assert any(vector)


def test_a_store_made_before_the_sentence_model_keeps_its_vectors_until_reembed(tmp_path: Path,
                                                                                 loreline_home: Path) -> None:
    """An upgrade never breaks recall: with no embedder configured, a store stamped by the
    hashing embedder goes on with it; status says what `reembed` would do, and reembed does it."""
    loreline_home.mkdir(parents=True, exist_ok=True)
    config = loreline_home / "config.toml"
    config.write_text('[embed]\nmodel = "hashing"\n')
    with Store() as store:
        _import(store, tmp_path)
        assert store.meta(EMBEDDER_KEY) == "hashing-v1-256"
    config.unlink()
    assert "pnpm" in cli(loreline_home, "recall", "pnpm", "--project", "/work/v").stdout
    status = cli(loreline_home, "status").stdout
    assert "embedder hashing-v1-256" in status and "`loreline reembed` moves the vectors to minilm-" in status
    done = cli(loreline_home, "reembed")
    assert "Re-embedded 2 memories with minilm-" in done.stdout and "2 memories re-embedded" in done.stderr
    with Store() as store:
        assert store.meta(EMBEDDER_KEY).startswith("minilm-")
        assert len(store.scalar("SELECT embedding FROM memory_vec WHERE memory_id = 1")) == 384 * 4
        hits = recall(store, "which package manager", "/work/v")
    assert hits and "pnpm" in hits[0].memory.text
    assert "moves the vectors" not in cli(loreline_home, "status").stdout
