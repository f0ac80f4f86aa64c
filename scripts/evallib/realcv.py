"""Leave-one-group-out on the real set's tuning half (`scripts/eval --real rules --cv`).

The tuning half's sessions are grouped by who wrote them (the folder under
`tests/eval/real/sessions/`; the real fixtures by the repository they came from). Each group is
scored in turn with the cues drafted from that group switched off (`Cue.origin`) and with the
score threshold chosen on the other groups alone (the lowest whose precision there reaches 0.9:
precision first), so every
figure is for text the rules were not written from. Pooled = the held-out groups' memories, hits
and labels added up. The per-cue table says where each cue found labels and where it misfired;
a cue drafted from one group is worth keeping only when it finds labels in another. The test
half is never read here.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from loreline.assistants import registry
from loreline import evidence, transcripts
from loreline.chunk import chunk
from loreline.distill import rules_patterns as pat
from loreline.distill.rules import RulesDistiller, score, words
from loreline.models import Transcript
from loreline.pipeline import clean_turns
from loreline.privacy.redact import contains_secret

from . import realset

THRESHOLDS = (2, 3, 4)
PRECISION_FLOOR = 0.9  #: a threshold must reach this precision on the groups it is chosen from
#: the real fixtures' source repositories (tests/fixtures/real/SOURCES.md)
FIXTURE_SOURCES = {"cc-1.0.108": "claude-code-viewer", "cc-1.0.128": "claude-code-log", "cc-2.0.37": "claude-code-log",
                   "cc-2.1.42": "claude-code-log", "cc-2.0.28": "agentcmd", "codex-0.40.0": "agentcmd",
                   "cc-2.1.38": "spotter", "cc-2.1.39": "spotter", "cc-2.1.114": "claude-code-log",
                   "cc-2.1.332": "recorded", "codex-0.171.0": "recorded"}


@dataclass(frozen=True, slots=True)
class Scored:
    memory: realset.Memory
    points: int
    cue: str  # the name of the strongest cue


@dataclass(slots=True)
class GroupScore:
    group: str
    sessions: int = 0
    labels: int = 0
    memories: int = 0
    hits: int = 0
    found: int = 0
    forbidden: int = 0
    threshold: int = 0

    @property
    def precision(self) -> float:
        return self.hits / self.memories if self.memories else 1.0

    @property
    def recall(self) -> float:
        return self.found / self.labels if self.labels else 1.0


@dataclass(slots=True)
class CueTally:
    hits: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    misfires: dict[str, int] = field(default_factory=lambda: defaultdict(int))


def group_of(session: str) -> str:
    folder, _, name = session.partition("/")
    if folder != "fixtures":
        return folder
    prefix = name.split("-", 2)
    key = "-".join(prefix[:2])
    return "fixtures:" + FIXTURE_SOURCES.get(key, key)


def scored_memories(session: str, without: frozenset[str], real: Path = realset.REAL) -> list[Scored]:
    """Every memory a session would give at any threshold, with its points, after evidence validation."""
    t = registry.parse(realset.session_file(session, real)).transcript
    distiller = RulesDistiller(without=without)
    out: list[Scored] = []
    for piece in chunk(clean_turns(t.turns), session_id=t.session_id, path=t.path):
        pairs = distiller.scored(piece)
        accepted, _ = evidence.validate([c for c, _ in pairs], piece, has_secret=contains_secret)
        kept = {id(c) for c in accepted}
        for candidate, points in pairs:
            if id(candidate) in kept:
                found = score(candidate.text, without=without)
                cue = _cue_name(candidate.text, without) if found else "answer/rejection"
                memory = realset.Memory(session, candidate.evidence[0].line, candidate.kind, candidate.text)
                out.append(Scored(memory, points, cue))
    return out


def _cue_name(text: str, without: frozenset[str]) -> str:
    clean = text.replace("’", "'").replace("`", "")
    matched = [c for c in pat.cues_for(words(text), without) if c.pattern.search(text if c.raw else clean)]
    return max(matched, key=lambda c: c.weight).name if matched else "?"


class Judge:
    """Hit, false positive or forbidden, exactly as `realset` judges a half."""

    def __init__(self, real: Path = realset.REAL) -> None:
        self.real = real
        self.labels, self.forbidden = realset.load_labels(real)
        self._parsed: dict[str, Transcript] = {}

    def transcript(self, session: str) -> Transcript:
        if session not in self._parsed:
            self._parsed[session] = registry.parse(realset.session_file(session, self.real)).transcript
        return self._parsed[session]

    def judge(self, scored: Iterable[Scored], sessions: list[str]) -> tuple[int, int, set[realset.Label], int]:
        mine = [lab for lab in self.labels if lab.session in set(sessions)]
        half = realset.HalfScore("cv", len(sessions), len(mine))
        for item in scored:
            realset._judge(half, item.memory, mine, self.forbidden, self.transcript(item.memory.session))
        return half.memories, half.hits, half.found, len(half.forbidden)


def cross_validate(real: Path = realset.REAL) -> tuple[list[GroupScore], GroupScore, dict[str, CueTally]]:
    tune = realset.load_split(real)["tune"]
    groups: dict[str, list[str]] = defaultdict(list)
    for session in tune:
        groups[group_of(session)].append(session)
    judge = Judge(real)
    held: dict[str, list[Scored]] = {g: [s for x in ss for s in scored_memories(x, frozenset({g}), real)]
                                     for g, ss in groups.items()}
    results = [_held_out(g, groups, held, judge) for g in sorted(groups)]
    pooled = GroupScore("pooled", sum(r.sessions for r in results), sum(r.labels for r in results),
                        sum(r.memories for r in results), sum(r.hits for r in results),
                        sum(r.found for r in results), sum(r.forbidden for r in results))
    return results, pooled, _tally(groups, judge, real)


def _held_out(group: str, groups: dict[str, list[str]], held: dict[str, list[Scored]], judge: Judge) -> GroupScore:
    """Score `group` at the threshold `choose` picks on the other groups, its own cues off."""
    best = choose({th: _pooled_at(th, group, groups, held, judge) for th in THRESHOLDS})
    memories, hits, found, forbidden = judge.judge([s for s in held[group] if s.points >= best], groups[group])
    labels = sum(1 for lab in judge.labels if lab.session in set(groups[group]))
    return GroupScore(group, len(groups[group]), labels, memories, hits, len(found), forbidden, best)


def _pooled_at(threshold: int, left_out: str, groups: dict[str, list[str]], held: dict[str, list[Scored]],
               judge: Judge) -> tuple[int, int, int, int]:
    memories = hits = found = labels = 0
    for g, sessions in groups.items():
        if g == left_out:
            continue
        m, h, f, _ = judge.judge([s for s in held[g] if s.points >= threshold], sessions)
        memories, hits, found = memories + m, hits + h, found + len(f)
        labels += sum(1 for lab in judge.labels if lab.session in set(sessions))
    return memories, hits, found, labels


def choose(counts: dict[int, tuple[int, int, int, int]]) -> int:
    """Precision first: the lowest threshold whose precision reaches PRECISION_FLOOR, else the highest."""
    for threshold in sorted(counts):
        memories, hits, _, _ = counts[threshold]
        if memories and hits / memories >= PRECISION_FLOOR:
            return threshold
    return max(counts)


def _tally(groups: dict[str, list[str]], judge: Judge, real: Path) -> dict[str, CueTally]:
    """Per cue (all cues on, default threshold): labels found and misfires, by group."""
    tally: dict[str, CueTally] = defaultdict(CueTally)
    threshold = RulesDistiller().threshold
    for g, sessions in groups.items():
        for item in (s for x in sessions for s in scored_memories(x, frozenset(), real)):
            if item.points < threshold:
                continue
            memories, hits, _, _ = judge.judge([item], sessions)
            (tally[item.cue].hits if hits else tally[item.cue].misfires)[g] += 1
    return tally


def origins() -> dict[str, str]:
    return {cue.name: cue.origin for cue in pat.CUES}


def render(results: list[GroupScore], pooled: GroupScore, tally: dict[str, CueTally]) -> str:
    lines = ["Real set, tuning half, leave-one-group-out (each group's own cues off, threshold chosen on the others)",
             f"{'group':28} {'sessions':>8} {'labels':>6} {'memories':>8} {'precision':>9} {'recall':>6} "
             f"{'forbidden':>9} {'threshold':>9}"]
    for r in [*results, pooled]:
        lines.append(f"{r.group:28} {r.sessions:>8} {r.labels:>6} {r.memories:>8} {r.precision:>9.2f} "
                     f"{r.recall:>6.2f} {r.forbidden:>9} {r.threshold or '':>9}")
    lines += ["", "Per cue (all cues on): labels found / misfires by group", f"{'cue':44} {'origin':20} found / misfires"]
    names = origins()
    for name in sorted(tally, key=lambda n: -sum(tally[n].hits.values())):
        t = tally[name]
        found = ", ".join(f"{g} {n}" for g, n in sorted(t.hits.items())) or "-"
        wrong = ", ".join(f"{g} {n}" for g, n in sorted(t.misfires.items())) or "-"
        lines.append(f"{name[:44]:44} {names.get(name, 'prior')[:20]:20} {found} / {wrong}")
    return "\n".join(lines)


def as_json(r: GroupScore) -> dict[str, object]:
    return {"group": r.group, "sessions": r.sessions, "labels": r.labels, "memories": r.memories, "hits": r.hits,
            "found": r.found, "precision": r.precision, "recall": r.recall, "forbidden": r.forbidden,
            "threshold": r.threshold}


METHOD = """The tuning half grouped by who wrote the sessions (folder; the real fixtures by their source repository).
Each group is scored with the cues drafted from it switched off and the score threshold chosen on the other
groups alone (the lowest whose precision there reaches 0.9); pooled adds the held-out groups up. This is what
tells whether a rule carries over to people it was not written from (`scripts/eval --real rules --cv`)."""


def markdown(results: list[GroupScore], pooled: GroupScore) -> str:
    head = "| group | sessions | labels | memories | precision | recall | forbidden | threshold |"
    rows = [f"| {r.group} | {r.sessions} | {r.labels} | {r.memories} | {r.precision:.2f} | {r.recall:.2f} | "
            f"{r.forbidden} | {r.threshold or '—'} |" for r in [*results, pooled]]
    return "\n".join(["#### Tuning half, leave-one-group-out", "", METHOD, "", head,
                      "| --- | --- | --- | --- | --- | --- | --- | --- |", *rows])
