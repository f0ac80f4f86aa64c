"""The fast tier (`scripts/test --fast`) still reaches every module of engine/, lsp/ and hooks/.

Marking a suite slow takes it out of the fast tier; this check fails when that leaves a module
that no fast-tier test reaches any more. A module counts as reached when it is on a path from
what a fast-tier test file runs: the modules it (or a `tests/` helper it uses) imports, the
programs it starts (`python -m NAME`, the `loreline-hook` script, `loreline COMMAND` for each
command named in the file), followed through every import of the modules on the way (lazy ones
inside functions too; not those under `if TYPE_CHECKING:`) and every `-m NAME` program they
start. It reads the sources, so it is cheap; it says a module is reached, not that every line of
it runs: each test file still tests its own behaviour.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from loreline.cli.main import COMMANDS
from tests.conftest import ROOT

#: the markers `scripts/test --fast` leaves out
SLOW_MARKERS = ("slow", "real_clients", "editor_host", "keyring", "crash")
PACKAGES = {"engine": ("loreline",), "lsp": ("loreline_lsp", "loreline_mcp", "loreline_warm"),
            "hooks": ("loreline_hooks",)}
PROGRAM = re.compile(r'"-m",\s*"([\w.]+)"')


def project_modules() -> dict[str, tuple[Path, bool]]:
    """Every module of the three source folders: dotted name → (file, is a package)."""
    found = {}
    for folder, packages in PACKAGES.items():
        for package in packages:
            for path in (ROOT / folder / package).rglob("*.py"):
                parts = list(path.relative_to(ROOT / folder).with_suffix("").parts)
                is_package = parts[-1] == "__init__"
                found[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return found


def _imports(tree: ast.AST, module: str, is_package: bool) -> set[str]:
    """Dotted names imported anywhere in `tree`, `if TYPE_CHECKING:` blocks left out."""
    names: set[str] = set()
    todo = [tree]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            todo.extend(node.orelse)
            continue
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = module.split(".")[: len(module.split(".")) - (node.level - (1 if is_package else 0))]
                base = ".".join(parent + ([node.module] if node.module else []))
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
        todo.extend(ast.iter_child_nodes(node))
    return names


def _programs(source: str) -> set[str]:
    """The modules a source starts as programs (`-m NAME`): the package and its `__main__`."""
    return {name for found in PROGRAM.findall(source) for name in (found, f"{found}.__main__")}


def _lazy_names() -> dict[str, str]:
    """`loreline.api`'s names loaded on first use (`_WHERE`): `loreline.api.NAME` → its module."""
    tree = ast.parse((ROOT / "engine" / "loreline" / "api" / "__init__.py").read_text(encoding="utf-8"))
    where = next(ast.literal_eval(n.value) for n in tree.body
                 if isinstance(n, ast.Assign) and ast.unparse(n.targets[0]) == "_WHERE")
    return {f"loreline.api.{name}": ("loreline" + target[1:] if target.startswith("..") else "loreline.api" + target)
            for name, target in where.items()}


def _closed(names: set[str], modules: dict[str, tuple[Path, bool]], lazy: dict[str, str]) -> set[str]:
    """`names` with their parent packages and lazily named modules, kept to project modules."""
    out = set()
    for name in names | {lazy[n] for n in names if n in lazy}:
        parts = name.split(".")
        out.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
    return out & set(modules)


def is_fast(source: str) -> bool:
    marks = re.search(r"^pytestmark\s*=\s*(.+)$", source, re.M)
    return not (marks and any(f"mark.{m}" in marks.group(1) for m in SLOW_MARKERS))


def seeds(modules: dict[str, tuple[Path, bool]], lazy: dict[str, str],
          skip: frozenset[str] = frozenset()) -> tuple[set[str], list[str]]:
    """What the fast-tier test files (but those in `skip`) reach first, and the names of those files."""
    found: set[str] = set()
    fast = []
    for path in sorted((ROOT / "tests").rglob("test_*.py")):
        source = path.read_text(encoding="utf-8")
        if not is_fast(source) or str(path.relative_to(ROOT)) in skip:
            continue
        fast.append(str(path.relative_to(ROOT)))
        found |= _closed(_imports(ast.parse(source), "", False), modules, lazy) | _programs(source)
        found |= _helpers(source, modules, lazy, set())
        if re.search(r'loreline_exe\(|run_worker\(|\bcli\(|main\(\[|VENV_BIN / "loreline"', source):
            found.add("loreline.cli.main")
            words = set(re.findall(r'"([a-z][a-z-]*)"', source))
            found |= {f"loreline.cli.{COMMANDS[w]}" for w in words if w in COMMANDS}
        if re.search(r"run_hook|start_hook|hook_exe|HOOK\b|loreline-hook", source):
            found.add("loreline_hooks.entry")
    return found & set(modules), fast


def _helpers(source: str, modules: dict[str, tuple[Path, bool]], lazy: dict[str, str], seen: set[str]) -> set[str]:
    """What the `tests/` helper modules a file imports reach (helpers of helpers too)."""
    found: set[str] = set()
    for name in set(re.findall(r"from tests\.(\w+) import|import tests\.(\w+)", source)):
        helper = next(n for n in name if n)
        path = ROOT / "tests" / f"{helper}.py"
        if helper in seen or helper.startswith("test_") or not path.is_file():
            continue
        seen.add(helper)
        text = path.read_text(encoding="utf-8")
        found |= _closed(_imports(ast.parse(text), "", False), modules, lazy) | _programs(text)
        found |= _helpers(text, modules, lazy, seen)
    return found


def reached(skip: frozenset[str] = frozenset()) -> tuple[set[str], set[str], list[str]]:
    """(every module, those the fast tier reaches, the fast-tier test files); `skip`: test files
    to count as slow."""
    modules = project_modules()
    lazy = _lazy_names()
    todo, fast = seeds(modules, lazy, skip)
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        path, is_package = modules[name]
        source = path.read_text(encoding="utf-8")
        todo |= (_closed(_imports(ast.parse(source), name, is_package), modules, lazy) | _programs(source)) \
            & set(modules)
    return set(modules), seen, fast


def test_every_module_is_reached_by_the_fast_tier() -> None:
    modules, seen, fast = reached()
    assert len(fast) > 20 and "tests/test_fast_tier.py" in fast
    assert sorted(modules - seen) == []


def test_the_check_notices_modules_no_fast_test_reaches() -> None:
    """Not vacuous: with only the sanitizer's tests left fast, most of the code is not reached."""
    _, _, fast = reached()
    modules, seen, left = reached(frozenset(f for f in fast if f != "tests/test_sanitize.py"))
    assert left == ["tests/test_sanitize.py"]
    assert {"loreline.beliefs.curate", "loreline_lsp.server", "loreline.team.publish"} <= modules - seen
