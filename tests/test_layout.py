"""The repository's shape: the engine never depends on the server or the hooks."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

from tests import layout_rules as rules
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


# ---- who may import what, and who may run SQL (the rules: tests/layout_rules.py) -----------------

#: what a SessionStart hook may have loaded at run time: the hook part and what it imports in turn
#: (the prompt index's rebuild names each memory's tool categories: regex only)
HOOK_LIGHT = rules.HOOK_PART | {"loreline", "loreline.errors", "loreline.privacy", "loreline.privacy.identifiers",
                                "loreline.embed", "loreline.embed.hashing", "loreline.embed.concepts"}


def _plant(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_front_ends_import_only_the_api_errors_models_and_the_hook_part() -> None:
    offenders = {str(p.relative_to(ROOT)): bad for folder, package in rules.FRONT_ENDS.items()
                 for p in sorted(folder.rglob("*.py")) if (bad := rules.front_end_offenders(p, package))}
    assert offenders == {}


def test_every_front_end_is_checked() -> None:
    """The CLI, the language server, the MCP server, the warm process and the hooks, each a
    real folder with Python files in it."""
    assert set(rules.FRONT_ENDS.values()) == {"loreline.cli", "loreline_lsp", "loreline_mcp", "loreline_warm", "loreline_view",
                                             "loreline_hooks"}
    assert all(len(list(folder.glob("*.py"))) > 1 for folder in rules.FRONT_ENDS)


def test_the_front_end_check_catches_planted_imports(tmp_path: Path) -> None:
    bad = _plant(tmp_path, "service.py",
                 "from loreline.api import serialize\nfrom loreline.store import memories as rows\n"
                 "from loreline import pipeline, home, errors\nimport loreline.beliefs.curate\n"
                 "from loreline.capture import worker\nfrom loreline_hooks import spool\n"
                 "from loreline_lsp import limits\nimport lsprotocol\n")
    assert rules.front_end_offenders(bad, "loreline_mcp") == [
        "loreline.beliefs.curate", "loreline.capture.worker", "loreline.pipeline", "loreline.store",
        "loreline.store.memories", "loreline_hooks", "loreline_lsp"]
    assert rules.front_end_offenders(bad, "loreline_lsp") == [
        "loreline.beliefs.curate", "loreline.capture.worker", "loreline.pipeline", "loreline.store",
        "loreline.store.memories", "loreline_hooks"]


def test_the_front_end_check_resolves_the_clis_relative_imports(tmp_path: Path) -> None:
    """A file of the CLI reaches the engine with `..`: the check sees through it."""
    bad = _plant(tmp_path, "loreline/cli/probe.py", "from .. import usage, home\nfrom ..api import settings\n"
                                                    "from .common import emit_json\nfrom ..store import Store\n")
    assert rules.front_end_offenders(bad, "loreline.cli", tmp_path) == ["loreline.store", "loreline.usage"]


def test_the_import_checks_catch_dynamic_imports(tmp_path: Path) -> None:
    bad = _plant(tmp_path, "server.py",
                 "import importlib\nfrom importlib import import_module\n"
                 "store = importlib.import_module('loreline.store')\nrecall = import_module('loreline.recall')\n"
                 "worker = __import__('loreline.capture.worker')\nname = 'loreline.' + 'pipeline'\n"
                 "anything = importlib.import_module(name)\napi = importlib.import_module('loreline.api')\n")
    assert rules.front_end_offenders(bad, "loreline_warm") == [
        rules.DYNAMIC, "loreline.capture.worker", "loreline.recall", "loreline.store"]
    assert rules.hook_outsiders(bad) == [rules.DYNAMIC, "loreline.api", "loreline.capture.worker",
                                         "loreline.recall", "loreline.store"]


def test_hooks_import_only_the_standard_library_and_the_hook_part() -> None:
    offenders = {p.name: bad for p in sorted(rules.HOOKS.glob("*.py")) if (bad := rules.hook_outsiders(p))}
    assert offenders == {}


def test_the_hook_check_catches_a_planted_import(tmp_path: Path) -> None:
    bad = _plant(tmp_path, "entry.py", "import json\nfrom loreline import capture, home\nfrom loreline.store import Store\n"
                                       "import orjson\nfrom loreline.capture import jobs\nfrom loreline import api\n")
    assert rules.hook_outsiders(bad) == ["loreline.api", "loreline.capture.jobs", "loreline.store", "orjson"]


def test_the_hook_part_is_standard_library_only() -> None:
    """Each module of the hook part imports, at its top, the standard library and light loreline
    modules only (an import inside a function runs only when it is called: what a hook really
    loads is checked by the run below)."""
    outside = {}
    for name in sorted(rules.HOOK_PART):
        where = rules.ENGINE.parent.joinpath(*name.split("."))
        path = where / "__init__.py" if where.is_dir() else where.with_suffix(".py")
        bad = sorted(m for m in rules.modules(path, top_level_only=True)
                     if m.split(".")[0] not in sys.stdlib_module_names and m not in HOOK_LIGHT)
        if bad:
            outside[name] = bad
    assert outside == {}


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
    found = [hit for p in rules.product_files() if rules.outside_sql_homes(p) for hit in rules.sql_literals(p)]
    assert found == []


def test_the_sql_check_catches_planted_queries(tmp_path: Path) -> None:
    bad = _plant(tmp_path, "status.py",
                 'SQL = """\nSELECT kind FROM memories\n"""\n'
                 'def f(store, t, cols):\n'
                 '    store.conn.execute("UPDATE memories SET pinned = 1 WHERE id = ?", (1,))\n'
                 '    store.rows(f"SELECT id FROM {t} WHERE x = ?", (2,))\n'
                 '    store.scalar("INSERT OR IGNORE INTO tombstones(project) VALUES(?)", ("p",))\n'
                 '    store.rows("select id from memories where project = ?", ("p",))\n'
                 '    where = "memory_id IN (SELECT id FROM memories WHERE project = ?)"\n'
                 '    store.rows("select " + cols + " from " + t)\n'
                 '    store.rows(f"{cols} from x; delete from memories")\n'
                 '    store.conn.execute("pragma journal_mode=wal")\n'
                 '    store.conn.execute("create table if not exists t(x)")\n'
                 '    store.conn.execute("with recent as (select id from m) select * from recent")\n'
                 '    return "Select a memory to show", "update the settings", "insert the block into CLAUDE.md"\n')
    assert [hit.split(": ", 1)[1] for hit in rules.sql_literals(bad)] == [
        "SELECT kind FROM memories", "UPDATE memories SET pinned = 1 WHERE id", "SELECT id FROM ? WHERE x = ?",
        "INSERT OR IGNORE INTO tombstones(project", "select id from memories where project =",
        "SELECT id FROM memories WHERE project =", "select ? from ?", "delete from memories",
        "pragma journal_mode=wal", "create table if not exists t(x)", "with recent as (select id from m) select"]


def test_the_sql_check_skips_docstrings_and_prose(tmp_path: Path) -> None:
    fine = _plant(tmp_path, "notes.py",
                  '"""A plain SELECT needs no extension; select a memory to pin it."""\n'
                  'HELP = "delete it from the list, update your settings, create a table of contents"\n')
    assert rules.sql_literals(fine) == []


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


# ---- the import graph: no circle, no import that runs back up (the layers: layout_rules.LAYERS) ---


def test_every_module_has_a_layer() -> None:
    graph = rules.import_graph()
    assert len(graph) > 200 and rules.unplaced(graph) == []


def test_no_import_circle_in_the_engine_the_servers_or_the_hooks() -> None:
    assert [c for c in rules.cycles(rules.import_graph()) if tuple(c) not in rules.KNOWN_CIRCLES] == []


def test_every_known_circle_is_still_there() -> None:
    """A circle taken out leaves the list too: the exceptions only shrink."""
    found = [tuple(c) for c in rules.cycles(rules.import_graph())]
    assert [c for c in rules.KNOWN_CIRCLES if c not in found] == []


def test_no_import_runs_back_up_a_layer() -> None:
    assert rules.climbs(rules.import_graph()) == []


def test_the_graph_sees_top_function_type_and_package_imports(tmp_path: Path) -> None:
    """Each kind of edge the checks read is found: an import at the top, inside a function (and
    a lambda), under `if TYPE_CHECKING:`, a dynamic one with a literal name, and each module's
    packages; a module's own name and imports of modules outside the graph are not edges."""
    _plant(tmp_path, "pkg/__init__.py", "")
    _plant(tmp_path, "pkg/low.py", "import os\n")
    _plant(tmp_path, "pkg/sub/__init__.py", "")
    _plant(tmp_path, "pkg/sub/deep.py", "")
    _plant(tmp_path, "pkg/high.py",
           "from __future__ import annotations\nimport json\nfrom . import low\nfrom typing import TYPE_CHECKING\n"
           "if TYPE_CHECKING:\n    from .sub import deep\n"
           "def f():\n    from .sub import deep\n    return deep\n"
           "g = lambda: __import__('pkg.sub')\n"
           "import importlib\nx = importlib.import_module('pkg.high')\n")
    graph = rules.import_graph((tmp_path,))
    assert graph["pkg.high"] == {"pkg.low": rules.TOP, "pkg.sub.deep": rules.FUNCTION, "pkg.sub": rules.FUNCTION,
                                 "pkg": rules.PARENT}
    assert graph["pkg.sub.deep"] == {"pkg.sub": rules.PARENT, "pkg": rules.PARENT}
    _plant(tmp_path, "pkg/typed.py", "TYPE_CHECKING = False\nif TYPE_CHECKING:\n    from .high import f\n")
    assert rules.import_graph((tmp_path,))["pkg.typed"] == {"pkg.high": rules.TYPE, "pkg": rules.PARENT}


