"""The offline `rules` distiller: no key, no network, precision first.

It reads only the person's own words — typed prompts, and (when the reader provides them)
the reason given when rejecting a tool call, an answer to the assistant's question, plan
feedback (`turn.origin`). A sentence is kept when it states something a developer would
want told again: a standing preference ("we're using pnpm so we should not use npm
install", "use agents when useful", "no, use X"), a decision with its object ("ok let's
go with esbuild", "we should fall back to the email when the name is empty", "keep the
old ORM while we move to drizzle"), a fact about the project or machine ("fyi the staging
db is read-only", "tests run with vitest", "in this repo the worktrees are plain folders"),
or a procedure ("before committing, run pnpm start"). English, German and Spanish.

The memory text is the sentence itself and the quote is that same sentence, so every claim
stays in the user's own words. Questions, hedges ("maybe", "i think"), one-off requests
("for now", "this time") and pasted material (see `rules_text`) are never kept. Injected
bodies (slash-command and skill text, hook feedback, continuation summaries) are skipped
whole. Each rule has anchor words (see `rules_patterns`); a sentence reaches only the rules whose
anchors it contains, so most sentences never meet a regular expression.
"""

from __future__ import annotations

import re

from ..models import Candidate, Chunk, Evidence, Turn
from . import rules_patterns as pat
from .rules_text import statements

NAME = "rules"
VERSION = "2"

MIN_LEN = 12
MAX_LEN = 400
ANSWER_ARROW = " → "

_INJECTED = (
    "base directory for this skill", "<session-start-hook>", "stop hook feedback", "caveat: the messages below",
    "this session is being continued", "<command-", "<local-command", "use and follow the ", "[request interrupted",
    "<system-reminder>", "<user-prompt-submit-hook>",
)
_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")


class RulesDistiller:
    name = NAME
    policy = f"{NAME}@{VERSION}"

    def distill(self, chunk: Chunk) -> list[Candidate]:
        found: list[Candidate] = []
        for turn in chunk.turns:
            if turn.speaker != "user" or turn.line_end <= chunk.context_until:
                continue
            found.extend(self._from_turn(turn))
        return found

    def _from_turn(self, turn: Turn) -> list[Candidate]:
        origin = getattr(turn, "origin", "prompt")
        if origin == "answer":
            return self._answer(turn)
        if not own_words(turn.text):
            return []
        short = origin in ("rejection", "plan-feedback")
        out: list[Candidate] = []
        for sentence in statements(turn.text):
            kind = classify(sentence, short_answer=short)
            if kind is not None:
                out.append(Candidate(kind, sentence, (Evidence(turn.line_start, sentence),), self.policy))
        return out

    def _answer(self, turn: Turn) -> list[Candidate]:
        """An AskUserQuestion answer (`Question? → Answer`, one per line) is a decision."""
        out: list[Candidate] = []
        for line in turn.text.splitlines():
            line = line.strip()
            if classify_answer(line):
                out.append(Candidate("decision", line, (Evidence(turn.line_start, line),), self.policy))
        return out


def own_words(text: str) -> bool:
    """False for text the person did not type: injected bodies and pasted documents."""
    head = text.lstrip()[:200].lower()
    if any(head.startswith(marker) or marker in head[:60] for marker in _INJECTED):
        return False
    return not (head.startswith("# ") and len(text) > 400)  # a pasted document or command body


def words(sentence: str) -> set[str]:
    return set(_WORD.findall(sentence.lower().replace("’", "'")))


def classify(sentence: str, *, short_answer: bool = False) -> str | None:
    """The kind of memory a sentence states, or None. `short_answer`: a rejection reason or
    plan feedback, where a bare imperative ("use uv, not pip") is already a correction."""
    if not (MIN_LEN <= len(sentence) <= MAX_LEN) or "[REDACTED:" in sentence:
        return None
    seen = words(sentence)
    candidates = pat.rules_for(seen)
    if not candidates and not short_answer and not (seen & pat.EXPLICIT_WORDS):
        return None
    text = sentence.replace("’", "'").replace("`", "")
    if text.rstrip().endswith("?") or pat.HEDGE.match(text) or pat.TRANSIENT.search(text):
        return None
    if seen & pat.EXPLICIT_WORDS and pat.EXPLICIT.search(text):
        return "decision"
    for rule in candidates:
        if rule.pattern.search(text) and (not rule.needs_reason or pat.REASON.search(text)):
            return rule.kind
    if short_answer and pat.IMPERATIVE.match(text):
        return "preference"
    return None


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
