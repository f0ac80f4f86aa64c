"""Choosing recall's fusion on the tuning halves only (`scripts/eval fusion-grid`).

For each retrieval set (`tests/eval/retrieval*.json`) a fresh store is filled as the retrieval
eval fills it, and for every question of the `tune` half the two raw rankings recall fuses are
read once: bm25's ids and the nearest vectors with their similarities (plus the similarity of
every bm25 hit, for the lexical floor). Each point of a grid over `Fusion`'s four numbers is then
scored from those lists with recall's own arithmetic (`recall.fused_scores`), so the whole grid
costs one query per question. The test halves are never queried.

A point is judged by recall@5 over answerable questions, paraphrase recall@5, and abstention
hits (a hit on a question with no answer counts against it as much as a missed answer). The
printout lists the best points; pick from the middle of a plateau, not an isolated peak.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from loreline import questions
from loreline.embed.minilm import MiniLMEmbedder
from loreline.home import using as loreline_home
from loreline.recall import USER_SCOPE, Fusion, answered, fused_scores
from loreline.store import Store, search, vectorcache

from . import retrieval

WEIGHTS = (1.0, 1.5, 2.0, 3.0, 4.0)
MIN_SIMILARITIES = (0.1, 0.15, 0.2, 0.25, 0.3)
VECTOR_ONLY_SIMILARITIES = (0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55)
LEXICAL_FLOORS = (None, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5)
ANSWER_FLOORS = (None, 0.4, 0.45, 0.5)
DEPTH = 40


@dataclass(frozen=True, slots=True)
class Raw:
    """What recall reads for one question, before fusion."""

    relevant: frozenset[str]
    abstain: bool
    paraphrase: bool
    lexical: tuple[int, ...]
    nearest: tuple[tuple[int, float], ...]
    similar: dict[int, float]  # every bm25 hit's similarity to the query (a memory's best, cues included)
    keys: dict[int, str]
    cued: frozenset[int] = frozenset()  # the memories with cue vectors


@dataclass(frozen=True, slots=True)
class Point:
    fusion: Fusion
    recall_at_5: float
    paraphrase_recall_at_5: float
    abstention_hits: int
    abstentions: int

    @property
    def objective(self) -> float:
        return self.recall_at_5 + self.paraphrase_recall_at_5 - self.abstention_hits / max(self.abstentions, 1)


def sets(root: Path = retrieval.SPEC.parent) -> list[Path]:
    return sorted(root.glob("retrieval*.json"))


def raw_tune_half(spec_path: Path, home: Path, with_cues: bool = False) -> list[Raw]:
    """`with_cues`: the memories carry the cues a model backend writes (`retrieval.model_cues`)."""
    spec: dict[str, Any] = json.loads(spec_path.read_text(encoding="utf-8"))
    embedder = MiniLMEmbedder()
    out: list[Raw] = []
    with loreline_home(home), Store() as store:
        keyed = retrieval.fill(store, spec, 7, embedder, retrieval.model_cues(spec_path.name) if with_cues else None)
        cued = frozenset(search.cued(store, list(keyed)))
        keys = {mid: key for mid, (key, project) in keyed.items() if project == spec["project"]}
        for question in spec["questions"]:
            if question["split"] != "tune":
                continue
            asked = questions.understand(question["q"])  # as recall reads it
            lexical = search.fts(store, question["q"], (spec["project"], USER_SCOPE), DEPTH, ("active",), asked.topics)
            vector = embedder.embed(asked.text)
            nearest = [(mid, 1.0 - dist) for mid, dist in vectorcache.knn(store, vector, spec["project"], DEPTH)]
            similar = dict(nearest)
            similar.update(search.similarities(store, vector, [m for m in lexical if m not in similar]))
            out.append(Raw(frozenset(question["relevant"]), bool(question.get("abstain")),
                           bool(question.get("paraphrase")), tuple(lexical), tuple(nearest), similar, keys,
                           cued & (set(lexical) | similar.keys())))
    return out


def ranked(raw: Raw, fusion: Fusion) -> list[int]:
    """recall's order for one question under `fusion` (trust weighting is equal for all here)."""
    semantic = [(mid, s) for mid, s in raw.nearest if s >= fusion.min_similarity]
    lexical = list(raw.lexical)
    if fusion.lexical_floor is not None:
        lexical = [mid for mid in lexical if raw.similar.get(mid, 0.0) >= fusion.lexical_floor]
    if not answered(lexical, semantic, raw.similar, fusion, raw.cued):
        return []
    scores = fused_scores(lexical, semantic, fusion)
    return sorted(scores, key=lambda mid: (-scores[mid], mid))[: retrieval.DEPTH]


def score_point(raws: list[Raw], fusion: Fusion) -> Point:
    shares: list[float] = []
    paraphrases: list[float] = []
    abstentions = hits = 0
    for raw in raws:
        order = ranked(raw, fusion)
        if raw.abstain:
            abstentions += 1
            hits += 1 if order else 0
            continue
        top = {raw.keys.get(mid, "") for mid in order[: retrieval.TOP]}
        share = len(raw.relevant & top) / len(raw.relevant)
        shares.append(share)
        if raw.paraphrase:
            paraphrases.append(share)
    return Point(fusion, sum(shares) / max(len(shares), 1), sum(paraphrases) / max(len(paraphrases), 1),
                 hits, abstentions)


def grid(raws: list[Raw]) -> list[Point]:
    points = [score_point(raws, Fusion(weight, least, alone, floor, answer_floor=answer))
              for weight, least, alone, floor, answer in itertools.product(
                  WEIGHTS, MIN_SIMILARITIES, VECTOR_ONLY_SIMILARITIES, LEXICAL_FLOORS, ANSWER_FLOORS) if alone >= least]
    return sorted(points, key=lambda p: -p.objective)


def frontier(points: list[Point]) -> list[Point]:
    """For each number of abstention hits, the point with the best recall@5 (then paraphrases)."""
    best: dict[int, Point] = {}
    for p in points:
        held = best.get(p.abstention_hits)
        if held is None or (p.recall_at_5, p.paraphrase_recall_at_5) > (held.recall_at_5, held.paraphrase_recall_at_5):
            best[p.abstention_hits] = p
    return [best[k] for k in sorted(best)]


def render(points: list[Point], questions: int, current: Fusion | None = None, most: int = 15) -> str:
    head = "  weight  min   vec-only  lex-floor  answer  recall@5  paraphrase  abstention"
    lines = [f"fusion grid over {questions} tuning-half questions (test halves not queried)", "best first:", head]
    lines += [_line(p) for p in points[:most]]
    lines += ["best recall@5 for each number of abstention hits:", head, *(_line(p) for p in frontier(points))]
    if current is not None:
        lines += ["in use:", head, *(_line(p) for p in points if p.fusion == current)]
    return "\n".join(lines)


def _line(p: Point) -> str:
    f = p.fusion
    floor = "—" if f.lexical_floor is None else f"{f.lexical_floor:.2f}"
    answer = "—" if f.answer_floor is None else f"{f.answer_floor:.2f}"
    return (f"  {f.vector_weight:>5.1f}  {f.min_similarity:.2f}  {f.vector_only_similarity:>8.2f}  {floor:>9}  {answer:>6}  "
            f"{p.recall_at_5:>8.2f}  {p.paraphrase_recall_at_5:>10.2f}  {p.abstention_hits}/{p.abstentions}")
