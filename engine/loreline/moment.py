"""At the moment of need: which memories a tool call is about to need (the PreToolUse hook).

An assistant about to run a command or touch a file gets the memories tied to it, once per
session. A tool call is read as (`Call`): the commands it runs and the project files it names
(the file a Read or an Edit touches, the path-like words of a command). A memory is tied to it
when (`tied`):

- **by path**: the memory rests on that file or on a folder above it (`memory_files`, the files
  the session worked on around the memory's evidence);
- **by module**: the memory names a folder the file sits under, or the file itself, as a whole
  word (`addons/sale_custom/models/order.py` and "after editing sale_custom, upgrade it"); generic
  folder names (`GENERIC`: src, tests, models …) name no module;
- **by command words**: the memory names the program a command runs ("docker", "pytest", "pip")
  and holds at least `recall_rules.WORD_SHARE_FLOOR` of the command's word weight, the same idf
  share a prompt's words need (`recall_rules.relevant`), so `docker exec odoo odoo -u sale`
  finds "Upgrade an Odoo module in the Docker setup: docker exec odoo odoo -u <module> …" and
  `ls -la` finds nothing. Wrappers (`sudo`, `env`, `uv run`, `npx` …) are looked through.

Path and module ties come first, then command ties by their share. The hook shows at most
`MAX_MEMORIES` within `MAX_CHARS`, minus those the session was already shown (the brief at
SessionStart, a prompt's notes, an earlier tool call: `loreline_hooks.injected`).

Standard library only and cheap to import: the hook imports it on every tool call.
"""

from __future__ import annotations

import os
import re

from .recall_rules import MAX_TERMS, terms

TYPE_CHECKING = False  # importing typing costs the hook milliseconds
if TYPE_CHECKING:
    from collections.abc import Callable

MAX_MEMORIES = 2
MAX_CHARS = 900
MAX_COMMAND_CHARS = 2000
MAX_PATHS = 8
#: folder names that name no module of their own
GENERIC = frozenset("""
src lib libs test tests spec specs app apps pkg internal cmd bin scripts script docs doc models model views
view controllers static templates migrations utils util helpers common core main modules packages addons
node_modules vendor build dist out tmp assets public config configs data fixtures home users usr var etc opt
""".split())
#: programs that run another: the word after them (and their flags) is the program that counts
WRAPPERS = frozenset({"sudo", "env", "time", "nohup", "nice", "exec", "command", "xargs", "npx", "pnpx", "bunx",
                      "watch", "timeout"})
#: a program and its word that run another ("uv run pytest", "poetry run python")
RUNNERS = frozenset({("uv", "run"), ("poetry", "run"), ("pipenv", "run"), ("npm", "exec"), ("pnpm", "exec"),
                     ("yarn", "dlx"), ("bundle", "exec"), ("docker", "compose"), ("python", "-m"),
                     ("python3", "-m")})
_SPLIT = re.compile(r"&&|\|\||[;|\n]")
_ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_PATHLIKE = re.compile(r"^[\w.@~-]*(?:/[\w.@-]+)+/?$|^[\w-]+\.(?:py|js|ts|tsx|jsx|go|rs|rb|java|kt|php|xml|"
                       r"ya?ml|toml|json|cfg|ini|sql|sh|md|html|css|scss|vue|svelte|lock|env)$")


class Call:
    """What one tool call is about: `commands` (each simple command's words, the program first)
    and `paths` (the files it names, as given)."""

    __slots__ = ("commands", "paths")

    def __init__(self, commands: list[list[str]], paths: list[str]) -> None:
        self.commands = commands
        self.paths = paths

    @property
    def programs(self) -> list[str]:
        return list(dict.fromkeys(c[0] for c in self.commands if c))

    @property
    def words(self) -> list[str]:
        """The command's searchable words: its programs (even "make" or "go") and the words of
        every simple command (`recall_rules.terms`: stop words and generic request words left out)."""
        found = [*self.programs, *(w for c in self.commands for w in terms(" ".join(c)))]
        return list(dict.fromkeys(found))[:MAX_TERMS]


def read_call(command: str | None, paths: list[str]) -> Call:
    """A tool call from the command it runs (if any) and the files it names."""
    commands = simple_commands(command[:MAX_COMMAND_CHARS]) if command else []
    named = [w for c in commands for w in c[1:] if _PATHLIKE.match(w)]
    return Call(commands, list(dict.fromkeys([*paths, *named]))[:MAX_PATHS])


def simple_commands(command: str) -> list[list[str]]:
    """Each simple command of a shell line, as words with its program first (the program's
    folder, environment assignments and wrappers left out)."""
    out = []
    for part in _SPLIT.split(command):
        words = _words(part)
        while words and (_ASSIGN.match(words[0]) or words[0] in WRAPPERS or words[0].startswith("-")):
            words = words[1:]
        if len(words) > 1 and (words[0], words[1]) in RUNNERS:
            words = [words[0], *words[2:]] if words[1] == "compose" else words[2:] or words
        if words:
            out.append([os.path.basename(words[0]).lower(), *words[1:]])
    return out


