"""The repository's shape: the engine never depends on the server or the hooks."""

from __future__ import annotations

import ast
import json
import re
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


# ---- who may import what, and who may run SQL --------------------------------------------------

HOOKS = ROOT / "hooks" / "loreline_hooks"
#: what the hook may import besides the standard library: `loreline.capture`'s hook part and
#: the light modules it needs (each standard-library only)
HOOK_LIGHT = frozenset({"loreline", "loreline.capture", "loreline.capture.hookread", "loreline.capture.warmsocket",
                        "loreline.capture.paused",
                        "loreline.home",
                        "loreline.errors", "loreline.project", "loreline.privacy", "loreline.privacy.display",
                        "loreline.privacy.identifiers",
                        # the prompt index's rebuild names each memory's tool categories (regex only)
                        "loreline.embed", "loreline.embed.hashing", "loreline.embed.concepts",
                        # what a prompt asks about, in the glossary's categories (regex only)
                        "loreline.questions"})
#: the bench tool times the hook; it is run by hand, never by a hook, and plants sample sessions
HOOK_TOOLS = {"bench.py": frozenset({"loreline.samples"})}
#: the engine's inside, which a front end reaches only through `loreline.api`
FRONT_END_FORBIDDEN = ("loreline.store", "loreline.pipeline", "loreline.beliefs", "loreline.recall",
                       "loreline.status", "loreline.vectors", "loreline.distill")
FRONT_ENDS = [*sorted((ENGINE / "cli").glob("*.py")), *sorted((ROOT / "lsp" / "loreline_lsp").glob("*.py")),
              *sorted((ROOT / "lsp" / "loreline_warm").glob("*.py"))]
#: where SQL may be written: the store, and the hook's one read (documented in capture/hookread.py)
SQL_HOMES = (ENGINE / "store", ENGINE / "capture" / "hookread.py")
#: a statement as this code base writes them (keywords in capitals)
SQL_STATEMENT = re.compile(r"^\s*(SELECT\s|INSERT\s+(OR\s+\w+\s+)?INTO\s|UPDATE\s+\w+\s+SET\s|DELETE\s+FROM\s|"
                           r"PRAGMA\s|CREATE\s+(TABLE|INDEX|VIRTUAL|TRIGGER|UNIQUE)\s|ALTER\s+TABLE\s|DROP\s|"
                           r"WITH\s+\w+\s+AS\s)")


def _is_engine_module(dotted: str) -> bool:
    where = ENGINE.parent.joinpath(*dotted.split("."))
    return where.with_suffix(".py").is_file() or (where / "__init__.py").is_file()


