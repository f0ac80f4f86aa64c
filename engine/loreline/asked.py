"""A person's explicit request to keep something: "remember this", "save it in your memory".

People say plainly when something must be kept ("save in your memory", "remember that…", "for
the future", "from now on", "always …"), in the nine languages the redactor covers (English,
German, French, Spanish, Portuguese, Italian, Russian, Japanese, Chinese). `find(text)` finds
such a request in a person's own words and says what it refers to:

- **self-contained**: the request carries what is to be kept ("remember: never run git
  yourself", "from now on use pnpm", "never execute git, save in your memory please"): the
  statement is the text around the request phrase;
- **pointing elsewhere**: the request names nothing but "this", "that", "how you did it" ("save
  how you did that in memory", "remember this for the future"): what is meant is what happened
  just before (often the assistant's actions), which only a model, or a person, can put in words.

Every backend is told about a request (`note_for_model`): a model is asked to record what was
meant and mark it `asked`; the offline rules keep a self-contained request at once and put one
that points elsewhere in the review inbox with the lines it points to (`distill.rules`). A memory
keeps `asked` only when one of its evidence lines is a person's line holding a request
(`confirmed`), so a model cannot mark what nobody asked for.

Quoted or pasted text is not the person's request (the sanitizer's `[quoted]` spans are left
out before looking), and "always"/"never" count only as the first word of a sentence ("Always run
the linter"), never inside one ("it always fails").
"""

from __future__ import annotations

import re

from .records import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from .models import Candidate, Chunk

# asking to keep: a keep or remember verb ("remember …", "save it in your memory", "don't forget")
_KEEP = [
    r"remember\s*[:,]", r"remember (?:this|that|it|these|those|how|what|to|for|the)\b", r"please remember",
    r"always remember",
    r"(?:save|store|keep|put|add|write|note|record)\b[^.!?\n]{0,40}?\b(?:in|into|to|in to) (?:your |the |ur )?"
    r"(?:memory|memories|notes|claude\.md|agents\.md)",
    r"\bmemori[sz]e\b", r"keep (?:this|that|it) in mind", r"bear (?:this|that|it) in mind",
    r"don'?t forget", r"never forget", r"make a note", r"take note", r"note (?:this|that) (?:down|for)",
    r"merk(?:e)? (?:dir|euch|ihnen)", r"vergiss (?:nicht|das nicht)", r"(?:speicher|speichere|notier|notiere)\b"
    r"[^.!?\n]{0,40}?(?:gedächtnis|speicher|memory|notizen)", r"behalte? (?:das|dies|es) im (?:kopf|hinterkopf)",
    r"souviens[- ]toi", r"rappelle[- ]toi", r"retiens (?:que|bien|ça|cela|le|la|les)", r"\bmémorise",
    r"(?:garde|enregistre|note|sauvegarde)\b[^.!?\n]{0,40}?(?:en|dans ta|dans la) mémoire", r"n'oublie pas",
    r"recuerda (?:que|esto|eso|lo|cómo|:|,)", r"acuérdate", r"\bmemoriza", r"no (?:te )?olvides",
    r"(?:guarda|anota|graba)\b[^.!?\n]{0,40}?(?:en (?:tu |la )?memoria)",
    r"lembre[- ]se", r"lembra (?:que|disso|de)", r"\bmemorize", r"não (?:se )?esqueça",
    r"(?:guarde|salve|anote)\b[^.!?\n]{0,40}?(?:na (?:sua )?memória)",
    r"ricorda(?:ti)? (?:che|questo|quello|come|:|,)", r"tieni (?:a|in) mente", r"\bmemorizza", r"non dimenticare",
    r"(?:salva|annota|registra)\b[^.!?\n]{0,40}?(?:nella (?:tua )?memoria)",
    r"запомни", r"сохрани\b[^.!?\n]{0,40}?памят", r"не забудь",
    r"覚えておいて", r"覚えといて", r"覚えて", r"記憶して", r"メモリに保存", r"忘れないで",
    r"记住", r"記住", r"保存到记忆", r"存到记忆", r"别忘了", r"別忘了",
]
# saying it lasts: "from now on", "for the future", "going forward" (a model is told; the rules do not
# act on these alone: on real text, such sentences were rarely standing rules)
_DURABLE = [
    r"for (?:the )?future(?: reference| sessions?)?", r"from now on", r"going forward", r"in (?:the )?future,",
    r"für die zukunft", r"ab (?:jetzt|sofort)", r"von nun an", r"künftig", r"in zukunft",
    r"à l'avenir", r"désormais", r"dorénavant", r"à partir de maintenant",
    r"de ahora en adelante", r"a partir de ahora", r"en el futuro,", r"para el futuro",
    r"de agora em diante", r"daqui (?:pra|para) frente", r"no futuro,",
    r"d'ora in (?:poi|avanti)", r"da ora in (?:poi|avanti)", r"in futuro,",
    r"на будущее", r"впредь", r"с этого момента", r"отныне",
    r"今後は", r"これからは", r"以后都", r"今后", r"從現在開始", r"从现在开始",
]
_PHRASES = _KEEP + _DURABLE
_KEEP_PATTERN = re.compile("|".join(f"(?:{p})" for p in _KEEP), re.IGNORECASE)
#: "always"/"never" (and their translations) opening a sentence: a standing rule
_OPENERS = (r"(?:^|(?<=[.!?\n]))\s*(?:always|never|immer|niemals|nie|toujours|jamais|siempre|nunca|sempre|"
            r"mai|всегда|никогда)\b")
