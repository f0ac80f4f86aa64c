"""Which topic of the brief a memory belongs under, offline: by its kind, then by the words of
its text and cues (the topic words a model or a person gave it) and the paths it names.

- a decision goes under "Decisions and why", a preference under "Conventions and preferences";
- a procedure (steps that worked) under "How to build, run, test and deploy", unless it warns
  about something that goes wrong (`TRAP_WORDS`, `TRAP_PHRASES`): then "Known traps";
- a fact or an episode: a warning makes it a trap; else a word about building, running,
  testing or deploying (`BUILD_WORDS`) puts it under the first topic; else a path it names or a
  word about places (`PLACE_WORDS`) under "Where things are"; else "Other notes".
"""

from __future__ import annotations

import re

TYPE_CHECKING = False  # typing is left to the type checker: the everyday commands import none of it
if TYPE_CHECKING:
    from ..models import Memory

BUILD_WORDS = frozenset("""
build builds building built compile compiles compiled bundle bundles run runs running rerun start starts
restart serve serves dev test tests tested testing spec specs unittest pytest jest vitest mocha e2e lint
linter lints format formatter typecheck mypy tsc deploy deploys deployed deploying deployment release
releases publish install installs installed setup bootstrap migrate migrates migration migrations upgrade
upgrades upgrading ci pipeline workflow docker dockerfile compose container containers kubectl helm make
makefile script scripts command commands staging production prod npm pnpm yarn pip uv poetry cargo gradle
maven venv virtualenv env seed fixtures coverage benchmark benchmarks debug debugger
""".split())
TRAP_WORDS = frozenset("""
gotcha gotchas trap traps pitfall pitfalls careful beware caveat caveats workaround breaks broke broken
fails failed failing failure crash crashes crashed hang hangs hung flaky deadlock leak leaks bug bugs
corrupt corrupts timeout timeouts silently
""".split())
TRAP_PHRASES = re.compile(r"\b(?:watch out|does(?:n't| not) work|won't work|must not|do not|don't)\b", re.IGNORECASE)
PLACE_WORDS = frozenset("""
lives located location directory directories folder folders dir path paths stored kept under inside
repo repository monorepo package packages module modules file files config configuration
""".split())
_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
#: a path or a file name: a slash between word characters, or a name with a file extension
_PATH = re.compile(r"\w/\w|\b\w[\w-]*\.(?:py|ts|tsx|js|jsx|json|toml|ya?ml|md|sql|sh|cfg|ini|lock|txt|rs|go|rb|"
                   r"java|kt|cs|php|lua|html|css|env|xml|csv)\b")


def topic(memory: Memory) -> str:
    """The topic key (`block.TOPICS`) the memory goes under."""
    if memory.kind == "decision":
        return "decisions"
    if memory.kind == "preference":
        return "conventions"
    words = set(_WORD.findall(f"{memory.text}\n{memory.cues}".lower()))
    warns = bool(words & TRAP_WORDS)
    if memory.kind == "procedure":
        return "traps" if warns else "build"
    if warns or TRAP_PHRASES.search(memory.text):
        return "traps"
    if words & BUILD_WORDS:
        return "build"
    if _PATH.search(memory.text) or words & PLACE_WORDS:
        return "places"
    return "notes"