PLANTED_LAYERS = (("top", ("app.front",)), ("middle", ("app.core",)), ("bottom", ("app", "app.base")))


def _planted_app(tmp_path: Path) -> dict[str, dict[str, str]]:
    """A tiny package with one violation of each kind the checks must report."""
    _plant(tmp_path, "app/__init__.py", "")
    _plant(tmp_path, "app/front.py", "from . import core\n")
    _plant(tmp_path, "app/core/__init__.py", "from . import a\n")  # a package running its module is fine
    _plant(tmp_path, "app/core/a.py", "from . import b\n")
    _plant(tmp_path, "app/core/b.py", "def later():\n    from . import a\n")  # a circle closed inside a function
    _plant(tmp_path, "app/base.py", "def climb():\n    from .core import b\n")  # bottom -> middle, at run time
    _plant(tmp_path, "app/base2.py", "if TYPE_CHECKING:\n    from .front import core\n")  # bottom -> top, typed
    return rules.import_graph((tmp_path,))


def test_the_cycle_check_catches_a_planted_circle(tmp_path: Path) -> None:
    graph = _planted_app(tmp_path)
    assert rules.cycles(graph) == [["app.core.a", "app.core.b"]]
    _plant(tmp_path, "app/core/b.py", "")
    _plant(tmp_path, "app/typed.py", "if TYPE_CHECKING:\n    from .core import a\n")
    _plant(tmp_path, "app/core/a.py", "from .. import typed\n")  # closed only by a typed import: no circle
    assert rules.cycles(rules.import_graph((tmp_path,))) == []