def _modules(path: Path) -> set[str]:
    """Every module an import names (`from loreline import home` names loreline and loreline.home;
    `from ..store import memories` in the engine names loreline.store and loreline.store.memories)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
            continue
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level == 0 and node.module:
            base = node.module
        elif node.level > 0 and path.is_relative_to(ENGINE):
            inside = path.relative_to(ENGINE.parent).parts
            base = ".".join(inside[: len(inside) - node.level]) + (f".{node.module}" if node.module else "")
        else:
            continue
        names.add(base)
        names.update(f"{base}.{a.name}" for a in node.names if _is_engine_module(f"{base}.{a.name}"))
    return names


def _hook_offenders(path: Path) -> list[str]:
    allowed = HOOK_LIGHT | HOOK_TOOLS.get(path.name, frozenset())
    found = []
    for name in sorted(_modules(path)):
        top = name.split(".")[0]
        if not (top in sys.stdlib_module_names or top == "loreline_hooks" or name in allowed):
            found.append(name)
    return found


def _sql_literals(path: Path) -> list[str]:
    """String literals (plain, f-strings, implicit concatenations) that are SQL statements, in
    line order, as `file:line: the first 40 characters`."""
    found = []
    tree = ast.parse(path.read_text(encoding="utf-8"))
    parts = {id(v) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for v in node.values}
    for node in ast.walk(tree):
        if id(node) in parts:
            continue
        if isinstance(node, ast.JoinedStr):
            text = "".join(v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
        else:
            continue
        if SQL_STATEMENT.match(text):
            found.append((node.lineno, f"{path.name}:{node.lineno}: {text.strip()[:40]}"))
    return [hit for _, hit in sorted(found)]


def _product_files() -> list[Path]:
    return sorted(p for folder in (ENGINE, ROOT / "lsp" / "loreline_lsp", HOOKS) for p in folder.rglob("*.py"))


def test_hooks_import_only_the_standard_library_and_the_capture_hook_part() -> None:
    offenders = {p.name: bad for p in sorted(HOOKS.glob("*.py")) if (bad := _hook_offenders(p))}
    assert offenders == {}


def test_the_hook_check_catches_a_planted_import(tmp_path: Path) -> None:
    bad = tmp_path / "entry.py"
    bad.write_text("import json\nfrom loreline import capture, home\nfrom loreline.store import Store\nimport orjson\n"
                   "from loreline.capture import jobs\n")
    assert _hook_offenders(bad) == ["loreline.capture.jobs", "loreline.store", "orjson"]


def test_a_session_start_hook_loads_only_light_loreline_modules(loreline_home: Path, tmp_path: Path) -> None:
    """At run time too: after a SessionStart that injects memories, every loaded `loreline`
    module is one of the light ones, and apsw, orjson and the store are not loaded."""
    from tests.capture_helpers import event, hook_env, import_into_store, remembered_session, worker_lock_held

    (tmp_path / "proj").mkdir()
    session, path = remembered_session(tmp_path / "proj", tmp_path / "sessions")
    import_into_store(path)
    code = ("import io, json, sys\nfrom loreline_hooks import entry\n"
            "sys.stdin = io.TextIOWrapper(io.BytesIO(sys.argv[1].encode()))\n"
            "entry.main(['SessionStart'])\n"
            "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('loreline', 'apsw', 'orjson',"
            " 'sqlite_vec'))), file=sys.stderr)\n")
    with worker_lock_held(loreline_home):
        done = subprocess.run([sys.executable, "-c", code, json.dumps(event("SessionStart", session, path))],
                              capture_output=True, text=True, env=hook_env(loreline_home), timeout=60)
    assert done.returncode == 0 and "<loreline-memories>" in done.stdout, done.stderr
    loaded = set(json.loads(done.stderr.strip().splitlines()[-1]))
    assert "loreline.capture.hookread" in loaded and loaded <= HOOK_LIGHT


def test_nothing_outside_the_store_writes_sql() -> None:
    found = [hit for p in _product_files() if not any(p == h or p.is_relative_to(h) for h in SQL_HOMES)
             for hit in _sql_literals(p)]
    assert found == []


def test_the_sql_check_catches_planted_queries(tmp_path: Path) -> None:
    bad = tmp_path / "status.py"
    bad.write_text('SQL = """\nSELECT kind FROM memories\n"""\n'
                   'def f(store, t):\n'
                   '    store.conn.execute("UPDATE memories SET pinned = 1 WHERE id = ?", (1,))\n'
                   '    store.rows(f"SELECT id FROM {t} WHERE x = ?", (2,))\n'
                   '    store.scalar("INSERT OR IGNORE INTO tombstones(project) VALUES(?)", ("p",))\n'
                   '    return "Select a memory to show"\n')
    assert [hit.split(": ", 1)[1] for hit in _sql_literals(bad)] == [
        "SELECT kind FROM memories", "UPDATE memories SET pinned = 1 WHERE id ", "SELECT id FROM  WHERE x = ?",
        "INSERT OR IGNORE INTO tombstones(project"]


def test_front_ends_reach_the_engine_only_through_the_api() -> None:
    offenders = {str(p.relative_to(ROOT)): bad for p in FRONT_ENDS
                 if (bad := sorted(m for m in _modules(p) if m.startswith(FRONT_END_FORBIDDEN)))}
    assert offenders == {}


def test_the_front_end_check_catches_a_planted_import(tmp_path: Path) -> None:
    bad = tmp_path / "service.py"
    bad.write_text("from loreline.api import serialize\nfrom loreline.store import memories as rows\n"
                   "from loreline import pipeline\nimport loreline.beliefs.curate\n")
    assert sorted(m for m in _modules(bad) if m.startswith(FRONT_END_FORBIDDEN)) == [
        "loreline.beliefs.curate", "loreline.pipeline", "loreline.store", "loreline.store.memories"]


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
