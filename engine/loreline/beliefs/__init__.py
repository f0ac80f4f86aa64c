"""The belief pipeline: how a validated candidate changes what a project believes.

Two phases, so no model call ever runs inside a write transaction:
`plan()` reads the store and asks the model (outside any transaction); `apply()` runs inside
the chunk's transaction, re-checks what it relies on, and writes.

Invariants:
- everything happens within one project; nothing merges or conflicts across projects;
- a wording the user forgot (a tombstone) never comes back from any import;
- an exact duplicate (same normalised wording) is merged: no new memory, one more provenance
  row (the same source twice adds nothing), so re-reading a session is a no-op;
- near duplicates are the active memories among the 5 nearest vectors with similarity at or
  above NEAR_SIMILARITY. With a judge each is classified (one model call for every pair of a
  chunk when the judge can, `plan_all`): `identical` → a new version of
  that memory with the new wording (the old one superseded, its `valid_until` set);
  `contradictory` → the candidate is added and a conflict recorded (both stay active), and an
  imported contradiction is judged once, right away, with both excerpts and timestamps:
  `keep_new` / `keep_existing` / `keep_both` resolve it (revertibly), `unsure` leaves it
  pending for the person; `complementary` → added. Without a judge only a near-identical
  wording of the same kind is versioned (similarity ≥ IDENTICAL_SIMILARITY and the same
  content words, so "stage 0" never versions "stage 1"); an explicit reversal of an earlier
  decision ("scrap that", "from now on", `reversal`) supersedes it through a judged,
  revertible conflict; other contradictions cannot be seen and wait for a model;
- if the store changed between plan and apply (another importer got there first), apply
  falls back to merge or add: never a duplicate;
- every write leaves an audit row naming the actor (import, hook, user, judge).
"""

from __future__ import annotations

import array
import re
from enum import Enum
from typing import Protocol

from . import conflicts

from . import curate

from . import reversal
from . import suggestions
from .. import questions, records, staleness, vectors
from ..embed import Embedder
from ..errors import ModelOutputError
from ..models import Candidate, Memory, Provenance
from ..store import Store
from ..store import memories as rows
from ..store import search

NEIGHBOURS = 5
NEAR_SIMILARITY = 0.55
IDENTICAL_SIMILARITY = 0.92
RELATIONS = ("identical", "complementary", "contradictory")
VERDICTS = ("keep_new", "keep_existing", "keep_both", "unsure")


class Outcome(Enum):
    ADDED = "added"
    MERGED = "merged"
    VERSIONED = "versioned"
    CONFLICTED = "conflicted"
    KNOWN_SOURCE = "known-source"
    FORGOTTEN = "forgotten"


@records.record
class Context:
    """What the application (never the model) knows about where a candidate came from."""

    project: str
    provenance: Provenance
    files: tuple[str, ...]
    replay_key: str
    actor: str = "import"
    #: set: a new memory is held for review with this reason (`capture.review = "ask"`)
    hold: str | None = None


class Judge(Protocol):
    """A model that compares a new belief with an existing memory."""

    def classify(self, candidate: Candidate, ctx: Context, existing: Memory) -> tuple[str, str]:
        """(relation, reason): relation is one of RELATIONS."""
        ...

    def judge(self, candidate: Candidate, ctx: Context, existing: Memory) -> tuple[str, str]:
        """(verdict, reason) for a contradiction: verdict is one of VERDICTS."""
        ...


@records.record(frozen=False)
class Plan:
    candidate: Candidate
    ctx: Context
    digest: str
    vector: bytes
    forgotten: bool = False
    version_of: int | None = None
    contradicts: list[tuple[int, str]] = records.field(default_factory=list)
    verdicts: dict[int, tuple[str, str]] = records.field(default_factory=dict)
    relations: dict[int, str] = records.field(default_factory=dict)
    #: no model: explicit reversals are looked for at apply time, so a reversal later in the
    #: same chunk sees the decision it reverses
    offline: bool = False
    #: the vector stored for a new memory when it differs from `vector` (a model's cues embedded too)
    stored_vector: bytes | None = None
    #: the vectors of a new memory's cue lines (`vectors.embed_cues`)
    cue_vectors: list[bytes] = records.field(default_factory=list)
    #: where this candidate's pairs start among those classified together (`plan_all`)
    pair_start: int = 0


