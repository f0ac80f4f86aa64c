"""The MCP server (`loreline mcp`) through the official SDK's own client over stdio."""

from __future__ import annotations

import json
import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.capture_helpers import db_rows, import_into_store, remembered_session
from tests.conftest import loreline_exe, subprocess_env

pytestmark = pytest.mark.slow  # the MCP server in its own process for each test

TOOLS = {"brief", "recall", "list_memories", "show_memory", "remember", "forget"}


@asynccontextmanager
async def client(home: Path, cwd: Path, **env: str) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(command=str(loreline_exe()), args=["mcp"], cwd=str(cwd),
                                   env={**subprocess_env(home), **env})
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


async def call(session: ClientSession, name: str, **arguments: object) -> tuple[bool, str]:
    result = await session.call_tool(name, arguments)
    text = "\n".join(block.text for block in result.content if block.type == "text")
    return bool(result.is_error), text


@pytest.fixture
def project(tmp_path: Path, loreline_home: Path) -> Path:
    folder = tmp_path / "shop"
    folder.mkdir()
    _, path = remembered_session(folder, tmp_path / "sessions")
    import_into_store(path)
    return folder


async def test_lists_the_tools_with_short_descriptions(project: Path, loreline_home: Path) -> None:
    async with client(loreline_home, project) as session:
        tools = (await session.list_tools()).tools
    assert {t.name for t in tools} == TOOLS
    assert all(t.description and len(t.description) < 300 for t in tools)


async def test_recall_list_and_show_answer_compactly_with_sources(project: Path, loreline_home: Path) -> None:
    async with client(loreline_home, project) as session:
        error, found = await call(session, "recall", query="which package manager, pnpm or npm?")
        assert not error and "pnpm" in found.splitlines()[0]
        memory_id = int(found.split()[0].lstrip("#"))
        error, listing = await call(session, "list_memories")
        assert not error and len(listing.splitlines()) >= 3
        error, decisions = await call(session, "list_memories", kind="decision")
        assert not error and "SQLite" in decisions and "pnpm" not in decisions
        error, shown = await call(session, "show_memory", id=memory_id)
    assert not error and "sources:" in shown and "claude-code session" in shown
    assert len(found) < 400  # one line per memory, no JSON scaffolding


async def test_the_brief_tool_gives_the_brief_with_the_memories_each_line_rests_on(
        project: Path, loreline_home: Path) -> None:
    from loreline.api import Loreline, project_of

    async with client(loreline_home, project) as session:
        error, none_yet = await call(session, "brief")
        assert not error and none_yet.startswith("No brief for this project yet")
        with Loreline() as lore:
            view = lore.refresh_brief(project_of(str(project)), "rules")
        error, brief = await call(session, "brief")
    assert not error and brief.startswith(f"Project brief, version {view.brief.version} (written by rules)")
    lines = [line for line in brief.splitlines() if line.startswith("- ")]
    assert len(lines) == len(view.brief.lines) and "Conventions and preferences:" in brief
    assert all(f"(#{line.memories[0]}" in brief for line in view.brief.lines)


async def test_bad_arguments_are_one_line_tool_errors(project: Path, loreline_home: Path) -> None:
    async with client(loreline_home, project) as session:
        for name, args in (("recall", {"query": ""}), ("recall", {"query": "x", "limit": 0}),
                           ("recall", {"query": "x" * 5000}), ("list_memories", {"kind": "rumour"}),
                           ("show_memory", {"id": "twelve"}), ("remember", {"text": "x", "kind": "fact"}),
                           ("nope", {})):
            error, text = await call(session, name, **args)
            assert error, (name, args)
            assert "Traceback" not in text and text.strip()
        error, _ = await call(session, "recall", query="pnpm")
    assert not error  # the server is still up


async def test_an_empty_store_answers_plainly(tmp_path: Path, loreline_home: Path) -> None:
    folder = tmp_path / "empty"
    folder.mkdir()
    async with client(loreline_home, folder) as session:
        assert await call(session, "recall", query="anything at all") == (False, "No memory matches.")
        assert await call(session, "list_memories") == (False, "No memories for this project yet.")


async def test_another_projects_memory_is_not_found_and_not_forgotten(project: Path, tmp_path: Path,
                                                                      loreline_home: Path) -> None:
    (other_id,) = db_rows(loreline_home, "SELECT min(id) FROM memories")[0]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    async with client(loreline_home, elsewhere) as session:
        for tool in ("show_memory", "forget"):
            error, text = await call(session, tool, id=other_id)
            assert error and text.endswith(f"no memory #{other_id} in this project")
        error, found = await call(session, "recall", query="pnpm npm package manager")
    assert not error and found == "No memory matches."
    assert db_rows(loreline_home, "SELECT status FROM memories WHERE id = ?", (other_id,)) == [("active",)]


async def test_forget_in_scope(project: Path, loreline_home: Path) -> None:
    async with client(loreline_home, project) as session:
        _, found = await call(session, "recall", query="pnpm")
        memory_id = int(found.split()[0].lstrip("#"))
        error, text = await call(session, "forget", id=memory_id)
        assert not error and text.startswith(f"Forgot #{memory_id}")
        _, again = await call(session, "recall", query="pnpm")
    assert f"#{memory_id} " not in again
    assert db_rows(loreline_home, "SELECT status FROM memories WHERE id = ?", (memory_id,)) == [("forgotten",)]


async def test_remember_is_unconfirmed_redacted_and_attributed(project: Path, loreline_home: Path) -> None:
    secret = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    async with client(loreline_home, project) as session:
        error, text = await call(session, "remember", text=f"Deploys go through the staging token {secret}",
                                 kind="procedure", reason="the user said: remember how we deploy")
    assert not error and "unconfirmed" in text
    memory_id = int(text.split("#")[1].split(",")[0])
    (row,) = db_rows(loreline_home, "SELECT text, status FROM memories WHERE id = ?", (memory_id,))
    assert secret not in row[0] and "[REDACTED:" in row[0]
    assert row[1] != "active"  # waits for a person
    actors = db_rows(loreline_home, "SELECT actor FROM audit WHERE memory_id = ?", (memory_id,))
    assert ("assistant",) in actors
    listed = json.loads(subprocess.run([loreline_exe(), "review", "--project", str(project), "--json"],
                                       capture_output=True, text=True, env=subprocess_env(loreline_home),
                                       timeout=60).stdout)
    (held,) = [m for m in listed["held"] if m["id"] == memory_id]
    assert "remember how we deploy" in held["hold_reason"]
    async with client(loreline_home, project) as session:
        _, found = await call(session, "recall", query="deploys staging token")
    assert f"#{memory_id} " not in found  # unconfirmed: never recalled before a person approves it


async def test_remember_refused_when_the_session_opted_out(project: Path, loreline_home: Path) -> None:
    before = db_rows(loreline_home, "SELECT count(*) FROM memories")
    async with client(loreline_home, project, LORELINE_OFF="1") as session:
        error, text = await call(session, "remember", text="Use tabs", kind="preference", reason="asked")
    assert error and "LORELINE_OFF" in text
    assert db_rows(loreline_home, "SELECT count(*) FROM memories") == before


async def test_the_memories_resource_lists_the_projects_memories(project: Path, loreline_home: Path) -> None:
    async with client(loreline_home, project) as session:
        before = await session.read_resource("loreline://memories")
        await call(session, "recall", query="pnpm")  # fixes the scope; the resource then uses it
        after = await session.read_resource("loreline://memories")
    for result in (before, after):
        text = "".join(getattr(c, "text", "") for c in result.contents)
        assert "pnpm" in text and text.startswith("#")
