"""The repository's shape as rules a test can check: who may import what, and where SQL lives.

Front ends (the CLI `loreline.cli`, the language server `loreline_lsp`, the MCP server
`loreline_mcp`, the warm recall process `loreline_warm`, the hooks `loreline_hooks`) reach the
engine through an allowlist: `loreline.api` (and its modules), `loreline.errors`,
`loreline.models`, the package root `loreline` (its version), and the hook part (`HOOK_PART`).
Everything else of the engine is its inside. A front end may import its own package, the
standard library and third-party packages, never another front end.

The hook part is the engine's standard-library-only code the hooks run on every assistant turn,
which every front end may share: capture settings and the spool format (`loreline.capture`), the
hook's read of the store (`loreline.capture.hookread`), the warm recall socket
(`loreline.capture.warmsocket`), the error log the hooks and the warm process write
(`loreline.capture.errorlog`), a backend's cooldown after its limit was reached
(`loreline.capture.cooldown`), the recall rules shared with the engine (`loreline.recall_rules`)
and what a question asks about (`loreline.questions`), where Loreline keeps its files
(`loreline.home`), the project key (`loreline.project`), how text is shown safely
(`loreline.privacy.display`) and how the project brief is printed (`loreline.brief.block`).

SQL lives in `loreline.store` and in one documented reader, `loreline.capture.hookread` (the
hook's standard-library SQLite). Any other string that has the shape of a statement (select
... from, insert into, update ... set, delete from, create table/index/view/trigger, pragma,
alter/drop table, with ... as (select), in any case and anywhere in the string, in a plain
string, an f-string or a `+` concatenation) is reported. Dynamic imports
(`importlib.import_module`, `__import__`) count as imports: of the name when it is a string
literal, else as `<dynamic>`, which no rule allows.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

from tests.conftest import ROOT

ENGINE = ROOT / "engine" / "loreline"
HOOKS = ROOT / "hooks" / "loreline_hooks"
DYNAMIC = "<dynamic>"

#: each front end's folder and the package it is
FRONT_ENDS = {ENGINE / "cli": "loreline.cli", ROOT / "lsp" / "loreline_lsp": "loreline_lsp",
              ROOT / "lsp" / "loreline_mcp": "loreline_mcp", ROOT / "lsp" / "loreline_warm": "loreline_warm",
              ROOT / "lsp" / "loreline_view": "loreline_view", HOOKS: "loreline_hooks"}
FRONT_END_PACKAGES = frozenset(p for p in FRONT_ENDS.values() if not p.startswith("loreline."))
#: the engine's face: these and their modules
API = ("loreline.api", "loreline.errors", "loreline.models", "loreline.names")
#: the engine's standard-library-only modules the hooks import (see the docstring)
HOOK_PART = frozenset({"loreline.capture", "loreline.capture.cooldown", "loreline.capture.errorlog",
                       "loreline.capture.hookread",
                       "loreline.capture.paused", "loreline.capture.warmsocket",
                       "loreline.recall_rules", "loreline.moment", "loreline.questions", "loreline.home",
                       "loreline.project", "loreline.privacy.display", "loreline.brief", "loreline.brief.block"})
#: the hook's bench tool times the hook; it is run by hand, never by a hook, and plants sample sessions
HOOK_TOOLS = {"bench.py": frozenset({"loreline.samples"})}

#: where SQL may be written: the store, and the hook's one documented reader
SQL_HOMES = (ENGINE / "store", ENGINE / "capture" / "hookread.py")
SQL_SHAPE = re.compile(
    r"\bselect\s+(?:distinct\s+|all\s+)?[\w.*(),\s'\"|=<>!?-]+?\s+from\s+[\w(\"?]"
    r"|\binsert\s+(?:or\s+\w+\s+)?into\s+[\w\"?]"
    r"|\breplace\s+into\s+[\w\"]"
    r"|\bupdate\s+(?:or\s+\w+\s+)?(?:[\w\"]+|\?)\s+set\s+[\w\"]+\s*="
    r"|\bdelete\s+from\s+[\w\"?]"
    r"|\bcreate\s+(?:temp\w*\s+|unique\s+|virtual\s+)*(?:table|index|view|trigger)\s+(?:if\s+not\s+exists\s+)?[\w\"]"
    r"|\bpragma\s+\w+\s*(?:[(=;]|$)"
    r"|\b(?:alter|drop)\s+(?:table|index|view|trigger)\s+(?:if\s+exists\s+)?[\w\"]"
    r"|\bwith\s+(?:recursive\s+)?\w+\s*(?:\([^)]*\)\s*)?as\s*\(\s*select\b",
    re.IGNORECASE)


def _is_engine_module(dotted: str) -> bool:
    where = ENGINE.parent.joinpath(*dotted.split("."))
    return where.with_suffix(".py").is_file() or (where / "__init__.py").is_file()


def _package_of(path: Path, root: Path | None) -> list[str] | None:
    """The dotted package a file of the engine or a front end sits in, for relative imports."""
    for root in (root,) if root is not None else (ENGINE.parent, ROOT / "lsp", ROOT / "hooks"):
        if path.is_relative_to(root):
            return list(path.relative_to(root).parts[:-1])
    return None


#: the one computed import allowed: a module of the file's own package, named
#: f"{__package__}.{name}" (the CLI loads the command module asked for, `cli/main.py`)
OWN_PACKAGE = "<own package>"


def _dynamic(node: ast.Call) -> str | None:
    """The module a call to `importlib.import_module` / `__import__` imports, `<dynamic>` when
    computed (`<own package>` for f"{__package__}.{name}"); None for any other call."""
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    if name not in ("import_module", "__import__"):
        return None
    first = node.args[0] if node.args else None
    if isinstance(first, ast.Constant) and isinstance(first.value, str) and not first.value.startswith("."):
        return first.value
    if isinstance(first, ast.JoinedStr) and len(first.values) >= 2 and \
            isinstance(first.values[0], ast.FormattedValue) and isinstance(first.values[0].value, ast.Name) and \
            first.values[0].value.id == "__package__" and isinstance(first.values[1], ast.Constant) and \
            str(first.values[1].value).startswith(".") and len(first.values) == 3:
        return OWN_PACKAGE
    return DYNAMIC


def modules(path: Path, root: Path | None = None, *, top_level_only: bool = False) -> set[str]:
    """Every module a file names by importing (`from loreline import home` names loreline and
    loreline.home; `from ..store import memories` in loreline/cli names loreline.store and
    loreline.store.memories), dynamic imports included. `root`: the folder that holds the
    file's top package (found from the repository's folders when not given); `top_level_only`:
    the imports a module runs when it is imported, not those inside its functions."""
    names: set[str] = set()
    package = _package_of(path, root)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in (tree.body if top_level_only else ast.walk(tree)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.Call) and (found := _dynamic(node)) is not None:
            names.add(found)
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0 and node.module:
                base = node.module
            elif node.level > 0 and package is not None and len(package) >= node.level - 1:
                base = ".".join([*package[: len(package) - node.level + 1], *([node.module] if node.module else [])])
            else:
                names.add(DYNAMIC)  # a relative import that leaves every package
                continue
            names.add(base)
            names.update(f"{base}.{a.name}" for a in node.names if _is_engine_module(f"{base}.{a.name}"))
    return names


def _own(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def front_end_offenders(path: Path, package: str, root: Path | None = None) -> list[str]:
    """The modules a front end's file imports that the allowlist does not let it."""
    extra = HOOK_TOOLS.get(path.name, frozenset()) if package == "loreline_hooks" else frozenset()
    found = []
    for name in sorted(modules(path, root)):
        top = name.split(".")[0]
        if name == OWN_PACKAGE:
            continue
        if name == DYNAMIC:
            found.append(name)
        elif top in FRONT_END_PACKAGES:
            if not _own(name, package):
                found.append(name)
        elif top == "loreline":
            if not (name == "loreline" or _own(name, package) or any(_own(name, a) for a in API)
                    or name in HOOK_PART or name in extra):
                found.append(name)
    return found


