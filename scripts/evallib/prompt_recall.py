"""Per-prompt recall (the UserPromptSubmit hook's choice) on the retrieval eval set.

    PYTHONPATH=scripts .venv/bin/python -m evallib.prompt_recall [--warm-grid]

The store is filled as `evallib.retrieval` fills it (the 24 answering memories, a second
project, 400 distractors sharing the everyday vocabulary); each question then goes through
the hook's own code (`loreline_hooks.recall.output`, a new session each time, so nothing
counts as already shown). Reported: the share of questions whose answer is among the at most
3 memories added (hit@3), the share of added memories that answer the question (precision),
and how many prompts no memory answers got anything (must be 0), for two halves: the floor
(`recall.FLOOR`) was chosen on the first (the first 14 questions and `UNRELATED`); the second
(the other 14 questions and `HELD_OUT_UNRELATED`, written before any run) was not looked at.
A third figure comes from the second retrieval set (`retrieval2.json`, written after the floor
was chosen): all its answerable questions, and its abstention questions as the prompts no memory
answers; these are near the project's topics ("which css framework do we use?"), not unrelated
chatter.

By meaning (the warm process, `prompt_notes.for_prompt`): the floor was chosen on the retrieval sets'
tuning halves (`--warm-grid`, with `UNRELATED` and the tuning abstentions); the default run reports
their test halves (all three sets, `retrieval.SETS`), with `HELD_OUT_UNRELATED` and the test
abstentions as the prompts no memory answers.
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

from loreline.embed import default_embedder
from loreline.home import using as loreline_home
from loreline.store import Store

from .retrieval import SETS, SPEC, fill, model_cues

UNRELATED = (
    "What is the capital of France?",
    "Explain the difference between a process and a thread.",
    "Write a haiku about autumn leaves.",
    "How do I reverse a linked list in C?",
    "Summarize the plot of Hamlet in three sentences.",
    "What does the HTTP 418 status code mean?",
    "Convert 72 degrees Fahrenheit to Celsius.",
    "Explain big-O notation to a beginner.",
    "What is a monad in Haskell?",
    "Draft a polite email declining a meeting invitation.",
    "How does TCP slow start work?",
    "Give me a regex that matches an IPv4 address.",
    "What's the difference between git merge and git rebase?",
    "Recommend a good book about distributed systems.",
    "How many bytes are in a kibibyte?",
    "Explain how garbage collection works in Java.",
    "What is the time complexity of quicksort?",
    "Translate 'good morning' into Spanish.",
    "Why is the sky blue?",
    "thanks, that's all for now",
)
HELD_OUT_UNRELATED = (
    "How do I center a div with flexbox?",
    "What's a good name for a pet turtle?",
    "Explain the CAP theorem briefly.",
    "What year did the Berlin Wall fall?",
    "Write a limerick about a sleepy cat.",
    "How do vaccines train the immune system?",
    "What is the difference between TCP and UDP?",
    "Suggest a weekend hiking trip near Denver.",
    "How do I compute a SHA-256 hash in Go?",
    "What's the derivative of x squared?",
)
TUNED = 14
_SHOWN = re.compile(r"^- #(\d+) ", re.M)


def shown(prompt: str, project: str, session: str) -> list[int]:
    from loreline_hooks import recall

    out = recall.output({"session_id": session, "prompt": prompt}, project, "words")
    return [int(i) for i in _SHOWN.findall(json.loads(out)["hookSpecificOutput"]["additionalContext"])] if out else []


def evaluate(seed: int = 7) -> dict[str, dict[str, float | int]]:
    spec = json.loads(SPEC.read_text(encoding="utf-8"))
    questions = spec["questions"]
    with tempfile.TemporaryDirectory(prefix="loreline-prompt-eval-") as tmp, loreline_home(Path(tmp)):
        with Store() as store:
            keyed = fill(store, spec, seed, default_embedder())
        out = {"tuned half": _half(spec, keyed, questions[:TUNED], UNRELATED, "t"),
               "held-out half": _half(spec, keyed, questions[TUNED:], HELD_OUT_UNRELATED, "h")}
    second = json.loads(SETS[1].read_text(encoding="utf-8"))
    answerable = [q for q in second["questions"] if not q.get("abstain")]
    near_topic = tuple(q["q"] for q in second["questions"] if q.get("abstain"))
    with tempfile.TemporaryDirectory(prefix="loreline-prompt-eval-") as tmp, loreline_home(Path(tmp)):
        with Store() as store:
            keyed = fill(store, second, seed, default_embedder())
        out["second set (held out)"] = _half(second, keyed, answerable, near_topic, "s")
    return out


def _half(spec: dict[str, Any], keyed: dict[int, tuple[str, str]], questions: list[dict[str, Any]],
          unrelated: tuple[str, ...], tag: str) -> dict[str, float | int]:
    hits = added = answering = 0
    for n, question in enumerate(questions):
        keys = [keyed.get(i, ("", ""))[0] for i in shown(question["q"], spec["project"], f"{tag}-q-{n}")]
        relevant = set(question["relevant"])
        hits += bool(relevant & set(keys))
        added += len(keys)
        answering += sum(1 for k in keys if k in relevant)
    noisy = sum(1 for n, p in enumerate(unrelated) if shown(p, spec["project"], f"{tag}-u-{n}"))
    return {"questions": len(questions), "hit_at_3": round(hits / len(questions), 3),
            "precision": round(answering / added, 3) if added else 0.0, "added": added,
            "unrelated_prompts": len(unrelated), "unrelated_with_memories": noisy}




# --- the warm path: recall by meaning in a running process (`loreline_warm`) -------------------

def warm_shown(store: Store, prompt: str, project: str, floors: tuple[float, float]) -> list[int]:
    """What the hook adds by meaning (`floors`: the floor, and the one for memories its words chose)."""
    from loreline import home
    from loreline.prompt_notes import for_prompt
    from loreline_hooks import recall as hook

    terms = hook.asked(prompt)
    words = [row[0] for row in hook.by_words(str(home.db_path()), project, terms, groups=hook.parts(prompt))] \
        if terms else []
    found = for_prompt(store, prompt, project, floor=floors[0], word_floor=floors[1], words=words,
                       limit=hook.MAX_MEMORIES)
    return [memory.id for memory, _ in found or []]


def warm_halves(floors: tuple[tuple[float, float], ...], seed: int = 7, halves: tuple[str, ...] = ("tune",),
                words_too: bool = False, with_cues: bool = False) -> dict[str, Any]:
    """Per floor and retrieval-set half: hit@3, precision and the prompts with no answer that got a
    memory (the unrelated prompts and the set's abstention questions). Floors are chosen on the
    `tune` halves (with `UNRELATED`); the `test` halves go with `HELD_OUT_UNRELATED`. `with_cues`:
    each memory carries the cues a model backend writes (`retrieval.model_cues`)."""
    out: dict[str, Any] = {}
    for number, spec_path in enumerate(SETS, start=1):
        spec = json.loads(spec_path.read_text(encoding="utf-8"))
        with tempfile.TemporaryDirectory(prefix="loreline-prompt-eval-") as tmp, loreline_home(Path(tmp)):
            with Store() as store:
                keyed = fill(store, spec, seed, default_embedder(), model_cues(spec_path.name) if with_cues else None)
                for half in halves:
                    asked = [q for q in spec["questions"] if q["split"] == half]
                    chatter = UNRELATED if half == "tune" else HELD_OUT_UNRELATED
                    unanswered = tuple(q["q"] for q in asked if q.get("abstain")) + (chatter if number == 1 else ())
                    answerable = [q for q in asked if not q.get("abstain")]
                    for floor in floors:
                        out[f"set {number} {half}, by meaning at {floor[0]}, worded at {floor[1]}"] = _warm_half(
                            store, spec, keyed, answerable, unanswered, floor)
                    if words_too:
                        out[f"set {number} {half}, by words"] = _half(spec, keyed, answerable, unanswered,
                                                                      f"w{number}{half}")
    return out


def _warm_half(store: Store, spec: dict[str, Any], keyed: dict[int, tuple[str, str]],
               questions: list[dict[str, Any]], unanswered: tuple[str, ...],
               floor: tuple[float, float]) -> dict[str, float | int]:
    hits = added = answering = 0
    for question in questions:
        keys = [keyed.get(i, ("", ""))[0] for i in warm_shown(store, question["q"], spec["project"], floor)]
        relevant = set(question["relevant"])
        hits += bool(relevant & set(keys))
        added += len(keys)
        answering += sum(1 for k in keys if k in relevant)
    noisy = sum(1 for p in unanswered if warm_shown(store, p, spec["project"], floor))
    return {"questions": len(questions), "hit_at_3": round(hits / len(questions), 3) if questions else 0.0,
            "precision": round(answering / added, 3) if added else 0.0, "added": added,
            "unanswered_prompts": len(unanswered), "unanswered_with_memories": noisy}


#: (floor, floor for the memories the hook's words chose); 1.0 turns the second off
WARM_FLOORS = tuple((floor, worded) for floor in (0.45, 0.5, 0.55, 0.6) for worded in (1.0, 0.35, 0.4, 0.45, 0.5))

if __name__ == "__main__":
    from loreline.prompt_notes import FLOOR, WORD_FLOOR

    if "--warm-grid" in sys.argv[1:]:  # choosing the floor: tuning halves only
        json.dump(warm_halves(WARM_FLOORS, halves=("tune",), with_cues="--cues" in sys.argv[1:]), sys.stdout, indent=2)
    else:
        json.dump({"by words, as tuned": evaluate(),
                   "test halves, both ways": warm_halves(((FLOOR, WORD_FLOOR),), halves=("test",),
                                                                words_too=True)},
                  sys.stdout, indent=2)
    print()
