"""Scoring stored memories against the labels. Pure functions, no store, no I/O.

Definitions (all over *active* memories; superseded ones are history, not beliefs):
- a memory belongs to the cases whose sessions its provenance cites;
- it **matches** an expected item of those cases when every keyword appears in its text
  (case-insensitive), its kind is one the label accepts and it sits in the labelled project;
  right words with a kind the label does not accept are reported as a kind mismatch;
- **precision** = memories matching some expected item / memories stored (None when none);
- **recall** = expected items matched by at least one memory / expected items;
- **duplicates** = for each expected item, the matching memories beyond the first;
- **evidence-line accuracy** = matched (item, memory) pairs whose provenance line range, in
  the item's session, covers at least one labelled line / matched pairs;
- **forbidden hits** = memories (from any case) containing every keyword of some forbidden set;
- **abstention** = cases labelled empty that stored nothing / cases labelled empty;
- **scope errors** = memories stored under a project other than the labelled project of a
  session they came from.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .dataset import CaseLabel, ExpectedLabel


@dataclass(frozen=True, slots=True)
class Produced:
    id: int
    project: str
    kind: str
    text: str
    status: str
    sources: tuple[tuple[str, int, int], ...]  # (session path relative to the set, line_start, line_end)


@dataclass(slots=True)
class CaseResult:
    name: str
    expected: int = 0
    matched: list[str] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)
    stored: list[str] = field(default_factory=list)
    unmatched: list[str] = field(default_factory=list)  # stored, matching nothing: false positives
    kind_mismatches: list[str] = field(default_factory=list)
    forbidden: list[str] = field(default_factory=list)
    wrong_lines: list[str] = field(default_factory=list)


@dataclass(slots=True)
class Score:
    stored: int = 0
    correct: int = 0
    expected: int = 0
    found: int = 0
    duplicates: int = 0
    pairs: int = 0
    pairs_on_line: int = 0
    forbidden_hits: int = 0
    empty_cases: int = 0
    abstained: int = 0
    scope_errors: int = 0
    superseded: int = 0
    cases: list[CaseResult] = field(default_factory=list)

    @property
    def precision(self) -> float | None:
        return self.correct / self.stored if self.stored else None

    @property
    def recall(self) -> float | None:
        return self.found / self.expected if self.expected else None

    @property
    def evidence_accuracy(self) -> float | None:
        return self.pairs_on_line / self.pairs if self.pairs else None

    @property
    def abstention(self) -> float | None:
        return self.abstained / self.empty_cases if self.empty_cases else None

    def summary(self) -> dict[str, float | int | None]:
        return {"precision": self.precision, "recall": self.recall, "forbidden_hits": self.forbidden_hits,
                "duplicates": self.duplicates, "evidence_line_accuracy": self.evidence_accuracy,
                "abstention": self.abstention, "scope_errors": self.scope_errors, "stored": self.stored,
                "correct": self.correct, "expected": self.expected, "found": self.found,
                "superseded": self.superseded}


def contains_all(text: str, keywords: tuple[str, ...]) -> bool:
    folded = text.casefold()
    return all(k.casefold() in folded for k in keywords)


def owners(memory: Produced, cases: list[CaseLabel]) -> list[CaseLabel]:
    paths = {src[0] for src in memory.sources}
    return [c for c in cases if any(s.path in paths for s in c.sessions)]


def on_line(memory: Produced, item: ExpectedLabel) -> bool:
    return any(path == item.session and any(start <= line <= end for line in item.lines)
               for path, start, end in memory.sources)


def score(cases: list[CaseLabel], produced: list[Produced]) -> Score:
    active = [m for m in produced if m.status == "active"]
    result = Score(stored=len(active), superseded=sum(1 for m in produced if m.status == "superseded"))
    by_case = {c.name: CaseResult(c.name, expected=len(c.expected)) for c in cases}
    matches: dict[tuple[str, str], list[Produced]] = {(e.case, e.id): [] for c in cases for e in c.expected}
    for memory in active:
        _score_memory(memory, cases, by_case, matches, result)
    for case in cases:
        _score_case(case, by_case[case.name], matches, result)
    result.cases = [by_case[c.name] for c in cases]
    return result


def _score_memory(memory: Produced, cases: list[CaseLabel], by_case: dict[str, CaseResult],
                  matches: dict[tuple[str, str], list[Produced]], result: Score) -> None:
    mine = owners(memory, cases)
    hit = False
    for case in mine:
        by_case[case.name].stored.append(f"{memory.kind}: {memory.text}")
        if memory.project not in {s.project for s in case.sessions if s.path in {src[0] for src in memory.sources}}:
            result.scope_errors += 1
        for item in case.expected:
            if not contains_all(memory.text, item.keywords) or memory.project != item.project:
                continue
            if memory.kind not in item.kinds:
                by_case[case.name].kind_mismatches.append(f"{item.id}: stored as {memory.kind}")
                continue
            matches[(item.case, item.id)].append(memory)
            hit = True
        if not hit:
            by_case[case.name].unmatched.append(f"{memory.kind}: {memory.text}")
    hits = [(case, keywords) for case in cases for keywords in case.forbidden if contains_all(memory.text, keywords)]
    for case, keywords in hits:
        target = by_case[mine[0].name] if mine else by_case[case.name]
        target.forbidden.append(f"{'+'.join(keywords)} (forbidden by {case.name}) in: {memory.text}")
    result.forbidden_hits += 1 if hits else 0
    result.correct += 1 if hit else 0


def _score_case(case: CaseLabel, out: CaseResult, matches: dict[tuple[str, str], list[Produced]],
                result: Score) -> None:
    result.expected += len(case.expected)
    for item in case.expected:
        found = matches[(item.case, item.id)]
        if not found:
            out.missed.append(item.id)
            continue
        out.matched.append(item.id)
        result.found += 1
        result.duplicates += len(found) - 1
        result.pairs += len(found)
        for memory in found:
            if on_line(memory, item):
                result.pairs_on_line += 1
            else:
                out.wrong_lines.append(f"{item.id}: lines {[s[1:] for s in memory.sources]} vs {list(item.lines)}")
    if case.empty:
        result.empty_cases += 1
        if not out.stored:
            result.abstained += 1