def hook_outsiders(path: Path) -> list[str]:
    """What a hook file imports beyond the standard library, its own package and the hook part."""
    extra = HOOK_TOOLS.get(path.name, frozenset())
    return sorted(name for name in modules(path)
                  if not (name.split(".")[0] in sys.stdlib_module_names or _own(name, "loreline_hooks")
                          or name in ("loreline", "loreline.errors") or name in HOOK_PART or name in extra))


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            found.update(id(s.value) for s in node.body if isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
    return found


def _text(node: ast.AST) -> str:
    """A string expression's text, each computed part standing as ` ? `."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) and isinstance(v.value, str) else " ? "
                       for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _text(node.left) + _text(node.right)
    return " ? "


def sql_literals(path: Path) -> list[str]:
    """The strings of a file that hold an SQL statement, as `file:line: the statement's start`,
    in line order (docstrings, which never run, are prose)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    inner: set[int] = set(_docstrings(tree))
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            inner.update(id(v) for v in node.values)
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            inner.update((id(node.left), id(node.right)))
    found = []
    for node in ast.walk(tree):
        if id(node) in inner or not (isinstance(node, ast.Constant | ast.JoinedStr)
                                     or (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add))):
            continue
        text = _text(node)
        if (match := SQL_SHAPE.search(text)) is not None:
            shown = " ".join(text[match.start():].split())[:40].rstrip()
            found.append((node.lineno, f"{path.name}:{node.lineno}: {shown}"))
    return [hit for _, hit in sorted(found)]


