"""The offline `rules` distiller: no key, no network, precision first.

It reads only the person's own words — typed prompts, and (when the reader provides them)
the reason given when rejecting a tool call, an answer to the assistant's question, plan
feedback (`turn.origin`). A sentence is kept when it states something a developer would want
told again, and only in the general shapes people use for that across authors: adoption ("ok
let's go with esbuild", "we use zod for validation", "switch to uv"), prohibition and durable
words ("never commit generated files", "from now on …", "in this repo always use pnpm"),
corrections ("no, use httpx"), facts and procedures stated as such ("tests run with vitest",
"the fix was …", "to release, run …"). English, German and Spanish.

Each sentence is scored (`score`): the strongest matching cue (`rules_patterns`) gives a kind
and a weight; a second cue, a durable word and a reason add a point; a one-off object ("don't
rewrite it", "the current changes") or narration ("I just ran …") take two off; questions,
hedges ("maybe", "I think") and one-off requests ("for now") are never kept. A sentence is kept
at `THRESHOLD` points, the threshold leave-one-group-out picks on the real set's tuning half
(`scripts/eval --real rules --cv`). The memory text is the sentence itself and the quote is that
same sentence, so every claim stays in the user's own words. Pasted material (see `rules_text`)
and injected bodies (slash-command and skill text, hook feedback, continuation summaries) are
never read. Each cue has anchor words; a sentence reaches only the cues whose anchors it
contains, so most sentences never meet a regular expression.

An explicit request to keep something (`loreline.asked`: "remember: never run git yourself",
"from now on use pnpm", in nine languages) is the one exception: a self-contained request is
stored active at once, marked `asked`, in the person's words less the request itself; a request
that points elsewhere ("save how you did that") waits in the review inbox as a suggestion that
quotes the request and the lines just before it (the assistant's actions, else its answer).

Apart from those, nothing the rules find is stored active on one sighting: every kept sentence is stored held, a
suggestion in the review inbox (`beliefs.suggestions`), with the confidence
`SUGGESTION_CONFIDENCE`. On the real set's test half, the sentences that read as standing rules
("always …", "from now on …", "we use X, not Y", an answer or a rejection naming the tool) were
right one time in six by its labels, so no offline cue is trusted to speak to the assistant
alone. A suggestion becomes active when a person approves it, when a model backend reads the
same lines and states it, or when the person says it again in a later session of the project
(`repeated`).
"""

from __future__ import annotations

import re

from ..models import Candidate, Chunk, Evidence, Turn
from . import rules_patterns as pat
from .rules_text import statements

NAME = "rules"
VERSION = "7"

MIN_LEN = 12
THRESHOLD = 2  #: points a sentence needs (chosen by leave-one-group-out on the tuning half)
ANSWER_POINTS = 9  #: an answer to the assistant's question is kept whatever the threshold
MAX_LEN = 400
ANSWER_ARROW = " → "
#: every rules candidate's confidence: below `beliefs.suggestions.ACTIVE_CONFIDENCE`, so it is suggested
SUGGESTION_CONFIDENCE = 0.5
_CORRECTION = pat.Cue("preference", 3, frozenset(), re.compile(""), pat.PRIOR, name="rejection imperative")

_INJECTED = (
    "base directory for this skill", "<session-start-hook>", "stop hook feedback", "caveat: the messages below",
    "this session is being continued", "<command-", "<local-command", "use and follow the ", "[request interrupted",
    "<system-reminder>", "<user-prompt-submit-hook>",
)
_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")
_ASCII_WORD = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)?")  #: `_WORD` on ASCII text, where letters are A-Z


