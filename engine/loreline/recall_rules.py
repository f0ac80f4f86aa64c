"""The rules every recall follows, in one place: the engine's (`recall`, `prompt_notes`, the
SessionStart order `Loreline.session_notes`) and the hooks' standard-library reader
(`capture.hookread`, `loreline_hooks.recall`), so both rank the same memories the same way.

Standard library only and cheap to import (the hook part): no typing, no dataclasses.

Which memories are offered at all:
- only `active` ones (superseded, forgotten and held memories never are), of the project or the
  user's own scope (`USER_SCOPE`);
- SessionStart and the prompt hook leave out a memory that may be stale unless it is pinned,
  and those the session already loads from a native file (`fresh_covers`); a query's recall
  keeps a stale one at `STALE_WEIGHT` of its score.

How they are ordered:
- a query (`recall.recall`): reciprocal-rank fusion (`RRF_K`) of bm25 and the nearest vectors,
  then trust: `STALE_WEIGHT`, up to `RECENCY_WEIGHT` more for what was said or confirmed
  recently, halving every `RECENCY_HALF_LIFE_DAYS`;
- SessionStart (`session_order`): by kind (`KIND_ORDER`, the other kinds last), within a kind
  those tied to a file the branch changes first, then pinned, then newest, then highest id;
- a prompt by meaning (`prompt_notes.for_prompt`): similarity, kept from `MEANING_FLOOR`, or from
  `MEANING_WORD_FLOOR` when the prompt's words chose it too; only embedders in `MEANING`;
- a prompt by words (`relevant`): the share of the prompt's word weight (idf) a memory holds,
  kept from `WORD_SHARE_FLOOR`, largest first, bm25 order breaking ties; the prompt is searched for
  its words and the categories it asks about (`asked`), and each sentence of a longer prompt
  counts on its own (`parts`).

Every query is read as it is understood (`questions.understand`): with the glossary categories
it asks about ("which package manager?" → python package manager, javascript package manager),
which each path matches against a memory's cue words and, with an embedder, embeds with it.

What they answer: each recall's compact result is a note, `(id, kind, text)`: the hooks inject
notes, the warm process sends them (with their similarity), and `RecallHit.note` is a query hit's.
"""

from __future__ import annotations

import math
import os
import re

TYPE_CHECKING = False  # importing typing costs the hook milliseconds
if TYPE_CHECKING:
    from collections.abc import Iterable

#: the `project` of memories in the user's own scope, offered in every project
USER_SCOPE = "(user)"
#: the status a memory must have to be offered
OFFERED = "active"
#: SessionStart's order of kinds; any other kind comes after these
KIND_ORDER = ("preference", "decision", "fact", "procedure")

# a query's recall (`recall.recall`), tuned per embedder there
RRF_K = 60
STALE_WEIGHT = 0.5
RECENCY_WEIGHT = 0.1
RECENCY_HALF_LIFE_DAYS = 30.0

# a prompt by meaning (`prompt_notes.for_prompt`): tuned on the tuning halves of both retrieval
# sets (`PYTHONPATH=scripts python -m evallib.prompt_recall --warm-grid`)
#: embedder families that compare meaning
MEANING = frozenset({"minilm", "static"})
MEANING_FLOOR = 0.45
MEANING_WORD_FLOOR = 0.35
#: the floor for a memory with cue vectors (its best similarity counts a question it answers,
#: which runs higher than its statement's), whether or not the prompt's words chose it: chosen
#: with the retrieval cues of a model backend on the sets' tuning halves (0.45 … 0.6 tried)
MEANING_CUED_FLOOR = 0.5

# a prompt by words (`relevant`): the share was set on half of the retrieval eval set;
# `python -m evallib.prompt_recall` reports the other half
WORD_SHARE_FLOOR = 0.3
MAX_TERMS = 24
MAX_PROMPT_CHARS = 4000
#: how many memories the prompt index holds per project (pinned, then newest) and how many of
#: its bm25 matches are weighed
MAX_INDEXED = 3000
CANDIDATES = 20

#: a prompt's sentences, each recalled on its own too (its first `PARTS`, each at least `MIN_PART`)
PARTS = 3
MIN_PART = 12
_PART_BREAK = re.compile(r"(?<=[.?!;])\s+|\n+|,\s+(?=(?:and|but|also|then|so)\b)", re.IGNORECASE)
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*", re.UNICODE)
STOP = frozenset("""
a about above after again against all also am an and any are aren't as at be because been before being
below between both but by can can't cannot could couldn't did didn't do does doesn't doing don't down
during each few for from further had hadn't has hasn't have haven't having he her here hers herself him
himself his how i i'm i've if in into is isn't it it's its itself just let let's me more most my myself
no nor not now of off on once only or other our ours ourselves out over own same she should shouldn't so
some such than that that's the their theirs them themselves then there there's these they this those
through to too under until up very was wasn't we we're were weren't what what's when where which while
who whom why will with won't would wouldn't you you'd you'll you're you've your yours yourself
please thanks thank hi hello hey ok okay yes yeah sure want wants need needs like look see tell show
help make makes made get got go going use used using uses try know think thing things way something
anything everything one two new now still again also really actually maybe well good great nice
fix add change update remove run check write read file files code line lines work working works done
do does doing can could would should might must may shall will just let lets here there why how what
""".split())