def product_files() -> list[Path]:
    folders = (ENGINE, ROOT / "lsp" / "loreline_lsp", ROOT / "lsp" / "loreline_mcp", ROOT / "lsp" / "loreline_warm",
               ROOT / "lsp" / "loreline_view", HOOKS)
    return sorted(p for folder in folders for p in folder.rglob("*.py"))


def outside_sql_homes(path: Path) -> bool:
    return not any(path == home or path.is_relative_to(home) for home in SQL_HOMES)


# ---- the import graph and the layers ---------------------------------------------------------------

#: the layers, top first. A module belongs to the layer of the longest name below that is itself or
#: one of its packages; it may import modules of its own layer and of the layers under it, never of
#: one above. An edge is an import: at a module's top, inside a function (both run: they make the
#: circles `cycles` looks for), under `if TYPE_CHECKING:` (never runs: it obeys the layers but
#: cannot close a circle), and each module's import of its packages (Python runs a package's
#: `__init__` before any module in it: obeys the layers, closes no circle).
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("front ends", ("loreline.cli", "loreline_lsp", "loreline_mcp", "loreline_warm", "loreline_view",
                    "loreline_hooks")),
    ("application", ("loreline.api",)),
    ("work across assistants", ("loreline.capture.worker", "loreline.status", "loreline.backends",
                                "loreline.pipeline", "loreline.repeated")),
    ("every assistant", ("loreline.assistants.registry",)),
    ("adapters", ("loreline.assistants.claude_code", "loreline.assistants.codex", "loreline.assistants.cursor",
                  "loreline.assistants.gemini")),
    ("assistant contract, native memory, connectors", ("loreline.assistants", "loreline.native",
                                                  "loreline.connect")),
    ("memory", ("loreline.beliefs", "loreline.capture.jobs", "loreline.team", "loreline.portable",
                "loreline.inbox", "loreline.prompt_notes", "loreline.recall", "loreline.usage", "loreline.staleness",
                "loreline.vectors", "loreline.evidence", "loreline.chunk", "loreline.brief.budget", "loreline.brief.claims",
                "loreline.brief.priority", "loreline.brief.rewrite", "loreline.brief.rules", "loreline.brief.topics",
                "loreline.brief.writer")),
    ("distillers", ("loreline.distill",)),
    ("store", ("loreline.store",)),
    ("transcript readers", ("loreline.transcripts", "loreline.samples")),
    ("hook part", ("loreline.capture", "loreline.recall_rules", "loreline.moment", "loreline.questions", "loreline.project",
                   "loreline.privacy", "loreline.embed", "loreline.brief.block")),
    ("settings", ("loreline.config", "loreline.keys", "loreline.environment", "loreline.remembered", "loreline.home")),
    ("foundation", ("loreline", "loreline.records", "loreline.errors", "loreline.names", "loreline.models",
                    "loreline.brief", "loreline.brief.model")),
)
#: circles another change brought in that its owner is to take out, each with why it may stay
#: until then (a test fails once one is gone, so the list only shrinks)
KNOWN_CIRCLES: dict[tuple[str, ...], str] = {}
#: where the packages of the graph live
GRAPH_ROOTS = (ROOT / "engine", ROOT / "lsp", ROOT / "hooks")
TOP, FUNCTION, TYPE, PARENT = "top", "function", "type", "package"
_STRENGTH = {TOP: 0, FUNCTION: 1, TYPE: 2, PARENT: 3}