def plan(store: Store, candidate: Candidate, ctx: Context, embedder: Embedder, judge: Judge | None,
         vector: bytes | None = None) -> Plan:
    """Decide what a candidate would do (reads and model calls only, no writes). `vector`, when
    given, is what `embedder` makes of the candidate's text, already computed (a teammate's
    memory arrives with the vector their identical embedder made): it is used as it is."""
    return plan_all(store, [(candidate, ctx, vector)], embedder, judge)[0]


def plan_all(store: Store, items: list[tuple[Candidate, Context, bytes | None]], embedder: Embedder,
             judge: Judge | None) -> list[Plan]:
    """`plan` for several candidates (one chunk's): their near duplicates are classified in one
    model call when the judge can (`BatchJudge`), else one call per pair."""
    plans: list[Plan] = []
    pending: list[tuple[Plan, list[tuple[Memory, float]]]] = []
    for candidate, ctx, vector in items:
        result = _prepared(store, candidate, ctx, embedder, vector)
        plans.append(result)
        if result.forgotten or merge_target(store, ctx.project, result.digest, ctx.provenance.observed_at) is not None:
            continue
        result.offline = judge is None
        neighbours = near(store, ctx.project, result.vector)
        if judge is None:
            _offline_version(result, neighbours)
        elif neighbours:
            pending.append((result, neighbours))
    if judge is not None and pending:
        start = 0
        for result, neighbours in pending:
            result.pair_start, start = start, start + len(neighbours)
        relations = _classified(judge, pending)
        for result, neighbours in pending:
            _settle(judge, result, neighbours, relations)
    return plans


def _prepared(store: Store, candidate: Candidate, ctx: Context, embedder: Embedder, vector: bytes | None) -> Plan:
    digest = rows.content_hash(candidate.text)
    result = Plan(candidate, ctx, digest, embedder.embed(candidate.text) if vector is None else vector)
    if candidate.cues and vector is None:  # a given vector (a teammate's) was made with the cues
        result.stored_vector = embedder.embed(rows.embedded_text(candidate.text, candidate.cues))
    result.cue_vectors = vectors.embed_cues(embedder, stored_cues(candidate))
    result.forgotten = rows.is_tombstoned(store, ctx.project, digest)
    return result


def _offline_version(result: Plan, neighbours: list[tuple[Memory, float]]) -> None:
    for memory, similarity in neighbours:
        if similarity >= IDENTICAL_SIMILARITY and memory.kind == result.candidate.kind \
                and content_words(memory.text) == content_words(result.candidate.text):
            result.version_of = memory.id
            return


Pair = tuple[Candidate, Context, Memory]


def _classified(judge: Judge, pending: list[tuple[Plan, list[tuple[Memory, float]]]]) -> dict[int, tuple[str, str]]:
    """Each (candidate, near memory) pair's (relation, reason), keyed by its place in the list;
    a pair the model gave no usable answer for is left out (unclassified)."""
    pairs: list[Pair] = [(p.candidate, p.ctx, memory) for p, neighbours in pending for memory, _ in neighbours]
    many = getattr(judge, "classify_many", None)
    if many is not None:
        try:
            found: dict[int, tuple[str, str]] = many(pairs)
            return found
        except ModelOutputError:
            return {}
    out: dict[int, tuple[str, str]] = {}
    for index, (candidate, ctx, memory) in enumerate(pairs):
        try:
            out[index] = judge.classify(candidate, ctx, memory)
        except ModelOutputError:
            continue  # an answer outside the contract: the pair stays unclassified
    return out


