"""Check a Loreline retrieval set before anyone measures recall on it.

A retrieval set (`tests/eval/retrieval*.json`) holds the memories of one project, a few
memories of a second project, and questions labelled with the keys of the memories that
answer them. The labels are only worth something if they hold, so this script verifies:

- the file has every top-level key scripts/eval reads;
- memory keys are unique across both projects, and kinds are Loreline's five kinds;
- every `relevant` key names a memory of the main project (never the other project's);
- question texts are unique; answerable questions name at least one memory;
- `abstain` questions have an empty `relevant`;
- when a question carries a `kind` (retrieval3.json does), it is one of `paraphrase`, `lexical`,
  `near-topic` or `unrelated` and agrees with its flags (the last two abstain, only the first
  is a paraphrase);
- a `paraphrase` question shares no content word with any memory that answers it
  (lowercased, punctuation split off, stopwords dropped, simple suffixes folded);
- every question is in the `tune` or `test` half, and when the file declares
  `"split_rule": "sha256-odd-is-test"` the half is the one that rule gives
  (`test` when the SHA-256 of the question text, read as an integer, is odd).

It prints counts per half and exits 1 when anything is wrong. Standard library only:

    python3 tests/eval/check_retrieval_set.py [FILE ...]   # default: every set
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DEFAULT_FILES = (HERE / "retrieval.json", HERE / "retrieval2.json", HERE / "retrieval3.json")
TOP_KEYS = ("about", "project", "other_project", "distractors", "memories", "other_memories", "questions")
KINDS = frozenset({"preference", "decision", "fact", "procedure", "episode"})
HALVES = ("tune", "test")
SHA256_RULE = "sha256-odd-is-test"
#: a question's optional `kind` → (abstains, is a paraphrase)
QUESTION_KINDS = {"paraphrase": (False, True), "lexical": (False, False),
                  "near-topic": (True, False), "unrelated": (True, False)}

# A common English stopword list, plus the filler verbs and words of a developer's question
# ("use", "run", "get", "ok") that carry no topic.
STOPWORDS = frozenset("""
a about above after again against all also am an and any are aren as at be because been before being
below between both but by can cannot could couldn did didn do does doesn doing don down during each else
few for from further get gets got had hadn has hasn have haven having he her here hers herself him himself
his how i if in into is isn it its itself just let like ll may me might more most mustn my myself no nor
not now of off ok okay on once one only or other ought our ours ourselves out over own re run runs same
shall shan she should shouldn so some something still such than that the their theirs them themselves
then there these they thing things this those through to too under until up us use used using ve very
was wasn we were weren what when where which while who whom why will with won would wouldn you your yours
yourself yourselves
""".split())
SUFFIXES = ("ing", "ed", "es", "s")


def fold(word: str) -> str:
    """Fold a simple suffix (plural -s/-es, -ing, -ed) off a word long enough to keep a stem."""
    for suffix in SUFFIXES:
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def content_words(text: str) -> set[str]:
    """The folded words of a text that are neither stopwords nor single characters."""
    words = re.findall(r"[a-z0-9]+", text.lower().replace("'", "").replace("\u2019", ""))
    return {fold(w) for w in words if len(w) > 1 and w not in STOPWORDS}


def split_by_rule(question: str) -> str:
    """The half the SHA-256 rule assigns: odd digest → test, even → tune."""
    return "test" if int(hashlib.sha256(question.encode()).hexdigest(), 16) % 2 == 1 else "tune"


def check_memories(spec: dict[str, Any]) -> list[str]:
    problems = []
    keys = Counter(m.get("key") for m in spec["memories"] + spec["other_memories"])
    problems += [f"duplicate memory key {key!r}" for key, n in keys.items() if n > 1]
    for memory in spec["memories"] + spec["other_memories"]:
        if memory.get("kind") not in KINDS:
            problems.append(f"memory {memory.get('key')!r} has kind {memory.get('kind')!r}")
        if not str(memory.get("text", "")).strip():
            problems.append(f"memory {memory.get('key')!r} has no text")
    return problems


def check_question(question: dict[str, Any], texts: dict[str, str], rule: str | None) -> list[str]:
    q, relevant, half = question.get("q", ""), question.get("relevant", []), question.get("split")
    tag = f"[{half}] {q!r}:"
    problems = [f"{tag} unknown memory {key!r}" for key in relevant if key not in texts]
    if question.get("abstain") and relevant:
        problems.append(f"{tag} abstains but names relevant memories")
    if not question.get("abstain") and not relevant:
        problems.append(f"{tag} answerable but names no memory")
    if question.get("paraphrase"):
        for key in (k for k in relevant if k in texts):
            shared = content_words(q) & content_words(texts[key])
            if shared:
                problems.append(f"{tag} paraphrase shares {sorted(shared)} with {key!r}")
    if "kind" in question:
        flags = (bool(question.get("abstain")), bool(question.get("paraphrase")))
        if question["kind"] not in QUESTION_KINDS:
            problems.append(f"{tag} kind is {question['kind']!r}")
        elif QUESTION_KINDS[question["kind"]] != flags:
            problems.append(f"{tag} kind {question['kind']!r} disagrees with abstain/paraphrase")
    if half not in HALVES:
        problems.append(f"{tag} split is {half!r}")
    elif rule == SHA256_RULE and half != split_by_rule(q):
        problems.append(f"{tag} split should be {split_by_rule(q)!r} by {SHA256_RULE}")
    return problems


def check(spec: dict[str, Any]) -> list[str]:
    """Every problem found in a retrieval set, one line each (empty when it holds)."""
    missing = [key for key in TOP_KEYS if key not in spec]
    if missing:
        return [f"missing top-level keys {missing}"]
    problems = check_memories(spec)
    rule = spec.get("split_rule")
    if rule not in (None, SHA256_RULE):
        problems.append(f"unknown split_rule {rule!r}")
    texts = {m["key"]: m["text"] for m in spec["memories"]}
    seen = Counter(q.get("q") for q in spec["questions"])
    problems += [f"duplicate question {q!r}" for q, n in seen.items() if n > 1]
    for question in spec["questions"]:
        problems += check_question(question, texts, rule)
    return problems


def counts(spec: dict[str, Any]) -> list[str]:
    """One line per half: questions, paraphrases, abstentions, multi-answer questions."""
    lines = []
    for half in HALVES:
        qs = [q for q in spec["questions"] if q.get("split") == half]
        lines.append(f"  {half}: {len(qs)} questions, {sum(bool(q.get('paraphrase')) for q in qs)} paraphrases, "
                     f"{sum(bool(q.get('abstain')) for q in qs)} abstentions, "
                     f"{sum(len(q.get('relevant', [])) > 1 for q in qs)} with several answers")
    return lines


def main(argv: list[str] | None = None) -> int:
    paths = [Path(a) for a in (sys.argv[1:] if argv is None else argv)] or list(DEFAULT_FILES)
    failed = False
    for path in paths:
        spec = json.loads(path.read_text(encoding="utf-8"))
        problems = check(spec)
        print(f"{path.name}: {len(spec.get('memories', []))} memories, {len(spec.get('other_memories', []))} "
              f"of the other project, {len(spec.get('questions', []))} questions"
              + (f" (split rule {spec['split_rule']})" if spec.get("split_rule") else ""))
        if "questions" in spec:
            print("\n".join(counts(spec)))
        for problem in problems:
            print(f"  PROBLEM {problem}")
        failed = failed or bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