def graph_modules(roots: tuple[Path, ...] = GRAPH_ROOTS) -> dict[str, Path]:
    """Every module of the packages under `roots` by dotted name (a package by its own name)."""
    found: dict[str, Path] = {}
    for root in roots:
        for top in sorted(p for p in root.iterdir() if (p / "__init__.py").is_file()):
            for path in sorted(top.rglob("*.py")):
                parts = list(path.relative_to(root).with_suffix("").parts)
                found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imported(node: ast.AST, package: list[str], known: dict[str, Path]) -> list[str]:
    """The modules of `known` one import statement or dynamic import names."""
    names: list[str] = []
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    elif isinstance(node, ast.ImportFrom):
        if node.level:
            base = ".".join([*package[: len(package) - node.level + 1], *([node.module] if node.module else [])])
        else:
            base = node.module or ""
        names = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
    elif isinstance(node, ast.Call) and (found := _dynamic(node)) not in (None, DYNAMIC, OWN_PACKAGE):
        names = [str(found)]
    resolved = []
    for name in names:
        while name and name not in known:
            name = name.rpartition(".")[0]
        if name:
            resolved.append(name)
    return resolved


def module_edges(name: str, path: Path, known: dict[str, Path]) -> dict[str, str]:
    """What one module imports, each with how: `top`, `function`, `type` or `package`."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    edges: dict[str, str] = {}

    def add(target: str, how: str) -> None:
        if target != name and (target not in edges or _STRENGTH[how] < _STRENGTH[edges[target]]):
            edges[target] = how

    stack: list[tuple[ast.AST, str]] = [(node, TOP) for node in ast.parse(path.read_text(encoding="utf-8")).body]
    while stack:
        node, how = stack.pop()
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            stack += [(n, TYPE) for n in node.body] + [(n, how) for n in node.orelse]
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and how == TOP:
            how = FUNCTION
        for target in _imported(node, package, known):
            add(target, how)
        stack += [(child, how) for child in ast.iter_child_nodes(node)]
    parts = name.split(".")
    for depth in range(1, len(parts)):
        if ".".join(parts[:depth]) in known:
            add(".".join(parts[:depth]), PARENT)
    return edges


def import_graph(roots: tuple[Path, ...] = GRAPH_ROOTS) -> dict[str, dict[str, str]]:
    """Module → {module it imports: how}, over the packages under `roots`."""
    known = graph_modules(roots)
    return {name: module_edges(name, path, known) for name, path in known.items()}


def layer_of(module: str, layers: tuple[tuple[str, tuple[str, ...]], ...] = LAYERS) -> int | None:
    """The index in `layers` (0 is the top) of the longest name that is `module` or a package of it."""
    best: tuple[int, int] | None = None
    for index, (_, names) in enumerate(layers):
        for prefix in names:
            if (module == prefix or module.startswith(prefix + ".")) and (best is None or len(prefix) > best[0]):
                best = (len(prefix), index)
    return None if best is None else best[1]


def climbs(graph: dict[str, dict[str, str]],
           layers: tuple[tuple[str, tuple[str, ...]], ...] = LAYERS) -> list[str]:
    """Every import from a layer to one above it, as `importer -> imported (how): layer -> layer`."""
    found = []
    for importer, edges in sorted(graph.items()):
        low = layer_of(importer, layers)
        for imported, how in sorted(edges.items()):
            high = layer_of(imported, layers)
            if low is not None and high is not None and high < low:
                found.append(f"{importer} -> {imported} ({how}): {layers[low][0]} -> {layers[high][0]}")
    return found


def unplaced(graph: dict[str, dict[str, str]],
             layers: tuple[tuple[str, tuple[str, ...]], ...] = LAYERS) -> list[str]:
    return sorted(m for m in graph if layer_of(m, layers) is None)


def cycles(graph: dict[str, dict[str, str]]) -> list[list[str]]:
    """The import circles among imports that run (top and function level): each strongly
    connected group of two or more modules, sorted."""
    runs = {a: [b for b, how in edges.items() if how in (TOP, FUNCTION) and b in graph] for a, edges in graph.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []
    for start in sorted(runs):
        if start not in index:
            _strongly_connected(start, runs, index, low, stack, found)
    return sorted(found)


def _strongly_connected(start: str, runs: dict[str, list[str]], index: dict[str, int], low: dict[str, int],
                        stack: list[str], found: list[list[str]]) -> None:
    """Tarjan's algorithm without recursion, from `start`."""
    on_stack = set(stack)
    work = [(start, iter(runs[start]))]
    index[start] = low[start] = len(index)
    stack.append(start)
    on_stack.add(start)
    while work:
        node, children = work[-1]
        child = next(children, None)
        if child is not None:
            if child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(runs[child])))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
            continue
        work.pop()
        if work:
            low[work[-1][0]] = min(low[work[-1][0]], low[node])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))