def test_the_layer_check_catches_imports_that_run_back_up(tmp_path: Path) -> None:
    graph = _planted_app(tmp_path)
    assert rules.climbs(graph, PLANTED_LAYERS) == [
        "app.base -> app.core.b (function): bottom -> middle",
        "app.base2 -> app.front (type): bottom -> top",
    ]
    _plant(tmp_path, "app/core/c.py", "")
    layers = (("top", ("app.front", "app.core")), ("middle", ("app.core.c",)), ("bottom", ("app",)))
    assert "app.core.c -> app.core (package): middle -> top" in rules.climbs(rules.import_graph((tmp_path,)), layers)


def test_the_layer_list_names_each_layer_once_and_every_name_once() -> None:
    names = [name for _, members in rules.LAYERS for name in members]
    assert len(names) == len(set(names)) and len({title for title, _ in rules.LAYERS}) == len(rules.LAYERS)
    known = rules.graph_modules()
    assert [name for name in names if name not in known] == []  # each names a real module or package


LAYOUT_DOC = ROOT / "docs" / "layout.md"


def test_the_layer_picture_in_the_docs_is_the_code_s() -> None:
    """docs/layout.md shows the picture `scripts/layers.py` prints from the layer list and the
    real graph: a module moved, added or imported across a layer changes it, and this fails."""
    text = LAYOUT_DOC.read_text(encoding="utf-8")
    found = re.search(r"<!-- layers:begin[^>]*-->\n```text\n(.*?)\n```\n<!-- layers:end -->", text, re.S)
    assert found is not None, "docs/layout.md lost its layer picture (python scripts/layers.py write)"
    assert found.group(1) == rules.diagram(rules.import_graph()), "run: python scripts/layers.py write"


def test_the_picture_changes_when_an_import_crosses_a_layer(tmp_path: Path) -> None:
    graph = _planted_app(tmp_path)
    before = rules.diagram(graph, PLANTED_LAYERS)
    assert "1 import circles, 2 imports that run back up" in before and "└─ imports ▼ 2 middle" in before
    graph["app.front"]["app.base"] = rules.TOP
    assert "└─ imports ▼ 2 middle · 3 bottom" in rules.diagram(graph, PLANTED_LAYERS)


def test_the_table_of_who_decides_what_names_real_modules() -> None:
    text = LAYOUT_DOC.read_text(encoding="utf-8")
    table = text.split("## Who decides what", 1)[1].split("\n## ", 1)[0]
    named = re.findall(r"`(loreline(?:\.\w+)*)`", table)
    known = rules.graph_modules()
    assert len(named) >= 18 and [n for n in named if n not in known] == []
