"""Every retrieval set's half in one table, with the glossary's cues only and with a model's cues.

    PYTHONPATH=scripts .venv/bin/python -m evallib.cuerows [tune|test]

For each set (`retrieval.SETS`) and each way of storing its memories — as the rules distiller
leaves them (the glossary's categories of the tools a memory names) and as a model backend
stores them (with the questions and topic words of `tests/eval/cues/model_cues.json`) — one
store is filled and the half's questions are asked twice: through recall (recall@5, paraphrase
recall@5, abstention hits) and through the prompt hook's choice by meaning (hit@3 over the
answerable questions; the unanswerable ones, and on the first set the unrelated chatter, count
when they get any memory). Run the tune half while choosing; the test half once per version.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from loreline.embed.minilm import MiniLMEmbedder
from loreline.home import using as loreline_home
from loreline.prompt_notes import FLOOR, WORD_FLOOR
from loreline.store import Store

from . import prompt_recall, retrieval

MODES = (("glossary cues only", False), ("with model cues", True))


def rows(half: str, seed: int = 7) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    embedder = MiniLMEmbedder()
    search = retrieval.methods_for(embedder)["recall (FTS + vectors, RRF)"]
    for number, spec_path in enumerate(retrieval.SETS, start=1):
        spec = json.loads(spec_path.read_text(encoding="utf-8"))
        asked = [q for q in spec["questions"] if q["split"] == half]
        chatter = prompt_recall.UNRELATED if half == "tune" else prompt_recall.HELD_OUT_UNRELATED
        unanswered = tuple(q["q"] for q in asked if q.get("abstain")) + (chatter if number == 1 else ())
        answerable = [q for q in asked if not q.get("abstain")]
        for label, with_cues in MODES:
            cues = retrieval.model_cues(spec_path.name) if with_cues else None
            with tempfile.TemporaryDirectory(prefix="loreline-cuerows-") as tmp, loreline_home(Path(tmp)), \
                    Store() as store:
                keyed = retrieval.fill(store, spec, seed, embedder, cues)
                score = retrieval._half(search, store, spec, keyed, asked, [])
                prompt = prompt_recall._warm_half(store, spec, keyed, answerable, unanswered, (FLOOR, WORD_FLOOR))
            out.append({"set": number, "cues": label, "recall_at_5": round(score.recall_at_5, 2),
                        "paraphrase_recall_at_5": round(score.paraphrase_recall_at_5, 2),
                        "abstention_hits": f"{score.abstention_hits} of {score.abstentions}",
                        "prompt_hit_at_3": prompt["hit_at_3"],
                        "unanswered_given_a_memory": f"{prompt['unanswered_with_memories']} of "
                                                     f"{prompt['unanswered_prompts']}",
                        "misses": score.misses if half == "tune" else []})
    return out


def render(half: str, table: list[dict[str, Any]]) -> str:
    lines = [f"{half} halves", "| set | cues | recall@5 | paraphrase recall@5 | abstention hits | prompt hit@3 | "
             "unanswered prompts given a memory |", "|---|---|---|---|---|---|---|"]
    lines += [f"| {r['set']} | {r['cues']} | {r['recall_at_5']:.2f} | {r['paraphrase_recall_at_5']:.2f} | "
              f"{r['abstention_hits']} | {r['prompt_hit_at_3']:.2f} | {r['unanswered_given_a_memory']} |"
              for r in table]
    return "\n".join(lines)


if __name__ == "__main__":
    chosen = sys.argv[1] if len(sys.argv) > 1 else "tune"
    if chosen not in retrieval.HALVES:
        sys.exit("usage: python -m evallib.cuerows [tune|test]")
    result = rows(chosen)
    print(render(chosen, result))
    if "-v" in sys.argv[2:] and chosen == "tune":
        for r in result:
            for miss in r["misses"]:
                print(f"  miss, set {r['set']} {r['cues']}: {miss}")
