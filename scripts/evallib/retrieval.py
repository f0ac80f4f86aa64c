"""Retrieval eval: questions over stored memories, per embedder, fused recall against FTS alone.

`tests/eval/retrieval.json` holds the answering memories of one project, a few memories of
a second project, and questions with the keys of the memories that answer them. Each question
belongs to the tuning or the test half (fixed when the set was written, before any embedder
was compared); `paraphrase` questions share no content word with their answer; `abstain`
questions have no answer in the project and must get no hit at all. A fresh store per
embedder gets the memories through the belief pipeline (`beliefs.reconcile`, so vectors and
FTS rows are made as in an import) plus seeded distractors in the same project: notes about
other work that share everyday vocabulary but answer none of the questions.

Metrics per method and half: recall@5 over answerable questions and over paraphrases (share
of relevant memories in the top 5, averaged), MRR (1 / rank of the first relevant memory in
the top 10), abstention hits (abstain questions that got any hit), leaks (hits from the other
project in any top 5: must be 0) and the median query time.
"""

from __future__ import annotations

import json
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchlib import texts
from loreline import beliefs
from loreline.embed import Embedder, HashingEmbedder
from loreline.home import using as loreline_home
from loreline.models import Candidate, Evidence, Provenance
from loreline.recall import USER_SCOPE, Fusion, recall
from loreline.store import Store, search

from .dataset import EVAL_DIR

SPEC = EVAL_DIR / "retrieval.json"
#: the cues a model backend writes at distillation, written blind for every memory of the sets
CUES = EVAL_DIR / "cues" / "model_cues.json"
#: every retrieval set: the first, a larger second one written after the embedder was chosen,
#: without running anything on it, and a third of everyday questions written blind
#: (`tests/eval/check_retrieval_set.py` checks all three)
SETS = (SPEC, EVAL_DIR / "retrieval2.json", EVAL_DIR / "retrieval3.json")
TOP = 5
DEPTH = 10
HALVES = ("tune", "test")
DISTRACTORS = (
    "Fixed the {a}_{b} bug in {file} by resetting the {c} before each {d}.",
    "The {a} {b} in {file} retries three times and then gives up.",
    "Renamed {a}_{b} to {c}_{d} across {file} and its tests.",
    "The {a} dashboard shows {b} per {c}; numbers lag by about five minutes.",
    "Paired on the {a} {b} refactor; {file} still needs a follow-up for {c}.",
)
Search = Callable[[Store, str, str], list[int]]


@dataclass(slots=True)
class HalfScore:
    questions: int = 0
    recall_at_5: float = 0.0
    paraphrase_recall_at_5: float = 0.0
    paraphrases: int = 0
    mrr: float = 0.0
    abstention_hits: int = 0
    abstentions: int = 0
    leaks: int = 0
    misses: list[str] = field(default_factory=list)  # answerable questions with nothing relevant in the top 5


@dataclass(slots=True)
class MethodScore:
    name: str
    embedder: str
    halves: dict[str, HalfScore] = field(default_factory=dict)
    p50_ms: float = 0.0

    @property
    def test(self) -> HalfScore:
        return self.halves["test"]


@dataclass(slots=True)
class Result:
    questions: int
    memories: int
    methods: list[MethodScore]
    name: str = "retrieval.json"
    #: whose cues the memories carry besides the glossary's ("": the glossary's only)
    cues: str = ""


def candidates() -> dict[str, Callable[[], Embedder]]:
    """The embedders to compare: the bundled sentence model and hashing always; the static model
    when its package is there."""
    from loreline.embed import static
    from loreline.embed.minilm import MiniLMEmbedder

    found: dict[str, Callable[[], Embedder]] = {"minilm": MiniLMEmbedder, "hashing": HashingEmbedder}

    if static.model_dir() is not None:
        found["static"] = static.StaticEmbedder
    return found


