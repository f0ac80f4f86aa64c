"""The offline `rules` distiller: no key, no network, high precision, narrow recall.

It reads only the person's own lines and keeps a sentence when it is an explicit
preference ("in this repo we use pnpm, never npm"), a decision with its reason ("we'll use
advisory locks because each job needs one worker"), a finding ("the fix was …", "turns out
…", "on macOS the build needs OPENSSL_DIR"), or a procedure ("to release, run …"). The
memory text is the sentence itself, so every claim is the user's own words, and the quote
is that same sentence. Questions, hedges and transient progress are never kept.
"""

from __future__ import annotations

import re

from ..models import Candidate, Chunk, Evidence, Turn

NAME = "rules"
VERSION = "1"

_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+(?=[A-Z`\"'(\[])|\n+")
_WS = re.compile(r"\s+")

_HEDGE = re.compile(
    r"^(?:maybe|perhaps|should we|could we|can we|do we|what if|i think|i wonder|not sure|"
    r"i'?m not sure|might|let me|i'?ll try|try to|can you|could you|would you|why|how|what|"
    r"is it|are we|does|did)\b",
    re.IGNORECASE,
)
_TRANSIENT = re.compile(r"\b(?:for now|right now|temporarily|for the moment|just this once|today)\b", re.I)
_REASON = re.compile(r"\b(?:because|since|so that|as it|as we|given that|due to|otherwise|"
                     r"(?:is|isn'?t|is not|not) worth)\b", re.I)

_GENERIC = (r"(?:messages?|names?|files?|tests?|commits?|branches?|functions?|classes?|variables?|imports?|"
            r"exports?|components?|endpoints?|migrations?|PRs?|pull requests?|docstrings?|comments?|logs?)")
_ENVIRONMENTS = (r"(?:macos|mac|linux|windows|ubuntu|debian|alpine|arm64|apple silicon|m1|m2|m3|wsl2?|"
                 r"docker|ci|node \d+|python 3\.\d+)")
_ALWAYS_NEVER = r"(?:toujours|jamais|immer|nie|niemals|siempre|nunca|sempre|mai)"
_USE_WORDS = r"(?:on utilise|nous utilisons|utilise[zr]?|wir (?:verwenden|nutzen|benutzen)|usamos|utilizamos|usiamo)"

_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "preference",
        re.compile(
            r"\b(?:(?:i|we) (?:always|never|usually) (?:use|prefer|want|run|write|do|put|keep|call)|"
            r"(?:i|we) (?:prefer|like to|want to always)|i'?d rather|"
            r"(?:^|please |pls )(?:always|never) \w+|"
            r"(?:^|please |pls )(?:don'?t|do not) (?:ever )?(?:use|add|run|commit|push|call|import|write|mock)|"
            r"(?:in|for) this (?:repo|repository|project|codebase|team),? (?:we|i|always|never|use|don'?t)|"
            r"(?:for|in) (?:\w+ ){1,3}(?:code|files|tests|services?|modules?|packages?),? we (?:use|prefer|always|never)|"
            r"from now on,? (?:always|never|please|don'?t)|"
            r"\buse \S+ (?:instead of|rather than|over) |"
            r"\bprefer \S+(?: \S+)? (?:over|to|instead of) |"
            r"^(?:when|whenever) [^,]{5,80}, (?:always |never |please )?(?:ask|use|run|check|don'?t|do not|make sure|keep)\b|"
            r"^(?:keep|make) (?:the |all |our )?[\w .-]{2,40} \w+, (?:no|not|never) \w+|"
            rf"^please (?:always |never )?(?:write|name|keep|format|use) (?:\w+ ){{0,2}}{_GENERIC}\b|"
            rf"\b{_GENERIC} (?:should|must) (?:always |never )?(?:be|use|go|stay|start|end)\b|"
            rf"{_USE_WORDS}\b.{{0,60}}\b{_ALWAYS_NEVER}\b|\b{_ALWAYS_NEVER}\b.{{0,40}}\b{_USE_WORDS})",
            re.IGNORECASE,
        ),
    ),
    (
        "decision",
        re.compile(
            r"\b(?:(?:we|i) (?:decided|chose|agreed|picked|settled on|are going with)|"
            r"(?:we|i)(?:'ll| will| should| are going to)? (?:go with|switch to|move to|adopt|stick with|stay on|"
            r"stay with|keep using|standardi[sz]e on)|"
            r"let'?s (?:go with|use|switch to|stick with|keep|move to|adopt|stay on)|"
            r"let'?s (?:move|migrate|switch) (?:\w+ ){1,3}to|"
            r"from now on,? (?:we|i)\b|"
            r"^decision:|^decided:|we(?:'ll| will) use)",
            re.IGNORECASE,
        ),
    ),
    (
        "fact",
        re.compile(
            r"\b(?:the (?:fix|solution|workaround|root cause|cause|culprit|problem|issue|trick) (?:was|is|turned out)|"
            r"(?:it )?turn(?:s|ed) out|"
            rf"(?:on|under|with) {_ENVIRONMENTS}\b.{{0,80}}\b(?:needs?|requires?|must|fails?|breaks?|crash(?:es)?|"
            r"only (?:works|builds|runs|compiles))|"
            r"only (?:works|builds|runs|compiles) (?:with|when|if|on|under)|"
            r"\b(?:needs|requires) [A-Z][A-Z0-9_]{2,} (?:to be )?set|"
            r"\b(?:always|only) (?:runs?|lives?|deploys?) (?:in|on) |"
            r"\bmy (?:setup|machine|environment|dev environment|laptop|dev box)(?: is|:))",
            re.IGNORECASE,
        ),
    ),
    (
        "procedure",
        re.compile(
            r"(?:^|\b)(?:to (?:deploy|release|publish|build|run|test|migrate|set up|setup|reset|regenerate|bump|rebuild|seed)\b[^,.]{0,60}, (?:run|use|do|first|call)\b|"
            r"^(?:steps|procedure|how to \w+):|the way to \w+(?: \w+){0,3}(?: is(?: to)?|:)|"
            r"\bwe (?:\w+ ){1,3}every \d+ (?:minutes|hours|days|weeks|months)\b)",
            re.IGNORECASE,
        ),
    ),
)

MIN_LEN = 12
MAX_LEN = 400


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
        out: list[Candidate] = []
        for sentence in sentences(turn.text):
            kind = classify(sentence)
            if kind is not None:
                out.append(Candidate(kind, _WS.sub(" ", sentence), (Evidence(turn.line_start, sentence),), self.policy))
        return out


def sentences(text: str) -> list[str]:
    """Split a prompt into sentences, keeping each as an exact substring of the text."""
    parts = (p.strip() for p in _SENTENCE_END.split(text))
    return [p.lstrip("-*• ").strip() for p in parts if p and p.strip()]


def classify(sentence: str) -> str | None:
    """The kind of memory a sentence states explicitly, or None."""
    if not (MIN_LEN <= len(sentence) <= MAX_LEN):
        return None
    if sentence.rstrip().endswith("?") or _HEDGE.match(sentence) or _TRANSIENT.search(sentence):
        return None
    if "[REDACTED:" in sentence:
        return None
    for kind, pattern in _PATTERNS:
        if not pattern.search(sentence):
            continue
        if kind == "decision" and not _REASON.search(sentence) and not _EXPLICIT_DECISION.search(sentence):
            continue
        return kind
    return None


_EXPLICIT_DECISION = re.compile(r"\b(?:decided|chose|agreed|settled on)\b|^decision:", re.IGNORECASE)