_OPENER_WORDS = frozenset("always never immer niemals nie toujours jamais siempre nunca sempre mai всегда никогда"
                          .split())
_PATTERN = re.compile("|".join(f"(?:{p})" for p in _PHRASES) + "|" + _OPENERS, re.IGNORECASE)
# The cheap look before `_PATTERN`, which tries every phrase at every position: on a person's pasted
# logs that was most of what the offline import spent on prompts. Every phrase holds one of these
# words, so a text whose lower-cased form holds none of them cannot match a phrase (`test_asked.py`
# checks every phrase against the list). Openers are looked for by the same rule as in the pattern.
_LITERALS = (
    "remember", "memor", "notes", "claude.md", "agents.md", "mind", "forget", "note", "merk", "vergiss",
    "speicher", "notier", "behalt", "souviens", "rappelle", "retiens", "mémoris", "mémoire", "oublie", "recuerda",
    "acuérdate", "olvides", "lembr", "esqueça", "memória", "ricorda", "mente", "dimenticare", "запомни", "памят",
    "забудь", "覚え", "記憶して", "メモリに保存", "忘れないで", "记住", "記住", "记忆", "别忘了", "別忘了",
    "future", "from now on", "going forward", "zukunft", "jetzt", "sofort", "von nun an", "künftig",
    "l'avenir", "désormais", "dorénavant", "maintenant", "adelante", "a partir de ahora", "futuro", "agora em diante",
    "frente", "ora in", "будущее", "впредь", "момента", "отныне", "今後は", "これからは", "以后都", "今后",
    "從現在開始", "从现在开始",
)
_ASCII_LITERALS = tuple(word for word in _LITERALS if word.isascii())  # all an ASCII text can hold
_OPENER_SEEN = re.compile(r"(?:^|[.!?\n])\s*(?:always|never|immer|niemals|nie|toujours|jamais|siempre|nunca|sempre|"
                          r"mai|всегда|никогда)\b", re.IGNORECASE)


def _odd_cases() -> frozenset[str] | None:
    """Characters that IGNORECASE matches to a letter of `_LITERALS` though `str.lower` keeps them
    apart (ſ for s, ı for i, ᲀ for в; İ lower-cases to i and a combining dot), or None when this
    Python does not list them (then every non-ASCII text takes the full look)."""
    try:
        from re import _casefix  # type: ignore[attr-defined]  # the table `re` compiles IGNORECASE from
    except ImportError:
        return None
    letters = set("".join(_LITERALS))
    return frozenset({chr(o) for c in letters for o in _casefix._EXTRA_CASES.get(ord(c), ())} | {"\u0307"})


_ODD_CASES = _odd_cases()


def _may_ask(text: str) -> bool:
    """False only when `_PATTERN` cannot match `text`."""
    lowered = text.lower()
    ascii_text = text.isascii()
    if not ascii_text and (_ODD_CASES is None or not _ODD_CASES.isdisjoint(lowered)):
        return True
    for word in _ASCII_LITERALS if ascii_text else _LITERALS:  # a plain loop: half the cost of `any`
        if word in lowered:
            return True
    return _OPENER_SEEN.search(text) is not None


# what is left when a request points elsewhere: nothing but pointers and filler
_POINTERS = re.compile(
    r"\b(?:this|that|it|these|those|them|how|what|you|your|did|do|done|was|were|the|above|way|steps?|please|pls|"
    r"and|so|in|to|for|memory|memories|future|me|i|we|liked|like|love|good|great|nice|working|work|with|are|is|"
    r"just|also|too|now|again|save|remember|keep|note|mind|ok|okay|thanks|thank|all|of|a|an|session|next|time|"
    r"das|dies|es|wie|du|ça|cela|comment|esto|eso|cómo|isso|isto|como|questo|quello|come|это|как)\b",
    re.IGNORECASE)