class RulesDistiller:
    name = NAME
    policy = f"{NAME}@{VERSION}"
    threshold: int = THRESHOLD
    without: frozenset[str] = frozenset()

    def __init__(self, threshold: int = THRESHOLD, without: frozenset[str] = frozenset()) -> None:
        self.threshold = threshold
        self.without = without  # cue origins left out (`scripts/eval --real --cv`)

    def distill(self, chunk: Chunk) -> list[Candidate]:
        requested = requests(chunk, self.policy)
        lines = {c.evidence[0].line for c in requested}
        kept = [c for c, points in self.scored(chunk) if points >= self.threshold and c.evidence[0].line not in lines]
        return [*requested, *kept]

    def scored(self, chunk: Chunk) -> list[tuple[Candidate, int]]:
        """Every sentence some cue matched, with its score (kept when the score reaches the threshold)."""
        found: list[tuple[Candidate, int]] = []
        for turn in chunk.turns:
            if turn.speaker != "user" or turn.line_end <= chunk.context_until:
                continue
            found.extend(self._from_turn(turn))
        return found

    def _from_turn(self, turn: Turn) -> list[tuple[Candidate, int]]:
        origin = getattr(turn, "origin", "prompt")
        if origin == "answer":
            return [(c, ANSWER_POINTS) for c in self._answer(turn)]
        if not own_words(turn.text):
            return []
        short = origin in ("rejection", "plan-feedback")
        out: list[tuple[Candidate, int]] = []
        for sentence in statements(turn.text):
            found = score(sentence, short_answer=short, without=self.without)
            if found is not None:
                kind, points = found
                out.append((Candidate(kind, sentence, (Evidence(turn.line_start, sentence),), self.policy,
                                      SUGGESTION_CONFIDENCE), points))
        return out

    def _answer(self, turn: Turn) -> list[Candidate]:
        """An AskUserQuestion answer (`Question? → Answer`, one per line) is a decision."""
        out: list[Candidate] = []
        for line in turn.text.splitlines():
            line = line.strip()
            if classify_answer(line):
                out.append(Candidate("decision", line, (Evidence(turn.line_start, line),), self.policy,
                                     SUGGESTION_CONFIDENCE))
        return out


#: how many of the lines before a request that points elsewhere its suggestion quotes
POINTED_LINES = 6
_TRIM = re.compile(r"^[\s,.;:!\-–—]+|[\s,;:\-–—]+$")
_POLITE = re.compile(r"\b(?:please|pls|thanks|thank you|bitte|s'il te plaît|por favor|per favore)\b[.!]*", re.I)


def requests(chunk: Chunk, policy: str) -> list[Candidate]:
    """What the person explicitly asked to keep in this chunk (see the module docstring)."""
    from .. import asked

    out: list[Candidate] = []
    for line, ask in asked.in_chunk(chunk):
        turn = chunk.turn_at(line)
        if not ask.explicit or turn is None or not own_words(turn.text):
            continue
        if ask.self_contained:
            out.append(_kept_as_said(ask, line, turn, policy))
        else:
            pointed = _pointed(chunk, turn)
            if pointed:
                out.append(_pointing(ask, line, pointed, policy))
    return out


def _kept_as_said(ask: object, line: int, turn: Turn, policy: str) -> Candidate:
    from ..asked import Ask

    assert isinstance(ask, Ask)
    rule = _TRIM.sub("", _POLITE.sub(" ", ask.statement.replace(ask.phrase, " ", 1)))
    rule = " ".join(rule.split())
    text = (rule[:1].upper() + rule[1:]).rstrip(".") + "." if rule else ask.statement
    found = score(text)
    quote = ask.statement if ask.statement.lower() in " ".join(turn.text.split()).lower() else turn.text
    return Candidate(found[0] if found else "preference", text, (Evidence(line, quote),), policy, 1.0, asked=True)


def _pointed(chunk: Chunk, request: Turn) -> list[Turn]:
    """The turns a request that points elsewhere refers to: the assistant's actions since the
    person's previous prompt, else its last answer before the request."""
    before: list[Turn] = []
    for turn in chunk.turns:
        if turn is request:
            break
        if turn.speaker == "user":
            before = []
        else:
            before.append(turn)
    actions = [t for t in before if t.speaker == "action"]
    if actions:
        return actions[-POINTED_LINES:]
    answers = [t for t in before if t.speaker == "assistant"]
    return answers[-1:]


