"""What an everyday developer question asks about, in the glossary's categories.

People ask by category or situation ("which package manager?", "how do I add a dependency?",
"how do I run the tests?", "where do we deploy?", "can I just pip install httpx?") while a
memory names the tool ("we use uv, never pip"). The glossary (`embed.concepts`) gives each tool
its category; this module gives a question the categories it asks about, three ways:

- the tools it names ("pip install" → python package manager);
- the category words it uses ("package manager", "linter", "feature flags": every phrase of a
  glossary line, its first one and its synonyms, whose words all occur in the question);
- everyday phrasings (`INTENTS`: "add a dependency", "run the tests", "deploy", "hot spots"),
  written from general knowledge of how developers ask, not from any question set.

`understand(question)` is what every recall path searches with (the engine's `recall`, the warm
process's prompt notes, the prompt hook's word match): the question with its categories added
(`Asked.text`, which the embedder reads and bm25 matches against a memory's cue words) and the
categories themselves (`Asked.topics`). Standard library only: the prompt hook imports it.
"""

from __future__ import annotations

import functools
import re

from .embed import concepts

#: everyday phrasings → the categories (a glossary line's first phrase) they ask about
PACKAGES = ("python package manager", "javascript package manager", "package manager")
INTENTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (r"\b(?:add|install|pull in|bring in|vendor|upgrade|bump)\b[^.?!]*\b(?:dependenc(?:y|ies)|packages?|librar(?:y|ies)|"
     r"libs?|modules?|crates?|gems?)\b", PACKAGES),
    (r"\bdependenc(?:y|ies)\b|\bpackage manager\b", PACKAGES),
    (r"\b(?:pip3?|npm|yarn|pnpm|poetry|cargo|go)\s+(?:install|add|get)\b", PACKAGES),
    (r"\b(?:run|running|execute|start)\b[^.?!]*\b(?:tests?|specs?|test suite)\b|\btest suite\b|\bunit tests?\b"
     r"|\bhow (?:do|should) (?:i|we) test\b", ("test framework",)),
    (r"\b(?:deploy\w*|ship(?:ped|ping)?|hosted|hosting|go(?:es)? live|get \w+ (?:change )?live|released? to "
     r"(?:prod|production|customers)|production)\b",
     ("hosting and deployment platform", "continuous deployment", "container orchestration")),
    (r"\b(?:format(?:ter|ting)?|prettif\w*|auto-?format\w*)\b", ("code formatter",)),
    (r"\blint(?:er|ers|ing)?\b|\bstyle (?:check|rules)\b", ("linter",)),
    (r"\btype[- ]?check\w*|\bstatic (?:checker|typing|types)\b|\btype hints?\b", ("type checker",)),
    (r"\bprofil(?:e|er|ing)\b|\bhot ?spots?\b|\bbottlenecks?\b|\bflame ?graphs?\b|\bwhere\b[^.?!]*\btime\b",
     ("performance profiler",)),
    (r"\bcrash(?:es|ed)?\b|\berror (?:reports?|reporting|tracking)\b|\bexceptions? (?:get|are) (?:sent|reported)\b",
     ("error tracking",)),
    (r"\bmigrat(?:e|ion|ions|ing)\b|\bschema change", ("database migrations",)),
    (r"\bon[- ]call\b|\bpaged?\b|\bwoken up\b|\bpager\b|\boutage\b", ("incident response",)),
    (r"\bsecrets?\b|\bcredentials?\b|\bapi keys?\b|\btokens? (?:stored|kept)\b", ("secrets management",)),
    (r"\bfeature flags?\b|\broll(?:ed)? out\b|\brollouts?\b|\bgradual(?:ly)?\b|\bkill ?switch", ("feature flags",)),
    (r"\b(?:ci|pipeline|checks?)\b[^.?!]*\b(?:green|pass|fail\w*|red)\b|\bcontinuous integration\b",
     ("ci/cd pipeline",)),
    (r"\bbranch(?:es)?\b|\bcommit messages?\b|\brebase\b|\bsquash\b", ("git workflow",)),
    (r"\breview(?:s|er|ers)?\b|\bpull requests?\b|\bprs?\b|\bsign off\b|\bapprov\w+", ("code review",)),
    (r"\binfra(?:structure)?\b|\bprovision\w*\b|\bcloud resources?\b", ("infrastructure as code",)),
    (r"\blog(?:s|ging|ger)?\b", ("logging library", "log management")),
    (r"\bbackground (?:jobs?|tasks?|work)\b|\bqueues?\b|\bworkers?\b|\bscheduled\b|\bperiodic\b",
     ("background job queue", "scheduled jobs")),
    (r"\bdebug\w*\b|\bbreakpoints?\b|\bstep through\b", ("editor", "development environment")),
    (r"\bset ?up\b[^.?!]*\b(?:machine|laptop|mac|environment|dev)\b|\bonboard\w*\b|\bnew (?:machine|laptop)\b",
     ("development environment",)),
    (r"\bcach(?:e|es|ed|ing)\b", ("in-memory cache",)),
    (r"\b(?:database|db|sql)\b", ("relational sql database",)),
    (r"\bhttp (?:client|calls?|requests?)\b|\bcall(?:ing)? (?:an? )?(?:external |third-party )?(?:apis?|services?)\b",
     ("http client library",)),
    (r"\blog ?in\b|\bsign[- ]?in\b|\bauth(?:entication|enticate)?\b", ("authentication",)),
    (r"\bcss\b|\bstyl(?:e|es|ing)\b[^.?!]*\b(?:components?|ui|pages?)\b", ("css styling",)),
    (r"\bversion of python\b|\bpython version\b", ("python version",)),
    (r"\bversion of node\b|\bnode version\b", ("javascript runtime",)),
    (r"\bversion of (?:java|the jdk)\b|\b(?:java|jdk) version\b", ("java version",)),
    (r"\bversion of (?:go|rust)\b|\b(?:go|rust) version\b", ("language version",)),
    (r"\bcontainers?\b|\bdocker\b|\bimages?\b[^.?!]*\bbuil\w+", ("docker and containers",)),
    (r"\bend[- ]to[- ]end\b|\be2e\b|\bbrowser tests?\b", ("end-to-end ui tests",)),
    (r"\bcoverage\b", ("code coverage",)),
)
#: glossary phrases too common in plain English to count as a question's category words
COMMON = frozenset({"store", "settings", "media", "dashboards", "charts", "stubs", "factories", "workers",
                    "toggles", "transitions", "tickets", "workspaces", "generator", "identifiers", "permissions",
                    "vulnerabilities", "buckets", "router", "notebooks", "written in", "project file", "editor",
                    "ide", "bi", "store", "traces and spans", "wheels", "lsp", "spa", "ssr", "e2e"})