_WORD = re.compile(r"[^\W\d_]{2,}", re.UNICODE)
_QUOTED = re.compile(r"\[quoted\].*?\[/quoted\]", re.DOTALL)
#: at least this many words of its own beyond the request and pointers make a request self-contained
MIN_OWN_WORDS = 2


@record
class Ask:
    """One explicit request to keep something, found in a person's words."""

    #: the words that make it a request ("save in your memory", "from now on")
    phrase: str
    #: the request carries what is to be kept (else it points at what came before)
    self_contained: bool
    #: the person's words with the request phrase, when self-contained (the rule to keep)
    statement: str

    @property
    def explicit(self) -> bool:
        """Asked to keep with a keep or remember verb ("remember …", "save it in your memory"), not
        only said to last ("from now on …") or opened with "always"/"never"."""
        return _KEEP_PATTERN.fullmatch(self.phrase) is not None


def find(text: str) -> Ask | None:
    """The explicit request to keep something in a person's text, if there is one."""
    own = _QUOTED.sub(" ", text)
    found = list(_PATTERN.finditer(own)) if _may_ask(own) else []
    if not found:
        return None
    # a request to keep ("save in your memory") names the request better than "from now on" or "never"
    match = next((m for m in found if _KEEP_PATTERN.fullmatch(m.group(0))),
                 next((m for m in found if m.group(0).strip().lower() not in _OPENER_WORDS), found[0]))
    sentence = _sentence(own, match.start(), match.end())
    rest = _PATTERN.sub(lambda m: " never " if m.group(0).strip().lower() in _OPENER_WORDS else " ", sentence)
    own_words = [w for w in _WORD.findall(_POINTERS.sub(" ", rest)) if len(w) > 1]
    contained = len(own_words) >= MIN_OWN_WORDS or _cjk_rest(rest)
    return Ask(" ".join(match.group(0).split()), contained, " ".join(sentence.split()) if contained else "")


def _sentence(text: str, start: int, end: int) -> str:
    """The sentence (or, for a short text, the whole text) around the request phrase; a request
    that ends its sentence ("…, save in your memory please.") takes the sentence before too."""
    if len(text) <= 300:
        return text
    before = max(text.rfind(mark, 0, start) for mark in ".!?\n")
    after = [i for i in (text.find(mark, end) for mark in ".!?\n") if i >= 0]
    close = min(after) if after else len(text)
    sentence = text[before + 1: close + 1]
    if len(_WORD.findall(_POINTERS.sub(" ", sentence.replace(text[start:end], " ")))) < MIN_OWN_WORDS and before > 0:
        earlier = max(text.rfind(mark, 0, before) for mark in ".!?\n")
        sentence = text[earlier + 1: close + 1]
    return sentence


def _cjk_rest(rest: str) -> bool:
    """In Chinese or Japanese, a few characters of content besides the phrase make a statement."""
    cjk = [c for c in rest if "\u3040" <= c <= "\u9fff"]
    return len(cjk) >= 4


def in_chunk(piece: Chunk) -> list[tuple[int, Ask]]:
    """The requests to keep something in the person's typed lines newer than the chunk's context."""
    found = []
    for turn in piece.turns:
        if turn.speaker == "user" and turn.origin == "prompt" and turn.line_end > piece.context_until:
            ask = find(turn.text)
            if ask is not None:
                found.append((turn.line_start, ask))
    return found


def settle(candidates: Sequence[Candidate], piece: Chunk) -> list[Candidate]:
    """A candidate stays `asked` only when it cites a person's line holding a request."""
    from . import records

    lines = {line for line, _ in in_chunk(piece)} if any(c.asked for c in candidates) else set()
    return [c if not c.asked or any(e.line in lines for e in c.evidence) else records.replace(c, asked=False)
            for c in candidates]


def note_for_model(requests: list[tuple[int, Ask]]) -> str:
    """What the distill request says about the requests in an excerpt (empty when none)."""
    if not requests:
        return ""
    listed = "; ".join(f"L{line} (\"{ask.phrase}\")" for line, ask in requests)
    return (f"The developer explicitly asked to keep something at {listed}. Record what they asked to keep "
            "(their own words on that line, or what it refers to: often the assistant's actions and "
            "answer just before it), set `asked` to true on it, and cite that line among its evidence.\n")