def _settle(judge: Judge, result: Plan, neighbours: list[tuple[Memory, float]],
            relations: dict[int, tuple[str, str]]) -> None:
    """Act on the classified pairs of one candidate, most similar first (its pairs start at
    `pair_start` among every pending candidate's)."""
    start = result.pair_start
    for offset, (memory, _) in enumerate(neighbours):
        found = relations.get(start + offset)
        if found is None:
            continue
        relation, reason = found
        result.relations[memory.id] = relation
        if relation == "identical":
            result.version_of = memory.id
            return
        if relation == "contradictory":
            result.contradicts.append((memory.id, reason))
            if result.ctx.actor == "import":
                try:
                    result.verdicts[memory.id] = judge.judge(result.candidate, result.ctx, memory)
                except ModelOutputError:
                    result.verdicts[memory.id] = ("unsure", "the judge answered outside the contract")


_WORD = re.compile(r"[\w.$-]+")
_FILLER = frozenset("a an the this that these those to of for in on at by with and or we i you our it is are be "
                    "will 'll shall should".split())


def content_words(text: str) -> frozenset[str]:
    """The words that carry meaning: near-identical wordings without a model must share all of them."""
    words = (w.strip(".-").lower() for w in _WORD.findall(text))
    return frozenset(w for w in words if w and w not in _FILLER)


def near(store: Store, project: str, vector: bytes) -> list[tuple[Memory, float]]:
    """Active memories of the project among the nearest vectors, most similar first."""
    if not any(array.array("f", vector)):
        return []
    found = [(mid, 1.0 - dist) for mid, dist in search.knn(store, vector, project, NEIGHBOURS)
             if 1.0 - dist >= NEAR_SIMILARITY]
    loaded = {m.id: m for m in rows.load(store, [mid for mid, _ in found])}
    return [(loaded[mid], sim) for mid, sim in found if mid in loaded and loaded[mid].status == "active"]


def apply(store: Store, p: Plan, embedder: Embedder) -> tuple[Outcome, int | None]:
    """Carry out a plan inside the caller's write transaction; a memory the person asked to keep
    says so whichever way the candidate landed (added, merged, versioned)."""
    outcome, memory_id = _apply(store, p, embedder)
    if p.candidate.asked and memory_id is not None and outcome is not Outcome.FORGOTTEN:
        rows.mark_asked(store, memory_id)
    return outcome, memory_id


def _apply(store: Store, p: Plan, embedder: Embedder) -> tuple[Outcome, int | None]:
    ctx = p.ctx
    if p.forgotten or rows.is_tombstoned(store, ctx.project, p.digest):
        return Outcome.FORGOTTEN, None
    existing = merge_target(store, ctx.project, p.digest, ctx.provenance.observed_at)
    if existing is not None:
        return _merge(store, existing, ctx)
    target = _still_active(store, p.version_of)
    if target is not None:
        return Outcome.VERSIONED, _version(store, target, p, embedder)
    if p.offline:
        for memory, reason in reversal.targets(store, p.candidate, ctx.project, ctx.provenance.observed_at):
            p.contradicts.append((memory.id, reason))
            if ctx.hold is None:  # held (a suggestion, or review asked): the conflict waits for a person
                p.verdicts[memory.id] = ("keep_new", reason)
    memory_id = _add(store, p)
    live = [(mid, reason) for mid, reason in p.contradicts if _still_active(store, mid) is not None]
    for existing_id, reason in live:
        _conflict(store, ctx, existing_id, memory_id, reason, p.verdicts.get(existing_id))
    return (Outcome.CONFLICTED if live else Outcome.ADDED), memory_id


def merge_target(store: Store, project: str, digest: str, said_at: str | None) -> int | None:
    """The memory an exact duplicate merges into: the active one with this wording; else a
    superseded one, when the words were said before it stopped being true (an older source
    of the old belief). Said again *after* it was superseded, the words are a new statement
    (someone going back to it), not a source of the superseded memory."""
    for memory_id, status, valid_until in rows.by_hash(store, project, digest):
        if status == "active" or valid_until is None or said_at is None or said_at <= valid_until:
            return memory_id
    return None