_WORD = re.compile(r"[a-z0-9][a-z0-9+#./-]*")
_ESCAPE = re.compile(r"\\[A-Za-z]")
_OPTIONAL = re.compile(r"[a-z0-9][?*]")
_LITERAL = re.compile(r"[a-z0-9]{2,}")
#: literal words of `INTENTS` too common to tell anything, and word endings ("(?:ped|ping)")
_FILLER = frozenset("in do we to es ies how should get are an of on or ter ting ped ping".split())
_MAX_QUESTION = 4000


class Asked:
    """A question understood: its `topics` (glossary categories, most specific first) and `text`,
    the question with them added in brackets (what is embedded and matched)."""

    __slots__ = ("question", "topics", "text")

    def __init__(self, question: str, topics: tuple[str, ...]) -> None:
        self.question = question
        self.topics = topics
        self.text = f"{question} ({'; '.join(topics)})" if topics else question


def understand(question: str) -> Asked:
    """The question and the categories it asks about."""
    text = question[:_MAX_QUESTION]
    return Asked(question, topics(text))


def topics(question: str) -> tuple[str, ...]:
    """The glossary categories `question` asks about: those of the tools it names, of the
    category words it uses and of its everyday phrasings, in that order, each once."""
    lowered = question.lower()
    found: dict[str, None] = dict.fromkeys(concepts.named(question))
    words = _stems(lowered)
    for phrase, category in _phrases():
        if phrase <= words:
            found.setdefault(category, None)
    for anchors, pattern, categories in _intents():
        # a pattern is compiled (on its first search in this process) only for a question that
        # holds one of its literal words: the prompt hook runs in a new process for every prompt
        if any(anchor in lowered for anchor in anchors) and re.search(pattern, lowered):
            for category in categories:
                found.setdefault(category, None)
    known = _categories()
    return tuple(c for c in found if c in known)


