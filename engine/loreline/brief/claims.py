"""The check a model-written brief line passes before it is kept: `problem(text, cited)`.

A line says nothing its memories do not say when every claim in it occurs in the memories it
cites. The claims of a line are:

- each span between backticks: code or a command, found in a cited memory as it is written
  (case and runs of spaces aside);
- each word (the text split at spaces, edge punctuation `"'()[]{},;:!?.` and a trailing `'s`
  taken off) that is
  - a number, or holds a digit (`8080`, `v2`, `3.11`, `py311`);
  - an identifier, a path or a part of a command: it holds one of `/ \\ _ = $ @ : # ~ * < > |`,
    a dot between two word characters (`app.py`, `os.path`), mixes case inside (`camelCase`),
    or starts with `-` (a flag: `--headed`, `-q`);
  - a rare word: letters the bundled sentence model's vocabulary does not hold as a whole word
    (`pnpm`, `odoo`, `kubernetes`: names of tools, projects and people), or a one-word name of
    a developer tool in the glossary (`python`, `poetry`, `cargo`);
  and it occurs in a cited memory when the memory's text or one of its files holds it with no
  letter, digit or `_` right before or after, case aside (`npm` is not found in `pnpm`;
  `app.py` is found in `src/app.py`);
- a negation (`never`, `not`, `no`, `avoid`, `without`, any `…n't`) occurs as a word in a cited
  memory: a line cannot invent a prohibition.

A line also cites at least one memory, and only memories it was given (`writer` gives the
model the project's active memories and maps its citations back; anything else is refused
before this check). A line that fails is dropped with its reason, never repaired. What the
check cannot see is a claim in common words ("use X" written from "never use X" passes the
word test; the negation test catches only an added "never"): the model is told to keep each
memory's meaning, and its lines carry their sources.
"""

from __future__ import annotations

import functools
import re

TYPE_CHECKING = False  # typing is left to the type checker: the everyday commands import none of it
if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..models import Memory

#: why a line was dropped (the counts a rewrite reports)
NO_SOURCE = "cites no memory"
UNKNOWN_SOURCE = "cites a memory it was not given"
UNSUPPORTED = "says what its memories do not"
NEGATION = "adds a negation its memories do not have"
SHAPE = "is not a line of text"

EDGE = "\"'()[]{},;:!?.`"
_CODE = re.compile(r"`([^`]+)`")
_IDENTIFIER = re.compile(r"[/\\_=$@:#~*<>|]|\w\.\w|[a-z][A-Z]|^-")
_DIGIT = re.compile(r"\d")
_LETTERS = re.compile(r"^[^\W\d_]+$")
_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")
#: the sentence model's vocabulary, beside the glossary in `embed/data`
VOCABULARY = "minilm-vocab.txt"
NEGATIONS = frozenset({"never", "not", "no", "nor", "avoid", "without", "cannot", "dont", "nothing", "none"})


def problem(text: str, cited: Sequence[Memory]) -> str | None:
    """Why the line must be dropped, or None when each of its claims occurs in `cited`."""
    if not cited:
        return NO_SOURCE
    said = "\n".join([*(m.text for m in cited), *(f for m in cited for f in m.files)]).lower()
    flat = " ".join(said.split())
    for span in _CODE.findall(text):
        if " ".join(span.lower().split()) not in flat:
            return f"{UNSUPPORTED}: `{span}`"
    for word in claims(text):
        if not occurs(word, said):
            return f"{UNSUPPORTED}: {word}"
    added = negations(text) - negations(said)
    return f"{NEGATION}: {sorted(added)[0]}" if added else None


def claims(text: str) -> list[str]:
    """The words of `text` that claim something its memories must say (lowercased, in order)."""
    found: list[str] = []
    for raw in text.split():
        word = _strip(raw)
        if word and any(c.isalnum() for c in word) and _claims(word):
            found.append(word.lower())
    return list(dict.fromkeys(found))


def _strip(raw: str) -> str:
    word = raw.strip(EDGE)
    for suffix in ("'s", "’s"):
        if word.lower().endswith(suffix):
            word = word[: -len(suffix)]
    return word.strip(EDGE)


def _claims(word: str) -> bool:
    if _DIGIT.search(word) or _IDENTIFIER.search(word):
        return True
    lower = word.lower()
    return bool(_LETTERS.match(word)) and (lower not in _vocabulary() or lower in _tools())


def occurs(word: str, said: str) -> bool:
    """Whether `said` (lowercased) holds `word` with no letter, digit or `_` right around it."""
    return re.search(r"(?<!\w)" + re.escape(word) + r"(?!\w)", said) is not None


def negations(text: str) -> set[str]:
    words = {w.replace("’", "'") for w in _WORD.findall(text.lower())}
    return {w for w in words if w in NEGATIONS or w.endswith("n't")}


@functools.cache
def _vocabulary() -> frozenset[str]:
    """The whole words of the bundled sentence model's vocabulary (letters only)."""
    from ..embed import concepts

    pieces = concepts.GLOSSARY.with_name(VOCABULARY).read_text(encoding="utf-8").split("\n")
    return frozenset(p for p in pieces if p.isalpha())


@functools.cache
def _tools() -> frozenset[str]:
    """The glossary's one-word developer-tool names (`embed.concepts`)."""
    from ..embed import concepts

    return frozenset(term for term in concepts.terms() if term.isalpha())
