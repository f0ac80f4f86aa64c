"""The embedders behind recall's vector half: the configured one is used, a change of embedder
needs `loreline reembed`, and the optional static table reads the installed wheel offline."""

from __future__ import annotations

import subprocess
from array import array
from pathlib import Path

import pytest

from loreline.embed import HashingEmbedder, by_name, default_embedder
from loreline.embed import static
from tests.conftest import loreline_exe, subprocess_env

pytestmark = pytest.mark.slow  # embedder switches that re-embed whole stores in CLI processes


def cosine(a: bytes, b: bytes) -> float:
    return sum(x * y for x, y in zip(array("f", a), array("f", b)))


def test_the_default_is_minilm_and_the_config_picks_another(loreline_home: Path) -> None:
    assert default_embedder().fingerprint.startswith("minilm-")
    loreline_home.mkdir(parents=True, exist_ok=True)
    (loreline_home / "config.toml").write_text('[embed]\nmodel = "hashing"\n')
    assert default_embedder().fingerprint.startswith("hashing-")
    loreline_home.mkdir(parents=True, exist_ok=True)
    (loreline_home / "config.toml").write_text('[embed]\nmodel = "static"\n')
    if static.model_dir() is None:
        pytest.skip("the wordllama wheel is not installed (pip install 'loreline[static-embed]')")
    assert default_embedder().fingerprint.startswith("static-")


@pytest.mark.skipif(static.model_dir() is None, reason="the wordllama wheel is not installed")
def test_static_embedder_reads_the_installed_table_offline_and_relates_words() -> None:
    embedder = by_name("static")
    assert embedder.dim == 256 and isinstance(embedder, static.StaticEmbedder)
    query = embedder.embed("which package manager")
    related = embedder.embed("we install dependencies with pnpm, never npm")
    unrelated = embedder.embed("the cart total is rounded half-even")
    assert cosine(query, related) > cosine(query, unrelated)
    assert abs(cosine(related, related) - 1.0) < 1e-3
    assert not any(array("f", embedder.embed("")))  # nothing to embed: the zero vector
    assert HashingEmbedder().fingerprint != embedder.fingerprint


@pytest.mark.skipif(static.model_dir() is None, reason="the wordllama wheel is not installed")
def test_switching_embedder_asks_for_reembed_then_recall_works(loreline_home: Path, tmp_path: Path) -> None:
    from tests.capture_helpers import import_into_store, remembered_session

    folder = tmp_path / "shop"
    folder.mkdir()
    import_into_store(remembered_session(folder, tmp_path / "sessions")[1])
    (loreline_home / "config.toml").write_text('[embed]\nmodel = "static"\n')
    env = subprocess_env(loreline_home)
    refused = subprocess.run([loreline_exe(), "recall", "pnpm", "--project", str(folder)], capture_output=True,
                             text=True, env=env, timeout=60)
    assert refused.returncode != 0 and "loreline reembed" in refused.stderr
    done = subprocess.run([loreline_exe(), "reembed"], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    found = subprocess.run([loreline_exe(), "recall", "pnpm", "--project", str(folder)], capture_output=True,
                           text=True, env=env, timeout=60)
    assert found.returncode == 0 and "pnpm" in found.stdout
