"""The repository's shape: the engine never depends on the server or the hooks."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

ENGINE = ROOT / "engine" / "loreline"
FORBIDDEN = ("loreline_lsp", "loreline_hooks", "pygls", "lsprotocol")


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_engine_never_imports_server_or_hooks() -> None:
    offenders = {
        str(path.relative_to(ROOT)): sorted(_imports(path) & set(FORBIDDEN))
        for path in ENGINE.rglob("*.py")
        if _imports(path) & set(FORBIDDEN)
    }
    assert offenders == {}


def test_the_check_itself_catches_a_forbidden_import(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("from loreline_lsp import server\nimport pygls.lsp\n")
    assert _imports(bad) & set(FORBIDDEN) == {"loreline_lsp", "pygls"}


def test_top_level_packages_hold_only_their_package() -> None:
    for folder, package in (("engine", "loreline"), ("lsp", "loreline_lsp"), ("hooks", "loreline_hooks")):
        stray = [p.name for p in (ROOT / folder).glob("*.py")]
        assert stray == [], f"{folder}/ must hold only the {package} package"
        assert (ROOT / folder / package / "__init__.py").is_file()


def test_cli_import_stays_light() -> None:
    """Running a cheap command must not import the SDK or the language server."""
    code = (
        "import sys, loreline.cli.main as m; m.build_parser(); "
        "print(','.join(n for n in ('anthropic', 'pygls', 'keyring') if n in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_python_files_stay_small() -> None:
    big = {str(p.relative_to(ROOT)): n for p in ROOT.glob("*/**/*.py")
           if ".venv" not in p.parts and "node_modules" not in p.parts
           and (n := len(p.read_text(encoding="utf-8").splitlines())) > 650}
    assert big == {}


def _absolute_imports(path: Path, root: Path = ROOT / "engine") -> set[str]:
    """Every module `path` imports, relative imports resolved (`from .. import usage` in
    loreline/distill/x.py is loreline.usage)."""
    package = list(path.relative_to(root).with_suffix("").parts[:-1])
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            names.add(module)
            names.update(f"{module}.{alias.name}" for alias in node.names)
    return names


DISTILL_MUST_NOT_IMPORT = ("loreline.store", "loreline.beliefs", "loreline.usage", "loreline.keys")


def _leaks(names: set[str]) -> list[str]:
    return sorted(n for n in names for banned in DISTILL_MUST_NOT_IMPORT if n == banned or n.startswith(banned + "."))


def test_distill_knows_neither_the_store_nor_the_beliefs_nor_usage() -> None:
    offenders = {str(p.relative_to(ROOT)): _leaks(_absolute_imports(p))
                 for p in (ENGINE / "distill").rglob("*.py") if _leaks(_absolute_imports(p))}
    assert offenders == {}


def test_the_distill_check_resolves_relative_imports(tmp_path: Path) -> None:
    bad = tmp_path / "loreline" / "distill" / "probe.py"
    bad.parent.mkdir(parents=True)
    bad.write_text("from ..usage import Meter\nfrom .. import store\nfrom ..beliefs.judge import ModelJudge\n"
                   "import loreline.keys\nfrom . import rules\n")
    assert _leaks(_absolute_imports(bad, tmp_path)) == [
        "loreline.beliefs.judge", "loreline.beliefs.judge.ModelJudge", "loreline.keys", "loreline.store",
        "loreline.usage", "loreline.usage.Meter"]
