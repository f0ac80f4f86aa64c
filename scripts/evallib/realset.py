"""The real labelled set (`tests/eval/real/`): public sessions, hand labels, a fixed split.

Each session is parsed the way an import reads it (`registry.parse`), its turns cleaned
(`pipeline.clean_turns`) and chunked (`chunk.chunk`), each chunk handed to the distiller;
candidates then go through evidence validation exactly as on import. A memory is:
- forbidden when it cites a line labelled forbidden, an assistant line, a line of a
  subagent/sidechain file, or a turn whose text is injected (command or skill bodies, hook
  feedback, continuation summaries — see FORBIDDEN_OPENINGS); an action line (what the assistant
  did) is forbidden too, except under a procedure, a fact or an episode, which may rest on it;
- a hit when it cites a labelled line and contains every keyword of that label;
- otherwise a false positive.
Precision = hits / memories; recall = labels hit / labels. Both halves are reported; the
test half was never tuned on.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from loreline.assistants import registry
from loreline import evidence, transcripts
from loreline.distill import Distiller
from loreline.chunk import chunk
from loreline.models import KINDS, Transcript
from loreline.pipeline import clean_turns
from loreline.privacy.redact import contains_secret

ROOT = Path(__file__).resolve().parent.parent.parent
REAL = ROOT / "tests" / "eval" / "real"
FIXTURES = ROOT / "tests" / "fixtures" / "real"
_TREE = "claude-code/tree/-experiments-worktrees/ef958aa1-0e93-49f0-bb71-150f63befcd1"
#: `fixtures/<name>` sessions of the split are the project's real fixtures, read where they live
RENAMED = {"cc-2.1.114-worktrees.jsonl": f"{_TREE}.jsonl",
           "cc-2.1.114-worktrees-subagent.jsonl": f"{_TREE}/subagents/agent-a36efb2a1231c41e2.jsonl"}
#: the kinds of memory that may rest on what the assistant did (its action lines), as the evidence check allows
ACTION_KINDS = tuple(kind for kind in KINDS if kind not in evidence.USER_ONLY_KINDS)
SUBAGENT_FILES = ("agent-", "-subagent", "agent-acompact", "root-agent")
FORBIDDEN_OPENINGS = (
    "# session catchup", "# safe exit", "# session handoff", "# meta override", "# quick add", "# end exploration",
    "# start ", "# ies profile", "# command creator", "base directory for this skill", "<session-start-hook>",
    "stop hook feedback", "this session is being continued", "use and follow the brainstorming skill",
)


@dataclass(frozen=True, slots=True)
class Label:
    session: str
    line: int
    kind: str
    gist: str
    keywords: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Memory:
    session: str
    line: int
    kind: str
    text: str


@dataclass(slots=True)
class HalfScore:
    half: str
    sessions: int
    labels: int
    memories: int = 0
    hits: int = 0
    found: set[Label] = field(default_factory=set)
    false_positives: list[Memory] = field(default_factory=list)
    forbidden: list[Memory] = field(default_factory=list)

    @property
    def precision(self) -> float:
        return self.hits / self.memories if self.memories else 1.0

    @property
    def recall(self) -> float:
        return len(self.found) / self.labels if self.labels else 1.0


def load_split(real: Path = REAL) -> dict[str, list[str]]:
    raw = json.loads((real / "split.json").read_text(encoding="utf-8"))
    return {"tune": list(raw["tune"]), "test": list(raw["test"])}


def load_labels(real: Path = REAL) -> tuple[list[Label], set[tuple[str, int]]]:
    raw = json.loads((real / "labels.json").read_text(encoding="utf-8"))
    labels = [Label(p["session"], p["line"], p["kind"], p["gist"], tuple(p["keywords"])) for p in raw["positives"]]
    return labels, {(f["session"], f["line"]) for f in raw["forbidden"]}


def memories(distiller: Distiller, session: str, real: Path = REAL) -> tuple[list[Memory], Transcript]:
    """What the distiller would store from one session, after evidence validation."""
    t = registry.parse(session_file(session, real)).transcript
    out: list[Memory] = []
    for piece in chunk(clean_turns(t.turns), session_id=t.session_id, path=t.path):
        accepted, _ = evidence.validate(distiller.distill(piece), piece, has_secret=contains_secret)
        out.extend(Memory(session, c.evidence[0].line, c.kind, c.text) for c in accepted)
    return out, t


def session_file(session: str, real: Path = REAL) -> Path:
    """Where a session of the split is on disk (`fixtures/…` are read from tests/fixtures/real)."""
    folder, _, name = session.partition("/")
    if folder != "fixtures":
        return real / "sessions" / session
    if name in RENAMED:
        return FIXTURES / RENAMED[name]
    return FIXTURES / ("codex" if name.startswith("codex-") else "claude-code") / name


def score_half(distiller: Distiller, half: str, real: Path = REAL) -> HalfScore:
    sessions = load_split(real)[half]
    labels, forbidden = load_labels(real)
    mine = [lab for lab in labels if lab.session in set(sessions)]
    result = HalfScore(half, len(sessions), len(mine))
    for session in sessions:
        produced, t = memories(distiller, session, real)
        for memory in produced:
            _judge(result, memory, mine, forbidden, t)
    return result


def judge(result: HalfScore, memory: Memory, labels: list[Label], forbidden: set[tuple[str, int]],
          t: Transcript) -> None:
    """Count one stored memory: a hit, a false positive or forbidden."""
    _judge(result, memory, labels, forbidden, t)


def _judge(result: HalfScore, memory: Memory, labels: list[Label], forbidden: set[tuple[str, int]],
           t: Transcript) -> None:
    result.memories += 1
    if is_forbidden(memory, forbidden, t):
        result.forbidden.append(memory)
        return
    hit = matching(labels, memory.session, memory.line, memory.text)
    if hit:
        result.hits += 1
        result.found.update(hit)
    else:
        result.false_positives.append(memory)


def matching(labels: list[Label], session: str, line: int, text: str) -> list[Label]:
    """The labels a memory citing `line` of `session` with this `text` hits: same line, every keyword."""
    lowered = text.lower()
    return [lab for lab in labels if lab.session == session and lab.line == line
            and all(k.lower() in lowered for k in lab.keywords)]


def is_forbidden(memory: Memory, forbidden: set[tuple[str, int]], t: Transcript) -> bool:
    if (memory.session, memory.line) in forbidden or any(m in memory.session for m in SUBAGENT_FILES):
        return True
    on_line = [turn for turn in t.turns if turn.line_start <= memory.line <= turn.line_end]
    turn = next((turn for turn in on_line if turn.speaker == "user"), None)
    if turn is None:  # prose and an action can share a line: the action is what such a memory rests on
        return not (memory.kind in ACTION_KINDS and any(other.speaker == "action" for other in on_line))
    return turn.text.lstrip().lower().startswith(FORBIDDEN_OPENINGS)


def as_json(score: HalfScore) -> dict[str, object]:
    return {"half": score.half, "sessions": score.sessions, "labels": score.labels, "memories": score.memories,
            "hits": score.hits, "precision": score.precision, "recall": score.recall,
            "forbidden": len(score.forbidden)}