def _pointing(ask: object, line: int, pointed: list[Turn], policy: str) -> Candidate:
    from ..asked import Ask

    assert isinstance(ask, Ask)
    said = [" ".join(t.text.split()) for t in pointed]
    if pointed[0].speaker == "action":
        text, kind = "Asked to keep how this was done: " + "; ".join(said), "procedure"
    else:
        text, kind = "Asked to keep: " + said[0], "fact"
    text = text if len(text) <= MAX_LEN else text[: MAX_LEN - 1] + "…"
    evidence = (Evidence(line, ask.phrase), *(Evidence(t.line_start, s[:200]) for t, s in zip(pointed, said)))
    return Candidate(kind, text, evidence, policy, SUGGESTION_CONFIDENCE, asked=True)


def own_words(text: str) -> bool:
    """False for text the person did not type: injected bodies and pasted documents."""
    head = text.lstrip()[:200].lower()
    opening = head[:60]
    if head.startswith(_INJECTED) or any(marker in opening for marker in _INJECTED):
        return False
    return not head.startswith("# ")  # a slash-command or skill body, or a pasted document, opens with a title


def words(sentence: str) -> set[str]:
    lowered = sentence.lower()
    if lowered.isascii():  # most sentences: the same words, found without Unicode classes
        return set(_ASCII_WORD.findall(lowered))
    return set(_WORD.findall(lowered.replace("’", "'")))


def classify(sentence: str, *, short_answer: bool = False) -> str | None:
    """The kind of memory a sentence states, or None. `short_answer`: a rejection reason or
    plan feedback, where a bare imperative ("use uv, not pip") is already a correction."""
    found = score(sentence, short_answer=short_answer)
    return found[0] if found is not None and found[1] >= THRESHOLD else None


def score(sentence: str, *, short_answer: bool = False, without: frozenset[str] = frozenset()) -> tuple[str, int] | None:
    """(kind, points) for a sentence some cue matches, or None. The strongest cue gives the kind
    and its weight; a second cue, a durable word ("always", "from now on", "in this repo") and a
    reason each add one; a one-off object ("this file", "don't rewrite it") or narration ("I just
    ran …") take two off; questions, hedges and one-off requests ("for now") are never kept."""
    if not (MIN_LEN <= len(sentence) <= MAX_LEN) or "[REDACTED:" in sentence:
        return None
    seen = words(sentence)
    cues = pat.cues_for(seen, without)
    if not cues and not short_answer:
        return None
    text = sentence.replace("’", "'").replace("`", "")
    matched = [cue for cue in cues if cue.pattern.search(sentence if cue.raw else text)]
    if short_answer and pat.IMPERATIVE.match(text):
        matched.append(_CORRECTION)
    # the guards run only on a sentence some cue matched: they scan the whole sentence, a cue rarely does
    if not matched or text.rstrip().endswith("?") or pat.HEDGE.search(text) or pat.TRANSIENT.search(text):
        return None
    best = max(matched, key=lambda cue: cue.weight)  # the first of the strongest
    return best.kind, best.weight + _support(text, seen, matched)


def _support(text: str, seen: set[str], matched: list[pat.Cue]) -> int:
    points = 1 if len({cue.name for cue in matched}) > 1 else 0
    points += 1 if seen & pat.DURABLE_WORDS and pat.DURABLE.search(text) else 0
    points += 1 if (seen & pat.REASON_WORDS or ";" in text) and pat.REASON.search(text) else 0
    points -= 2 if pat.ONE_OFF.search(text) else 0
    points -= 2 if pat.NARRATION.match(text) else 0
    return points


def classify_answer(line: str) -> bool:
    """A `Question? → Answer` line whose answer says something (not a bare "ok")."""
    question, arrow, answer = line.partition(ANSWER_ARROW.strip())
    answer = answer.strip().strip('"')
    if not arrow or not question.strip() or len(answer) < 2 or len(line) > MAX_LEN:
        return False
    return answer.lower().rstrip(".!") not in pat.EMPTY_ANSWERS


def sentences(text: str) -> list[str]:
    """The person's own sentences in a prompt (see `rules_text.statements`)."""
    return statements(text)
