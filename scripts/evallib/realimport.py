"""The real labelled set imported as a person's history: what ends up active, and is it right?

`realset` scores what a distiller proposes per session. What reaches the assistant is decided
later, on import: the offline rules only suggest, and a suggestion becomes active when the person
says it again in a later session of the project (`repeated`). So here each half's sessions are
imported project by project (a project is a folder of the set: one author's history), oldest name
first, through `pipeline.import_sessions` into a throwaway store with the user's default policy,
and every memory left **active** is judged against the labels: a hit when any of its sources cites
a labelled line and its text holds that label's keywords; forbidden when its first source is a
forbidden line (`realset`); else a false positive.
"""

from __future__ import annotations

import os
import tempfile
from collections import defaultdict
from pathlib import Path

from loreline.assistants import registry
from loreline import pipeline, transcripts
from loreline.distill.rules import RulesDistiller
from loreline.models import Transcript
from loreline.store import Store
from loreline.store import memories as rows

from . import realset


def score_half(half: str, real: Path = realset.REAL) -> realset.HalfScore:
    """Active memories after importing the half's sessions, one project after another."""
    sessions = sorted(realset.load_split(real)[half])
    labels, forbidden = realset.load_labels(real)
    mine = [lab for lab in labels if lab.session in set(sessions)]
    result = realset.HalfScore(half, len(sessions), len(mine))
    by_folder: dict[str, list[str]] = defaultdict(list)
    for session in sessions:
        by_folder[session.partition("/")[0]].append(session)
    where = {str(realset.session_file(s, real).resolve()): s for s in sessions}
    parsed: dict[str, Transcript] = {}
    saved = os.environ.pop("LORELINE_RULES_SUGGEST", None)  # the user's default: the rules only suggest
    try:
        with tempfile.TemporaryDirectory(prefix="loreline-realimport-") as tmp:
            for folder, members in sorted(by_folder.items()):
                with Store(Path(tmp) / f"{folder}.db") as store:
                    paths = [(realset.session_file(s, real), "claude-code" if "codex" not in s else "codex")
                             for s in members]
                    pipeline.import_sessions(store, paths, pipeline.Options(distiller=RulesDistiller()))
                    active, _ = rows.query(store, rows.Filter(status="active", limit=100_000))
                for memory in active:
                    _judge(result, memory.text, [(where.get(p.session_path, ""), p.line_start)
                                                 for p in memory.provenance], mine, forbidden, parsed, real)
    finally:
        if saved is not None:
            os.environ["LORELINE_RULES_SUGGEST"] = saved
    return result


def _judge(result: realset.HalfScore, text: str, sources: list[tuple[str, int]], labels: list[realset.Label],
           forbidden: set[tuple[str, int]], parsed: dict[str, Transcript], real: Path) -> None:
    hit = [lab for session, line in sources for lab in realset.matching(labels, session, line, text)]
    session, line = sources[0] if sources else ("", 0)
    memory = realset.Memory(session, line, "", text)
    result.memories += 1
    if hit:
        result.hits += 1
        result.found.update(hit)
        return
    if session and session not in parsed:
        parsed[session] = registry.parse(realset.session_file(session, real)).transcript
    if not session or realset.is_forbidden(memory, forbidden, parsed[session]):
        result.forbidden.append(memory)
    else:
        result.false_positives.append(memory)


def render(score: realset.HalfScore) -> str:
    from .backendrun import rate

    return (f"rules through import on the real set's {score.half} half: {score.sessions} sessions, {score.labels} "
            f"labels\n  active after import: {score.memories} memories, precision {rate(score)}, recall {score.recall:.2f}, "
            f"forbidden {len(score.forbidden)}")
