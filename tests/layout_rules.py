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
(`loreline.capture.errorlog`), the recall rules shared with the engine (`loreline.recall_rules`)
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
HOOK_PART = frozenset({"loreline.capture", "loreline.capture.errorlog", "loreline.capture.hookread",
                       "loreline.capture.paused", "loreline.capture.warmsocket",
                       "loreline.recall_rules", "loreline.questions", "loreline.home", "loreline.project",
                       "loreline.privacy.display", "loreline.brief", "loreline.brief.block"})
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