def _still_active(store: Store, memory_id: int | None) -> Memory | None:
    if memory_id is None:
        return None
    found = rows.load(store, [memory_id])
    return found[0] if found and found[0].status == "active" else None


def _merge(store: Store, memory_id: int, ctx: Context) -> tuple[Outcome, int]:
    if not rows.add_provenance(store, memory_id, ctx.provenance, ctx.replay_key):
        return Outcome.KNOWN_SOURCE, memory_id
    _tie(store, ctx, memory_id)
    rows.note_observed(store, memory_id, ctx.provenance.observed_at)
    rows.audit(store, ctx.actor, "merge", memory_id, after=_source(ctx))
    if ctx.hold is None:  # stored active now: the same words only suggested before are confirmed
        suggestions.confirm(store, memory_id, ctx.actor)
    return Outcome.MERGED, memory_id


def stored_cues(candidate: Candidate) -> str:
    """The cues a new memory is stored with: its distiller's, or for the rules distiller's the
    glossary's words for the tools it names."""
    return candidate.cues or (questions.glossary_cues(candidate.text) if candidate.extractor.startswith("rules")
                              else "")


def _add(store: Store, p: Plan) -> int:
    ctx, candidate = p.ctx, p.candidate
    cues = stored_cues(candidate)
    memory_id = rows.insert(store, rows.NewMemory(
        project=ctx.project, kind=candidate.kind, text=candidate.text,
        observed_at=ctx.provenance.observed_at, extractor=candidate.extractor, cues=cues,
    ))
    rows.add_provenance(store, memory_id, ctx.provenance, ctx.replay_key)
    _tie(store, ctx, memory_id)
    # a model's cues are embedded with the text; the glossary's add nothing the embedder does not
    search.put_vector(store, memory_id, p.stored_vector or p.vector)
    search.put_cue_vectors(store, memory_id, p.cue_vectors)
    if ctx.hold:
        rows.hold(store, memory_id, ctx.hold)
    rows.audit(store, ctx.actor, "add", memory_id, after={"kind": candidate.kind, "text": candidate.text,
                                                          **_source(ctx)})
    return memory_id


def _version(store: Store, old: Memory, p: Plan, embedder: Embedder) -> int:
    ctx = p.ctx
    details = {"relation": p.relations.get(old.id, "near-identical"), **_source(ctx)}
    new_id = curate.supersede_with(store, old, p.candidate.text, ctx.actor, embedder, kind=p.candidate.kind,
                                   action="version", details=details, vector=p.vector)
    rows.restamp_version(store, new_id, old.id, ctx.provenance.observed_at, p.candidate.extractor)
    rows.add_provenance(store, new_id, ctx.provenance, ctx.replay_key)
    _tie(store, ctx, new_id)
    return new_id


def _tie(store: Store, ctx: Context, memory_id: int) -> None:
    """Tie the memory to the files around its evidence, anchored to their content now."""
    rows.add_files(store, memory_id, ctx.files)
    if ctx.files:
        staleness.anchor_files(store, ctx.project, memory_id)


def _conflict(store: Store, ctx: Context, existing_id: int, new_id: int, reason: str,
              verdict: tuple[str, str] | None) -> None:
    conflict_id = conflicts.record(store, ctx.project, existing_id, new_id, reason, actor=ctx.actor)
    if verdict is None or verdict[0] not in VERDICTS or verdict[0] == "unsure":
        return
    conflicts.resolve(store, conflict_id, verdict[0], decided_by="judge", reason=verdict[1])


def _source(ctx: Context) -> dict[str, object]:
    p = ctx.provenance
    return {"session_id": p.session_id, "path": p.session_path, "lines": [p.line_start, p.line_end]}


def reconcile(store: Store, candidate: Candidate, ctx: Context, embedder: Embedder,
              judge: Judge | None = None) -> tuple[Outcome, int | None]:
    """Plan and apply in one go (the caller holds the write transaction; no judge calls then)."""
    return apply(store, plan(store, candidate, ctx, embedder, judge), embedder)