def _words(part: str) -> list[str]:
    import shlex

    try:
        return shlex.split(part, comments=True)
    except ValueError:  # an unclosed quote: the plain words will do
        return part.split()


def relative(path: str, cwd: str) -> str | None:
    """`path` relative to the top of the work tree `cwd` is in (the nearest folder above holding
    `.git`, else `cwd`), with forward slashes; None for a file outside it."""
    full = os.path.normpath(os.path.join(cwd, os.path.expanduser(path)))
    top = _top(os.path.normpath(cwd))
    rel = os.path.relpath(full, top) if os.path.isabs(full) else full
    if rel == "." or rel.startswith(".."):
        return None
    return rel.replace(os.sep, "/")


def _top(folder: str) -> str:
    here = folder
    while True:
        if os.path.exists(os.path.join(here, ".git")):
            return here
        parent = os.path.dirname(here)
        if parent == here:
            return folder
        here = parent


def ancestors(rel: str) -> list[str]:
    """The file and every folder above it, relative, deepest first: "a/b/c.py" → c.py's own
    path, "a/b", "a"."""
    parts = rel.strip("/").split("/")
    return ["/".join(parts[:n]) for n in range(len(parts), 0, -1)]


def module_names(rel: str) -> list[str]:
    """The names in a file's path that may name a module: its folders but the generic ones, and
    the file's own name."""
    parts = rel.strip("/").split("/")
    folders = [p for p in parts[:-1] if len(p) > 2 and p.lower() not in GENERIC and not p.startswith(".")]
    return list(dict.fromkeys([*folders, parts[-1]]))


def names(text: str, name: str) -> bool:
    """True when `text` names `name` as a whole word (case ignored)."""
    return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text, re.IGNORECASE) is not None


def by_command(call: Call, total: int, counts: dict[str, int],
               ranked: list[tuple[int, str, str, frozenset[str]]]) -> list[tuple[int, str, str]]:
    """Of the memories the words found (`ranked`, with the words each holds), those that name
    one of the command's programs and hold `WORD_SHARE_FLOOR` of its word weight, most first."""
    from .recall_rules import relevant

    words = call.words
    programs = set(call.programs)
    mine = {w: counts.get(w, 0) for w in words}
    holding = [(i, kind, text, held & set(words)) for i, kind, text, held in ranked if programs & held]
    return relevant(total, mine, holding) if holding and mine else []


def by_module(call: Call, cwd: str, ranked: list[tuple[int, str, str, frozenset[str]]]) -> list[tuple[int, str, str]]:
    """Of the memories the words found, those naming a folder one of the call's files sits under,
    or the file itself, as a whole word."""
    wanted = [name for path in call.paths if (rel := relative(path, cwd)) for name in module_names(rel)]
    return [(i, kind, text) for i, kind, text, _ in ranked if any(names(text, name) for name in wanted)]


def searched(call: Call, cwd: str) -> list[str]:
    """What the prompt index is searched for: the command's words and the module names of its files."""
    modules = [name.lower() for path in call.paths if (rel := relative(path, cwd)) for name in module_names(rel)]
    return list(dict.fromkeys([*call.words, *modules]))


def tied(db: str, project: str, call: Call, cwd: str) -> tuple[list[tuple[int, str, str]], set[int]]:
    """(the memories tied to the call, path and module ties first, then command ties; the memories
    the session loads from a native file, left out of both)."""
    from .capture import hookread
    from .recall_rules import CANDIDATES, MAX_INDEXED

    covered = hookread.covered_in_store(db, project)
    rels = [rel for path in call.paths if (rel := relative(path, cwd))]
    on_path = hookread.tied_to_paths(db, project, [a for rel in rels for a in ancestors(rel)]) if rels else []
    words = searched(call, cwd)
    total, counts, ranked = hookread.prompt_candidates(db, project, words, MAX_INDEXED, CANDIDATES,
                                                       hookread.index_folder(), covered) if words else (0, {}, [])
    rows = [*on_path, *by_module(call, cwd, ranked), *by_command(call, total, counts, ranked)]
    return [row for row in rows if row[0] not in covered], covered


def pick(rows: list[tuple[int, str, str]], seen: set[int],
         size: Callable[[tuple[int, str, str]], int]) -> list[tuple[int, str, str]]:
    """At most `MAX_MEMORIES` of `rows` not yet shown in the session (`seen`), each once, within
    `MAX_CHARS` (`size`: the characters one takes)."""
    chosen: list[tuple[int, str, str]] = []
    used = 0
    for row in rows:
        if row[0] in seen or any(row[0] == c[0] for c in chosen):
            continue
        cost = size(row)
        if len(chosen) == MAX_MEMORIES or used + cost > MAX_CHARS:
            break
        chosen.append(row)
        used += cost
    return chosen