def kind_rank(kind: str) -> int:
    """A kind's place in SessionStart's order (`KIND_ORDER`; any other kind after them)."""
    try:
        return KIND_ORDER.index(kind)
    except ValueError:
        return len(KIND_ORDER)


def session_order(notes: list[tuple[int, str, str]], tied: set[int]) -> list[tuple[int, str, str]]:
    """SessionStart's notes, given in kind, pinned, newest order: within each kind, those tied
    to a changed file first (a stable sort keeps pinned-then-newest inside each group)."""
    if not tied:
        return notes
    return sorted(notes, key=lambda note: (kind_rank(note[1]), note[0] not in tied))


def fresh_covers(covers: Iterable[tuple[int, str, int, int]]) -> set[int]:
    """Of (memory id, native file, its size, its mtime_ns) as an import recorded them, the
    memories the session loads: a cover counts only while its file has that size and mtime (an
    edited or deleted file proves nothing), and covers from MEMORY.md do not count when
    `CLAUDE_CODE_DISABLE_AUTO_MEMORY` is set (Claude Code then loads no auto memory)."""
    auto_off = os.environ.get("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "").strip().lower() in ("1", "true", "yes")
    fresh: dict[str, bool] = {}
    out: set[int] = set()
    for memory_id, path, size, mtime_ns in covers:
        if auto_off and os.path.basename(str(path)) == "MEMORY.md":
            continue
        if path not in fresh:
            fresh[path] = _unchanged(str(path), int(size), int(mtime_ns))
        if fresh[path]:
            out.add(int(memory_id))
    return out


def _unchanged(path: str, size: int, mtime_ns: int) -> bool:
    try:
        st = os.stat(path)
    except OSError:
        return False
    return st.st_size == size and st.st_mtime_ns == mtime_ns


def with_authors(text: str, authors: str | None) -> str:
    """A teammate's memory names who shared it (`authors`: comma-separated)."""
    return f"{text} (team: {', '.join(authors.split(','))})" if authors else text


def terms(prompt: str) -> list[str]:
    """The prompt's searchable words, lowercased, in order of first appearance: at most
    `MAX_TERMS` from its first `MAX_PROMPT_CHARS` characters, minus stop words and generic
    request words ("please", "fix", "file", ...)."""
    words = _WORD.findall(prompt[:MAX_PROMPT_CHARS].lower())
    keep = [w.replace("’", "'") for w in words if len(w) > 1 and not (w.isdigit() and len(w) < 3)]
    return list(dict.fromkeys(w for w in keep if w not in STOP))[:MAX_TERMS]


def asked(prompt: str) -> list[str]:
    """What a prompt is searched for by words: its words (`terms`), then the categories it asks
    about (`questions.topics`: "how do I add a dependency?" → "python package manager", …),
    which the prompt index holds beside each memory's text."""
    from .questions import topics

    found = terms(prompt)
    return found + [t for t in topics(prompt[:MAX_PROMPT_CHARS]) if t not in found]


def sentences(text: str) -> list[str]:
    """A prompt's sentences and joined questions ("…, and how …") of at least `MIN_PART`
    characters, in order."""
    return [part.strip() for part in _PART_BREAK.split(text) if part and len(part.strip()) >= MIN_PART]


def parts(prompt: str) -> list[list[str]]:
    """What each of a prompt's first `PARTS` sentences is searched for (`asked`), when it has
    more than one: a memory may answer one sentence of a longer prompt ("…We'll need pydantic;
    can I pip install it?"), by words as by meaning (`prompt_notes`)."""
    found = sentences(prompt[:MAX_PROMPT_CHARS])
    return [searched for searched in (asked(p) for p in found[:PARTS]) if searched] if len(found) > 1 else []


def relevant(total: int, counts: dict[str, int],
             ranked: list[tuple[int, str, str, frozenset[str]]],
             groups: list[list[str]] | None = None) -> list[tuple[int, str, str]]:
    """The ranked memories that account for at least `WORD_SHARE_FLOOR` of the prompt's weight,
    most first.

    A word weighs its inverse document frequency over the `total` memories indexed,
    `ln(1 + total / (df + 1))`, a word no memory holds weighing as one that a single memory
    holds; a memory's share is the weight of the prompt's words it holds over the weight of
    all of them. So one shared everyday word among several specific ones is not enough, and a
    word most memories share adds little. With `groups` (what the whole prompt and each of its
    sentences is searched for, `parts`), a memory's share is its best over them."""
    weight = {t: math.log(1 + total / (max(df, 1) + 1)) for t, df in counts.items()}
    sets = [set(g) for g in (groups or [list(counts)]) if g]
    wholes = [sum(weight.get(t, 0.0) for t in g) for g in sets]
    if not any(wholes):
        return []
    shares = [(max(sum(weight.get(t, 0.0) for t in held & g) / w for g, w in zip(sets, wholes) if w), n,
               (i, kind, text)) for n, (i, kind, text, held) in enumerate(ranked)]
    return [row for share, _, row in sorted(shares, key=lambda s: (-s[0], s[1])) if share >= WORD_SHARE_FLOOR]
