"""The bundled sentence embedder: its tokenizer, its vectors, the glossary, and recall by meaning."""

from __future__ import annotations

import glob
import importlib.util
from array import array
from pathlib import Path

import pytest

from loreline.embed import by_name, concepts, default_embedder
from loreline.embed.minilm import DIM, VOCAB, MiniLMEmbedder
from loreline.embed.wordpiece import WordPiece
from loreline.models import Candidate, Evidence, Provenance
from loreline.recall import recall
from loreline.store import Store

ROOT = Path(__file__).resolve().parent


def cosine(a: bytes, b: bytes) -> float:
    return sum(x * y for x, y in zip(array("f", a), array("f", b)))


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    embedder = by_name("minilm")
    assert isinstance(embedder, MiniLMEmbedder)
    return embedder


@pytest.mark.skipif(importlib.util.find_spec("tokenizers") is None,
                    reason="the tokenizers library (dev extra, through wordllama) is not installed")
def test_word_pieces_match_the_reference_tokenizer_on_real_transcript_lines() -> None:
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors

    ours = WordPiece(VOCAB)
    vocab = {piece: i for i, piece in enumerate(VOCAB.read_text(encoding="utf-8").split("\n")[:-1])}
    reference = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]", max_input_chars_per_word=100))
    reference.normalizer = normalizers.BertNormalizer(clean_text=True, handle_chinese_chars=True, lowercase=True)
    reference.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    reference.post_processor = processors.BertProcessing(("[SEP]", vocab["[SEP]"]), ("[CLS]", vocab["[CLS]"]))
    lines = [line[:3000] for path in sorted(glob.glob(str(ROOT / "fixtures" / "real" / "**" / "*.jsonl"), recursive=True))
             for line in Path(path).read_text(encoding="utf-8", errors="replace").splitlines()[:40]]
    lines += ["Héllo Wörld! naïve café 東京 tab\there", "\u200bzero\u00a0width", "x" * 150, "émoji 🎉 and ½"]
    assert len(lines) > 300
    mismatched = [line[:80] for line in lines if ours.encode(line, 100_000) != reference.encode(line).ids]
    assert mismatched == []


def test_pieces_are_cut_at_the_model_length_with_the_categories_kept(minilm: MiniLMEmbedder) -> None:
    model = minilm._load()
    ids = model.pieces("we use pnpm " * 400, "(package manager)")
    assert len(ids) == 256 and ids[0] == model.tokenizer.start and ids[-1] == model.tokenizer.end
    assert model.tokenizer.encode("(package manager)", 50)[1:] == ids[-5:]


def test_vectors_are_unit_length_deterministic_and_compare_meaning(minilm: MiniLMEmbedder) -> None:
    query = minilm.embed("which package manager does this repo use")
    answer = minilm.embed("In this repo we use pnpm, never npm or yarn.")
    unrelated = minilm.embed("The cart total is rounded half-even before tax.")
    assert len(query) == 4 * DIM and abs(cosine(answer, answer) - 1.0) < 1e-4
    assert minilm.embed("In this repo we use pnpm, never npm or yarn.") == answer
    assert cosine(query, answer) > 0.4 > cosine(query, unrelated)
    # meaning without a shared word or a glossary term
    assert cosine(minilm.embed("how do I start the web server locally"),
                  minilm.embed("Run `make dev` to boot the site on localhost:3000")) > \
        cosine(minilm.embed("how do I start the web server locally"), unrelated)
    assert not any(array("f", minilm.embed("")))
    assert not any(array("f", minilm.embed("   \u200b ")))


def test_the_glossary_names_what_a_tool_is_and_only_for_whole_terms() -> None:
    assert concepts.categories("Tests run with vitest, not jest; install with pnpm") == \
        ["test framework", "javascript package manager"]
    assert concepts.categories("Spring Boot on AWS") == ["java web framework", "cloud hosting provider"]
    assert concepts.categories("see src/redis.py and node_modules/pnpmfile") == []
    assert concepts.note("nothing here") == ""
    assert concepts.note("we use pnpm and pytest") == "(javascript package manager; test framework)"
    assert concepts.version() in MiniLMEmbedder().fingerprint


def test_the_default_embedder_is_minilm_and_a_store_keeps_its_own_until_reembed(loreline_home: Path) -> None:
    assert default_embedder().fingerprint.startswith("minilm-")

    class Stamped:
        def __init__(self, fingerprint: str | None) -> None:
            self.fingerprint = fingerprint

        def meta(self, key: str) -> str | None:
            return self.fingerprint if key == "embedder" else None

    assert default_embedder(Stamped("hashing-v1-256")).fingerprint == "hashing-v1-256"
    assert default_embedder(Stamped("someone-elses-v9")).fingerprint.startswith("minilm-")
    assert default_embedder(Stamped(None)).fingerprint.startswith("minilm-")
    loreline_home.mkdir(parents=True, exist_ok=True)
    (loreline_home / "config.toml").write_text('[embed]\nmodel = "hashing"\n')
    assert default_embedder(Stamped("minilm-l6-int8-384-gx")).fingerprint == "hashing-v1-256"


def _store(store: Store, project: str, texts: list[str]) -> dict[int, str]:
    from loreline import beliefs, vectors

    vectors.ensure(store, by_name("minilm"))
    keyed = {}
    with store.write():
        for index, text in enumerate(texts, start=1):
            candidate = Candidate("preference", text, (Evidence(index, text),), "test@1")
            prov = Provenance("claude-code", "s", "/s.jsonl", index, index, text, None)
            _, mid = beliefs.reconcile(store, candidate, beliefs.Context(project, prov, (), f"k{index}"),
                                       by_name("minilm"))
            assert mid is not None
            keyed[mid] = text
    return keyed


def test_recall_finds_by_meaning_and_shows_nothing_for_an_unrelated_question(loreline_home: Path) -> None:
    texts = ["In this repo we use pnpm, never npm or yarn.",
             "Tests run with vitest; run one file with `pnpm vitest run <path>`.",
             "Money amounts use Decimal, never floats.",
             "The cart page shows the app banner on mobile."]
    with Store() as store:
        keyed = _store(store, "/shop", texts)
        assert store.meta("embedder").startswith("minilm-")
        hits = recall(store, "which package manager do we install dependencies with", "/shop")
        # no word in common, but both the vectors and the question's categories reach it
        assert hits and keyed[hits[0].memory.id] == texts[0] and hits[0].vec_rank == 1
        assert keyed[recall(store, "what test runner is configured", "/shop")[0].memory.id] == texts[1]
        # "run" is shared with the vitest note, but the question is about something else
        assert recall(store, "who will run the weekly retro meeting on friday", "/shop") == []


def test_several_texts_in_one_pass_give_each_text_s_own_vector() -> None:
    import numpy as np

    from loreline.embed.minilm import MiniLMEmbedder

    embedder = MiniLMEmbedder()
    texts = ["In this repo we use pnpm, never npm.", "", "How do I publish a release of the packages?",
             "The billing job takes a Postgres advisory lock so that only one worker runs it at a time."]
    together = embedder.embed_many(texts)
    alone = [embedder.embed(t) for t in texts]
    assert together[1] == alone[1] == bytes(4 * embedder.dim)  # no words: no direction
    for a, b in zip(together, alone, strict=True):
        assert np.allclose(np.frombuffer(a, dtype=np.float32), np.frombuffer(b, dtype=np.float32), atol=1e-5)
    # the texts did not leak into each other: each differs from its neighbours
    assert len({bytes(v) for v in together}) == len(texts)
