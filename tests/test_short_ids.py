"""Short session ids, the way git shortens hashes: two Codex sessions of the same minute share
their first eight characters (time-ordered ids), so every surface shows as many characters as
it takes to tell them apart: the CLI, the MCP server and the language server, over their real
processes, on a store filled by a real import."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from loreline import pipeline
from loreline.distill.rules import RulesDistiller
from loreline.store import Store, shortids
from tests.conftest import loreline_exe, subprocess_env
from tests.test_mcp import call as mcp_call
from tests.test_mcp import client as mcp_client
from tests.transcripts_helpers import environment, response, session_meta, write_jsonl

#: two sessions started in the same minute (Codex ids are UUIDv7: the time comes first)
FLY = "01a231f7-5b10-7c44-9d1e-3f2a6b7c8d90"
SQLITE = "01a231f7-9e22-7a01-8b3c-4d5e6f708192"
#: a session of another day: eight characters already tell it apart
OTHER = "0199ee10-2c3d-7000-8000-000000000001"
SAID = {FLY: "In this repo we deploy with fly, never heroku.",
        SQLITE: "We decided to keep SQLite because the app runs on laptops.",
        OTHER: "In this repo we use pnpm, never npm."}


@pytest.fixture
def project(tmp_path: Path, loreline_home: Path) -> Path:
    repo = tmp_path / "shop"
    (repo / "src").mkdir(parents=True)
    (repo / "src" / "deploy.py").write_text("# deploy with fly\n")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    paths = []
    for sid, sentence in SAID.items():
        paths.append(write_jsonl(tmp_path / "codex" / f"rollout-2026-11-30T10-00-00-{sid}.jsonl", [
            session_meta(sid, str(repo)), environment(str(repo)), response("user", sentence),
            response("assistant", "Noted.")]))
    with Store() as store:
        report = pipeline.import_sessions(store, [(p, "codex") for p in paths],
                                          pipeline.Options(distiller=RulesDistiller()))
    assert not report.failed and report.added == 3, report
    return repo


def memory_ids(home: Path, cwd: Path) -> dict[str, int]:
    listing = json.loads(cli(home, cwd, "memories", "--json").stdout)
    return {sid: next(int(m["id"]) for m in listing if m["text"] == said) for sid, said in SAID.items()}


def cli(home: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([loreline_exe(), *args], capture_output=True, text=True, env=subprocess_env(home), cwd=cwd,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return done


def test_the_rule_is_gits() -> None:
    assert shortids.unique_prefix(FLY, [SQLITE, OTHER]) == "01a231f7-5"
    assert shortids.unique_prefix(OTHER, [FLY, SQLITE]) == "0199ee10"  # never fewer than eight
    assert shortids.unique_prefix(FLY, [FLY]) == "01a231f7"  # the id itself is no other id
    assert shortids.unique_prefix("abc", ["abd"]) == "abc"  # a short id is shown whole
    assert shortids.unique_prefix(FLY, [FLY + "-sub"]) == FLY  # another id starts with all of it


def test_the_store_shortens_by_reading_neighbours_through_an_index(project: Path) -> None:
    with Store() as store:
        assert shortids.sessions(store, [FLY, SQLITE, OTHER]) == {
            FLY: "01a231f7-5", SQLITE: "01a231f7-9", OTHER: "0199ee10"}
        plan = " ".join(str(row[-1]) for row in store.rows(f"EXPLAIN QUERY PLAN {shortids._NEIGHBOURS}", {"id": FLY}))
    assert "provenance_by_session_id" in plan and "ledger_by_session_id" in plan and "SCAN" not in plan


def test_the_cli_shows_ids_that_tell_the_sessions_apart(project: Path, loreline_home: Path) -> None:
    ids = memory_ids(loreline_home, project)
    fly = cli(loreline_home, project, "show", str(ids[FLY])).stdout
    assert "codex · session 01a231f7-5 ·" in fly
    assert "codex · session 01a231f7-9 ·" in cli(loreline_home, project, "show", str(ids[SQLITE])).stdout
    assert "codex · session 0199ee10 ·" in cli(loreline_home, project, "show", str(ids[OTHER])).stdout
    assert "session 01a231f7-5 ·" in cli(loreline_home, project, "history", str(ids[FLY])).stdout
    assert "session 01a231f7-5 ·" in cli(loreline_home, project, "recall", "deploy with fly").stdout
    listed = json.loads(cli(loreline_home, project, "memories", "--json").stdout)
    shown = {m["source"]["session_id"]: m["source"]["session_short"] for m in listed}
    assert shown == {FLY: "01a231f7-5", SQLITE: "01a231f7-9", OTHER: "0199ee10"}


async def test_the_mcp_server_shows_ids_that_tell_the_sessions_apart(project: Path, loreline_home: Path) -> None:
    ids = memory_ids(loreline_home, project)
    async with mcp_client(loreline_home, project) as session:
        error, fly = await mcp_call(session, "show_memory", id=ids[FLY])
        assert not error and "codex session 01a231f7-5 " in fly
        error, sqlite = await mcp_call(session, "show_memory", id=ids[SQLITE])
    assert not error and "codex session 01a231f7-9 " in sqlite


@pytest.fixture
async def lsp(project: Path) -> AsyncIterator[LanguageClient]:
    env = {**os.environ, "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}
    client = await ClientServerConfig(server_command=[sys.executable, "-m", "loreline_lsp"], server_env=env).start()
    await client.initialize_session(types.InitializeParams(
        capabilities=types.ClientCapabilities(),
        workspace_folders=[types.WorkspaceFolder(uri=project.as_uri(), name="shop")],
        initialization_options={"backgroundWorker": False},
    ))
    yield client
    await client.shutdown_session()


async def test_the_language_server_shows_ids_that_tell_the_sessions_apart(lsp: LanguageClient, project: Path,
                                                                          loreline_home: Path) -> None:
    ids = memory_ids(loreline_home, project)
    found: Any = await lsp.protocol.send_request_async("loreline/provenance", {"id": ids[FLY]})
    assert found.sources[0].sessionId == FLY and found.sources[0].sessionShort == "01a231f7-5"
    page: Any = await lsp.protocol.send_request_async("loreline/memories", {})
    assert {m.source.sessionShort for m in page.items} == {"01a231f7-5", "01a231f7-9", "0199ee10"}
    uri = (project / "src" / "deploy.py").as_uri()
    lsp.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(
        uri=uri, language_id="python", version=1, text="# deploy with fly\n")))
    hover = await lsp.text_document_hover_async(types.HoverParams(
        types.TextDocumentIdentifier(uri), types.Position(line=0, character=15)))
    assert hover is not None
    assert "session `01a231f7-5`" in hover.contents.value  # type: ignore[union-attr]