def distractors(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        a, b, c, d = (rng.choice(texts.WORDS[40:]) for _ in range(4))
        out.append(rng.choice(DISTRACTORS).format(a=a, b=b, c=c, d=d, file=texts.file_name(rng)))
    return out


def model_cues(spec_name: str, backend: str | None = None) -> dict[str, str]:
    """The retrieval cues a model backend would have written for each memory of a set: with
    `backend` (a model, or `recorded:DIR`), asked of it through the cue writer
    (`loreline.distill.cue_writer`), else read from `tests/eval/cues/model_cues.json`, as the
    distiller turns them into cue text."""
    from loreline.distill.anthropic import cues

    if backend is not None:
        return written_cues(spec_name, backend)
    written = json.loads(CUES.read_text(encoding="utf-8")).get(spec_name, {})
    return {key: cues(item.get("questions"), item.get("topics")) for key, item in written.items()}


def written_cues(spec_name: str, backend: str) -> dict[str, str]:
    """Each memory's cues from the cue writer through `backend`; a memory whose answer is missing
    or unusable gets none (recorded answers list what they lacked)."""
    from loreline import backends
    from loreline.distill import cue_writer
    from loreline.distill.anthropic import ToolDistiller
    from loreline.errors import ModelOutputError

    distiller = backends.choose(backend).distiller
    assert isinstance(distiller, ToolDistiller), "cues need a model backend or recorded:DIR"
    spec = json.loads((EVAL_DIR / spec_name).read_text(encoding="utf-8"))
    found: dict[str, str] = {}
    for memory in [*spec["memories"], *spec["other_memories"]]:
        try:
            found[memory["key"]] = cue_writer.write(distiller.client, memory["kind"], memory["text"])
        except ModelOutputError:
            continue
    return found


def fill(store: Store, spec: dict[str, Any], seed: int, embedder: Embedder,
         cues: dict[str, str] | None = None) -> dict[int, tuple[str, str]]:
    """Store every memory of the spec; returns memory id → (key, project). `cues` (memory key →
    cue text, `model_cues`): stored as a model backend stores them, through the candidate's
    cues; without them a memory has only the glossary's categories of the tools it names."""
    keyed: dict[int, tuple[str, str]] = {}
    items = [(m, spec["project"]) for m in spec["memories"]]
    items += [(m, spec["other_project"]) for m in spec["other_memories"]]
    noise = distractors(spec["distractors"], seed)
    items += [({"key": "", "kind": "episode", "text": t}, spec["project"]) for t in noise]
    with store.write():
        for index, (memory, project) in enumerate(items, start=1):
            candidate = Candidate(memory["kind"], memory["text"], (Evidence(index, memory["text"]),), "eval@1",
                                  cues=(cues or {}).get(memory["key"], "") if memory["key"] else "")
            prov = Provenance("claude-code", "eval", "/eval/session.jsonl", index, index, memory["text"][:200], None)
            ctx = beliefs.Context(project, prov, (), f"eval-{index}")
            _, memory_id = beliefs.reconcile(store, candidate, ctx, embedder)
            if memory_id is not None:
                keyed[memory_id] = (memory["key"], project)
    return keyed


def methods_for(embedder: Embedder, fusion: Fusion | None = None) -> dict[str, Search]:
    def fused(store: Store, question: str, project: str) -> list[int]:
        hits = recall(store, question, project, limit=DEPTH, embedder=embedder, fusion=fusion)
        return [hit.memory.id for hit in hits]

    return {"recall (FTS + vectors, RRF)": fused}


def by_fts(store: Store, question: str, project: str) -> list[int]:
    return search.fts(store, question, (project, USER_SCOPE), DEPTH, ("active",))


def evaluate(home: Path, spec_path: Path = SPEC, seed: int = 7,
             only: dict[str, Callable[[], Embedder]] | None = None, with_cues: bool = False,
             backend: str | None = None) -> Result:
    """`with_cues`: each memory also carries the cues a model backend writes (`model_cues`; from
    `backend` when given, e.g. `recorded:DIR`)."""
    spec = json.loads(spec_path.read_text(encoding="utf-8"))
    cues = model_cues(spec_path.name, backend) if with_cues else None
    methods: list[MethodScore] = []
    memories = 0
    for name, make in (only or candidates()).items():
        embedder = make()
        with loreline_home(home / name), Store() as store:
            keyed = fill(store, spec, seed, embedder, cues)
            memories = len(keyed)
            if not methods:
                methods.append(score("FTS only (bm25)", "—", by_fts, store, spec, keyed))
            for label, fn in methods_for(embedder).items():
                methods.append(score(label, name, fn, store, spec, keyed))
    return Result(len(spec["questions"]), memories, methods, spec_path.name,
                  (f"a model's cues through {backend}" if backend else "the blind model cues") if with_cues else "")


def score(name: str, embedder: str, fn: Search, store: Store, spec: dict[str, Any],
          keyed: dict[int, tuple[str, str]]) -> MethodScore:
    out = MethodScore(name, embedder)
    timings: list[float] = []
    for half in HALVES:
        questions = [q for q in spec["questions"] if q["split"] == half]
        out.halves[half] = _half(fn, store, spec, keyed, questions, timings)
    out.halves["all"] = _half(fn, store, spec, keyed, spec["questions"], [])
    out.p50_ms = statistics.median(timings) * 1000 if timings else 0.0
    return out


def _half(fn: Search, store: Store, spec: dict[str, Any], keyed: dict[int, tuple[str, str]],
          questions: list[dict[str, Any]], timings: list[float]) -> HalfScore:
    out = HalfScore()
    recalls, ranks, paraphrase = [], [], []
    for question in questions:
        started = time.perf_counter()
        ids = fn(store, question["q"], spec["project"])
        timings.append(time.perf_counter() - started)
        keys = [keyed.get(i, ("", ""))[0] for i in ids]
        out.leaks += sum(1 for i in ids[:TOP] if keyed.get(i, ("", spec["project"]))[1] != spec["project"])
        if question.get("abstain"):
            out.abstentions += 1
            out.abstention_hits += 1 if ids else 0
            continue
        relevant = set(question["relevant"])
        share = len(relevant & set(keys[:TOP])) / len(relevant)
        recalls.append(share)
        if question.get("paraphrase"):
            paraphrase.append(share)
        ranks.append(reciprocal_rank(keys, relevant))
        if not relevant & set(keys[:TOP]):
            out.misses.append(question["q"])
    out.questions, out.paraphrases = len(recalls), len(paraphrase)
    out.recall_at_5 = sum(recalls) / len(recalls) if recalls else 0.0
    out.paraphrase_recall_at_5 = sum(paraphrase) / len(paraphrase) if paraphrase else 0.0
    out.mrr = sum(ranks) / len(ranks) if ranks else 0.0
    return out


def reciprocal_rank(keys: list[str], relevant: set[str]) -> float:
    for rank, key in enumerate(keys[:DEPTH], start=1):
        if key in relevant:
            return 1.0 / rank
    return 0.0
