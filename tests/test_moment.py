"""At the moment of need (`loreline-hook PreToolUse`, `loreline.moment`): the memories tied to a
command about to run or a file about to be touched, against a store the real importer wrote,
through the installed hook in a subprocess; once per session, within the budget, never for an
unrelated call, never when paused, and nothing but exit 0 for bad input."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from loreline import moment
from loreline.api import Loreline
from loreline.project import project_key
from loreline.samples.builder import ClaudeSession
from loreline.store import Store
from tests.capture_helpers import hook_env, import_into_store, run_hook

ODOO = ("Upgrade an Odoo module in the Docker setup: docker exec odoo odoo -u <module> -d <db> "
        "--stop-after-init")
UV = "We use uv for Python packages, never pip."
TESTS = "To run the tests, use `uv run pytest -q` from the repo root."
SALE = "The sale_custom module overrides order confirmation: restart Odoo after changing it."
BILLING = "We decided to keep the billing rules in one file because finance reviews every change to it."
DOCKER = "docker exec odoo odoo -u sale_custom -d shop --stop-after-init"


def _ids(home: Path) -> dict[str, int]:
    with Store(home / "loreline.db") as store:
        return {str(text): int(i) for i, text in store.rows("SELECT id, text FROM memories WHERE status = 'active'")}


@pytest.fixture
def project(loreline_home: Path, tmp_path: Path) -> Path:
    """A git work tree whose store holds a preference, a procedure, two facts and a decision
    tied to `billing/rules.py` (the session edited it), imported for real; and the Odoo
    procedure an assistant was asked to keep, approved."""
    folder = tmp_path / "shop"
    (folder / ".git").mkdir(parents=True)
    session = ClaudeSession(cwd=str(folder))
    for said in (UV, TESTS, "Remember this: " + SALE):
        session.user(said)
        session.assistant("Noted.")
    session.user(BILLING)
    session.assistant("Keeping them together.", tools=[("Edit", {"file_path": str(folder / "billing" / "rules.py"),
                                                                 "old_string": "a", "new_string": "b"}, "ok")])
    path = session.write(tmp_path / "sessions" / f"{session.session_id}.jsonl")
    import_into_store(path)
    with Loreline() as lore:
        held = lore.remember(project_key(str(folder)), ODOO, "procedure", reason="asked to keep it", actor="assistant")
        lore.approve(held.id)
    return folder


def _tool(home: Path, folder: Path, tool_input: dict[str, Any], session: str = "s-1", tool: str = "Bash",
          **env: str) -> subprocess.CompletedProcess[bytes]:
    payload = {"session_id": session, "transcript_path": str(folder / "t.jsonl"), "cwd": str(folder),
               "hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": tool_input, "tool_use_id": "toolu_1"}
    result = run_hook(home, "PreToolUse", stdin=payload, env=hook_env(home, **env))
    assert result.returncode == 0 and result.stderr == b"", result.stderr
    return result


def _shown(result: subprocess.CompletedProcess[bytes]) -> list[int]:
    if not result.stdout.strip():
        return []
    out = json.loads(result.stdout)["hookSpecificOutput"]
    assert out["hookEventName"] == "PreToolUse" and "permissionDecision" not in out
    return [int(n) for n in re.findall(r"^- #(\d+) ", out["additionalContext"], re.MULTILINE)]


def test_the_store_holds_what_the_tests_rest_on(loreline_home: Path, project: Path) -> None:
    ids = _ids(loreline_home)
    assert {ODOO, UV, TESTS, BILLING} <= set(ids) and any(SALE in text for text in ids)
    with Store(loreline_home / "loreline.db") as store:
        assert store.rows("SELECT path FROM memory_files WHERE memory_id = ?", (ids[BILLING],)) == [("billing/rules.py",)]


def test_an_odoo_upgrade_command_gets_the_procedure(loreline_home: Path, project: Path) -> None:
    ids = _ids(loreline_home)
    shown = _shown(_tool(loreline_home, project, {"command": DOCKER}))
    assert shown and shown[0] == ids[ODOO], shown
    assert ids[UV] not in shown and ids[BILLING] not in shown


@pytest.mark.parametrize("command", ["ls", "ls -la", "cat notes.txt", "echo hello && pwd", "git status"])
def test_an_unrelated_command_gets_nothing(loreline_home: Path, project: Path, command: str) -> None:
    result = _tool(loreline_home, project, {"command": command})
    assert result.stdout == b""


def test_pip_install_gets_the_uv_preference(loreline_home: Path, project: Path) -> None:
    assert _shown(_tool(loreline_home, project, {"command": "pip install requests"})) == [_ids(loreline_home)[UV]]


def test_a_file_under_a_module_a_memory_names_gets_it(loreline_home: Path, project: Path) -> None:
    sale = next(i for text, i in _ids(loreline_home).items() if SALE in text)
    target = project / "addons" / "sale_custom" / "models" / "order.py"
    assert _shown(_tool(loreline_home, project, {"file_path": str(target)}, tool="Edit")) == [sale]
    other = project / "addons" / "stock_extra" / "models" / "order.py"
    assert _shown(_tool(loreline_home, project, {"file_path": str(other)}, tool="Edit", session="s-2")) == []


def test_a_file_a_memory_rests_on_gets_it_by_path(loreline_home: Path, project: Path) -> None:
    ids = _ids(loreline_home)
    assert _shown(_tool(loreline_home, project, {"file_path": str(project / "billing" / "rules.py")},
                        tool="Read")) == [ids[BILLING]]
    # a command naming the file ties it the same way
    assert _shown(_tool(loreline_home, project, {"command": "python -m pytest billing/rules.py"},
                        session="s-2"))[:1] == [ids[BILLING]]


def test_each_memory_is_shown_once_per_session(loreline_home: Path, project: Path) -> None:
    ids = _ids(loreline_home)
    assert _shown(_tool(loreline_home, project, {"command": DOCKER}, session="once")) == [ids[ODOO]]
    assert _tool(loreline_home, project, {"command": DOCKER}, session="once").stdout == b""
    assert _shown(_tool(loreline_home, project, {"command": DOCKER}, session="another")) == [ids[ODOO]]


def test_what_session_start_showed_is_not_shown_again(loreline_home: Path, project: Path) -> None:
    payload = {"session_id": "started", "cwd": str(project), "hook_event_name": "SessionStart", "source": "startup"}
    start = run_hook(loreline_home, "SessionStart", stdin=payload, env=hook_env(loreline_home))
    assert start.returncode == 0 and str(_ids(loreline_home)[UV]) in start.stdout.decode()
    assert _tool(loreline_home, project, {"command": "pip install requests"}, session="started").stdout == b""


def test_at_most_the_budget_is_shown(loreline_home: Path, project: Path) -> None:
    with Loreline() as lore:
        for n in range(6):
            held = lore.remember(project_key(str(project)), f"Docker exec into odoo container number {n} "
                                 "to upgrade modules with odoo -u and --stop-after-init.", "fact",
                                 reason="asked", actor="assistant")
            lore.approve(held.id)
    result = _tool(loreline_home, project, {"command": DOCKER}, session="budget")
    shown = _shown(result)
    assert len(shown) == moment.MAX_MEMORIES
    assert len(json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]) <= moment.MAX_CHARS + 400


def test_paused_sessions_get_nothing(loreline_home: Path, project: Path) -> None:
    assert _tool(loreline_home, project, {"command": DOCKER}, LORELINE_OFF="1").stdout == b""


@pytest.mark.parametrize("stdin", [b"{not json", b"", b"[1, 2]", b'{"session_id": "x", "tool_input": "docker"}',
                                   b'{"session_id": "s", "tool_name": "Bash", "tool_input": {"command": ["docker", 3]}}',
                                   json.dumps({"session_id": "s", "tool_input": {"command": "x" * 100_000}}).encode(),
                                   b'{"session_id": "abc", "tool_input": {"command": "docker exec odoo'])
def test_bad_input_exits_0_and_prints_nothing(loreline_home: Path, project: Path, stdin: bytes) -> None:
    result = run_hook(loreline_home, "PreToolUse", stdin=stdin, env=hook_env(loreline_home), cwd=project)
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


def test_no_store_prints_nothing(loreline_home: Path, tmp_path: Path) -> None:
    result = run_hook(loreline_home, "PreToolUse", env=hook_env(loreline_home),
                      stdin={"session_id": "s", "cwd": str(tmp_path), "tool_input": {"command": DOCKER}})
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


def test_commands_are_read_through_wrappers_and_chains() -> None:
    assert moment.simple_commands("FOO=1 sudo docker exec -it odoo bash") == [["docker", "exec", "-it", "odoo", "bash"]]
    assert [c[0] for c in moment.simple_commands("cd app && uv run pytest -q | tee out; /usr/bin/make test")] == \
        ["cd", "pytest", "tee", "make"]
    assert moment.simple_commands("echo 'unclosed") == [["echo", "'unclosed"]]
    call = moment.read_call("pytest tests/test_billing.py -k rules", [])
    assert call.paths == ["tests/test_billing.py"] and call.programs == ["pytest"]
    assert "make" in moment.read_call("make test", []).words  # a program that is also a stop word


def test_paths_are_read_relative_to_the_work_tree(tmp_path: Path) -> None:
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    repo = str(tmp_path / "repo")
    assert moment.relative(f"{repo}/addons/sale_custom/models/order.py", f"{repo}/addons") == \
        "addons/sale_custom/models/order.py"
    assert moment.relative("billing/rules.py", repo) == "billing/rules.py"
    assert moment.relative("/etc/passwd", repo) is None
    assert moment.module_names("addons/sale_custom/models/order.py") == ["sale_custom", "order.py"]
    assert moment.ancestors("a/b/c.py") == ["a/b/c.py", "a/b", "a"]
    assert moment.names("Restart after editing sale_custom.", "sale_custom")
    assert not moment.names("Restart after editing sale_custom_v2.", "sale_custom")


def test_a_tool_hook_loads_only_light_loreline_modules(loreline_home: Path, project: Path) -> None:
    import sys

    from tests.test_layout import HOOK_LIGHT

    code = ("import io, json, sys\nfrom loreline_hooks import entry\n"
            "sys.stdin = io.TextIOWrapper(io.BytesIO(sys.argv[1].encode()))\n"
            "entry.main(['PreToolUse'])\n"
            "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('loreline', 'apsw', 'orjson',"
            " 'sqlite_vec', 'numpy'))), file=sys.stderr)\n")
    stdin = json.dumps({"session_id": "light", "cwd": str(project), "hook_event_name": "PreToolUse",
                        "tool_name": "Bash", "tool_input": {"command": DOCKER}})
    done = subprocess.run([sys.executable, "-c", code, stdin], capture_output=True, text=True,
                          env=hook_env(loreline_home), timeout=60)
    assert done.returncode == 0 and "docker exec odoo" in done.stdout, done.stderr
    loaded = set(json.loads(done.stderr.strip().splitlines()[-1]))
    assert {"loreline.moment", "loreline.capture.hookread"} <= loaded and loaded <= HOOK_LIGHT, loaded - HOOK_LIGHT
