"""Retrieval eval: questions over stored memories, `recall.recall` against FTS alone.

`tests/eval/retrieval.json` holds the answering memories of one project, a few memories of
a second project, and questions with the keys of the memories that answer them. A fresh
store gets those memories through the belief pipeline (`beliefs.reconcile`, so vectors
and FTS rows are made as in an import) plus seeded distractors in the same project: notes
about other work that share the everyday vocabulary but answer none of the questions.

Metrics per method, over the questions: recall@5 (share of relevant memories in the top 5,
averaged), MRR (1 / rank of the first relevant memory in the top 10, 0 when absent), and
leaks (hits from the other project in any top 5: must be 0).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchlib import texts
from loreline import beliefs
from loreline.embed import default_embedder
from loreline.home import using as loreline_home
from loreline.models import Candidate, Evidence, Provenance
from loreline.recall import USER_SCOPE, recall
from loreline.store import Store, search

from .dataset import EVAL_DIR

SPEC = EVAL_DIR / "retrieval.json"
TOP = 5
DEPTH = 10
DISTRACTORS = (
    "Fixed the {a}_{b} bug in {file} by resetting the {c} before each {d}.",
    "The {a} {b} in {file} retries three times and then gives up.",
    "Renamed {a}_{b} to {c}_{d} across {file} and its tests.",
    "The {a} dashboard shows {b} per {c}; numbers lag by about five minutes.",
    "Paired on the {a} {b} refactor; {file} still needs a follow-up for {c}.",
)


@dataclass(slots=True)
class MethodScore:
    name: str
    recall_at_5: float = 0.0
    mrr: float = 0.0
    leaks: int = 0
    misses: list[str] = field(default_factory=list)  # questions with nothing relevant in the top 5


@dataclass(slots=True)
class Result:
    questions: int
    memories: int
    methods: list[MethodScore]


def distractors(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        a, b, c, d = (rng.choice(texts.WORDS[40:]) for _ in range(4))
        out.append(rng.choice(DISTRACTORS).format(a=a, b=b, c=c, d=d, file=texts.file_name(rng)))
    return out


def fill(store: Store, spec: dict[str, Any], seed: int) -> dict[int, tuple[str, str]]:
    """Store every memory of the spec; returns memory id → (key, project)."""
    embedder = default_embedder()
    keyed: dict[int, tuple[str, str]] = {}
    items = [(m, spec["project"]) for m in spec["memories"]]
    items += [(m, spec["other_project"]) for m in spec["other_memories"]]
    noise = distractors(spec["distractors"], seed)
    items += [({"key": "", "kind": "episode", "text": t}, spec["project"]) for t in noise]
    with store.write():
        for index, (memory, project) in enumerate(items, start=1):
            candidate = Candidate(memory["kind"], memory["text"], (Evidence(index, memory["text"]),), "eval@1")
            prov = Provenance("claude-code", "eval", "/eval/session.jsonl", index, index, memory["text"][:200], None)
            ctx = beliefs.Context(project, prov, (), f"eval-{index}")
            _, memory_id = beliefs.reconcile(store, candidate, ctx, embedder)
            if memory_id is not None:
                keyed[memory_id] = (memory["key"], project)
    return keyed


def by_recall(store: Store, question: str, project: str) -> list[int]:
    return [hit.memory.id for hit in recall(store, question, project, limit=DEPTH)]


def by_fts(store: Store, question: str, project: str) -> list[int]:
    return search.fts(store, question, (project, USER_SCOPE), DEPTH, ("active",))


METHODS: dict[str, Callable[[Store, str, str], list[int]]] = {"recall (FTS + vectors, RRF)": by_recall,
                                                                "FTS only (bm25)": by_fts}


def evaluate(home: Path, spec_path: Path = SPEC, seed: int = 7) -> Result:
    spec = json.loads(spec_path.read_text(encoding="utf-8"))
    with loreline_home(home), Store() as store:
        keyed = fill(store, spec, seed)
        methods = [_score(name, fn, store, spec, keyed) for name, fn in METHODS.items()]
    return Result(len(spec["questions"]), len(keyed), methods)


def _score(name: str, fn: Callable[[Store, str, str], list[int]], store: Store, spec: dict[str, Any],
           keyed: dict[int, tuple[str, str]]) -> MethodScore:
    out = MethodScore(name)
    recalls, ranks = [], []
    for question in spec["questions"]:
        ids = fn(store, question["q"], spec["project"])
        keys = [keyed.get(i, ("", ""))[0] for i in ids]
        relevant = set(question["relevant"])
        recalls.append(len(relevant & set(keys[:TOP])) / len(relevant))
        ranks.append(reciprocal_rank(keys, relevant))
        out.leaks += sum(1 for i in ids[:TOP] if keyed.get(i, ("", spec["project"]))[1] != spec["project"])
        if not relevant & set(keys[:TOP]):
            out.misses.append(question["q"])
    out.recall_at_5 = sum(recalls) / len(recalls)
    out.mrr = sum(ranks) / len(ranks)
    return out


def reciprocal_rank(keys: list[str], relevant: set[str]) -> float:
    for rank, key in enumerate(keys[:DEPTH], start=1):
        if key in relevant:
            return 1.0 / rank
    return 0.0