def topic_words(memory_text: str, cues: str = "") -> str:
    """A memory's cue words for the index: its own cues and the categories of the tools its text
    and cues name (one category a line)."""
    found = concepts.categories(memory_text + "\n" + cues)
    return "\n".join([*([cues] if cues else []), *found])


def split_cues(memory_text: str, cues: str) -> tuple[str, str]:
    """A memory's cues for the prompt index as (cue words, topics): the lines a model or a person
    wrote are words a prompt's words may match; the glossary's lines (`glossary_cues`) and the
    categories of the tools the memory names are topics, matched only by the categories a prompt
    asks about (`is_topic`), so a prompt's "framework" does not reach every "test framework"."""
    lines = _lines()
    glossary = set(lines.values())
    own = [line for line in cues.splitlines() if line.strip() and line.strip() not in glossary]
    # `named`, not `categories`: the prompt hook builds its index with this, and must not compile
    # the glossary's pattern (half a second) to do it
    return "\n".join(own), "\n".join(concepts.named(memory_text + "\n" + "\n".join(own)))


def is_topic(term: str) -> bool:
    """True when a search term is one of the glossary's categories (what `topics` returns)."""
    return term in _lines()


def glossary_cues(text: str) -> str:
    """Cue words for a memory no model wrote cues for (the rules distiller's): every phrase of
    the glossary lines of the tools it names ("uv" → "python package manager, pip dependencies,
    python packages")."""
    lines = _lines()
    return "\n".join(lines[c] for c in concepts.categories(text) if c in lines)


def _stems(text: str) -> frozenset[str]:
    return frozenset(_stem(w) for w in _WORD.findall(text))


def _stem(word: str) -> str:
    word = word.strip("./-")
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


@functools.lru_cache(maxsize=1)
def _lines() -> dict[str, str]:
    """category (first phrase) → the glossary line's phrases, comma-separated."""
    out: dict[str, str] = {}
    for line in concepts.GLOSSARY.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#") or "|" not in line:
            continue
        words = line.split("|", 1)[0]
        phrases = [p.strip() for p in words.split(",") if p.strip()]
        if phrases:
            out.setdefault(phrases[0], ", ".join(phrases))
    return out


def _categories() -> frozenset[str]:
    return frozenset(_lines())


@functools.lru_cache(maxsize=1)
def _phrases() -> tuple[tuple[frozenset[str], str], ...]:
    """(the stemmed words of a phrase, its category) for every phrase of the glossary's lines."""
    out = []
    for category, line in _lines().items():
        for phrase in line.split(", "):
            if phrase in COMMON or len(phrase) < 3:
                continue
            out.append((_stems(phrase), category))
    return tuple(out)


@functools.lru_cache(maxsize=1)
def _intents() -> tuple[tuple[tuple[str, ...], str, tuple[str, ...]], ...]:
    """(literal words, pattern, categories) of every everyday phrasing (`anchors`)."""
    return tuple((anchors(pattern), pattern, categories) for pattern, categories in INTENTS)


def anchors(pattern: str) -> tuple[str, ...]:
    """The literal words of an `INTENTS` pattern, its escapes (`\\b`, `\\w`) and optional letters
    ("prs?" → "pr") left out: every text the pattern matches holds at least one of them, so a text
    holding none need not be searched. Filler words and word endings (`_FILLER`) are left out too:
    every alternative of every pattern has another literal word, which it must match.
    `tests/test_everyday_questions.py` checks that the shortcut changes no answer."""
    source = _OPTIONAL.sub(" ", _ESCAPE.sub(" ", pattern))
    return tuple(sorted(set(_LITERAL.findall(source)) - _FILLER))