def diagram(graph: dict[str, dict[str, str]],
            layers: tuple[tuple[str, tuple[str, ...]], ...] = LAYERS) -> str:
    """The layers as they are, top first: each with its members, how many modules it holds and
    which layers below it its modules import; then the graph's size, its circles and the
    imports that run back up (docs/layout.md shows this text; `scripts/layers` prints it)."""
    members: dict[int, int] = {}
    reaches: dict[int, set[int]] = {}
    kinds: dict[str, int] = {}
    for importer, edges in graph.items():
        low = layer_of(importer, layers)
        if low is None:
            continue
        members[low] = members.get(low, 0) + 1
        for imported, how in edges.items():
            high = layer_of(imported, layers)
            kinds[how] = kinds.get(how, 0) + 1
            if high is not None and high != low:
                reaches.setdefault(low, set()).add(high)
    lines: list[str] = []
    for index, (title, names) in enumerate(layers):
        lines.append(f"{index + 1:>2}. {title} ({members.get(index, 0)} modules)")
        lines.append(f"      {', '.join(names)}")
        below = sorted(reaches.get(index, set()))
        if below:
            lines.append("      └─ imports ▼ " + " · ".join(f"{i + 1} {layers[i][0]}" for i in below))
    total = sum(kinds.values())
    lines.append("")
    lines.append(f"{len(graph)} modules, {total} imports: {kinds.get(TOP, 0)} at a module's top, "
                 f"{kinds.get(FUNCTION, 0)} inside functions, {kinds.get(TYPE, 0)} for types only, "
                 f"{kinds.get(PARENT, 0)} of a module's own packages")
    lines.append(f"{len(cycles(graph))} import circles, {len(climbs(graph, layers))} imports that run back up")
    return "\n".join(lines)
