"""The real language server over stdio, driven by pytest-lsp's client, on a store filled by a
real import of a session in a real git repository."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import ClientServerConfig, LanguageClient

from loreline import pipeline

from loreline.beliefs import conflicts
from loreline.distill.rules import RulesDistiller
from loreline.samples.builder import ClaudeSession
from loreline.store import Store
from loreline.store import memories as rows
from tests.conftest import ROOT
from tests.fake_anthropic import TEST_KEY, FakeAnthropic, fake_anthropic  # noqa: F401  (fixture)

pytestmark = pytest.mark.slow  # the real language server over stdio, one process per test

PROTOCOL_DOC = ROOT / "docs" / "protocol.md"


def make_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    (repo / "src" / "app.py").write_text("# install deps with pnpm\nimport os\nLOCK = 'advisory'\n")
    (repo / "README.md").write_text("nothing to see\n")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    return repo


def fill(tmp_path: Path, repo: Path, count: int = 1) -> list[Path]:
    paths = []
    for n in range(count):
        s = ClaudeSession(str(repo / "src"))
        s.user("In this repo we use pnpm, never npm.")
        s.assistant("Checking the app.", tools=[("Read", {"file_path": str(repo / "src" / "app.py")}, "import os")])
        s.user("We'll use Postgres advisory locks because each billing job needs one worker.")
        s.user(f"The fix was to bump the worker pool to {n + 8} threads.")
        paths.append(s.write(tmp_path / "sessions" / f"s{n}.jsonl"))
    return paths


def import_paths(paths: list[Path]) -> None:
    with Store() as store:
        pipeline.import_sessions(store, [(p, None) for p in paths], pipeline.Options(distiller=RulesDistiller()))


@pytest.fixture
async def lsp(tmp_path: Path, loreline_home: Path) -> AsyncIterator[tuple[LanguageClient, Path]]:
    repo = make_repo(tmp_path)
    import_paths(fill(tmp_path, repo))
    env = {**os.environ, "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}
    client = await ClientServerConfig(server_command=[sys.executable, "-m", "loreline_lsp"], server_env=env).start()
    changes: list[Any] = []
    client.feature("loreline/didChange")(lambda params: changes.append(params))
    client.did_change_log = changes  # type: ignore[attr-defined]
    await client.initialize_session(types.InitializeParams(
        capabilities=types.ClientCapabilities(window=types.WindowClientCapabilities(work_done_progress=True)),
        workspace_folders=[types.WorkspaceFolder(uri=repo.as_uri(), name="repo")],
        initialization_options={"hoverLimit": 2, "pollSeconds": 0.2, "backgroundWorker": False, "bogus": 1},
    ))
    yield client, repo
    await client.shutdown_session()


async def call(client: LanguageClient, method: str, params: dict[str, Any]) -> Any:
    return await client.protocol.send_request_async(method, params)


def doc_methods() -> set[str]:
    return set(re.findall(r"^### `(loreline/\w+)`", PROTOCOL_DOC.read_text(encoding="utf-8"), re.M))


def test_the_server_implements_exactly_the_documented_methods() -> None:
    from loreline_lsp.server import NOTIFICATIONS, custom_methods

    assert doc_methods() == set(custom_methods()) | set(NOTIFICATIONS)


async def test_bad_initialization_options_are_reported_and_defaults_used(lsp: tuple[LanguageClient, Path]) -> None:
    client, _ = lsp
    messages = [m.message for m in client.messages]
    assert any("unknown initialization option 'bogus'" in m for m in messages)


async def test_memories_paging_and_filters(lsp: tuple[LanguageClient, Path]) -> None:
    client, repo = lsp
    page = await call(client, "loreline/memories", {})
    assert page.project == str(repo) and page.total == 3
    assert {m.kind for m in page.items} == {"preference", "decision", "fact"}
    only = await call(client, "loreline/memories", {"kind": "decision"})
    assert [m.text[:9] for m in only.items] == ["We'll use"]
    first = await call(client, "loreline/memories", {"limit": 1, "offset": 1})
    assert len(first.items) == 1 and first.total == 3
    text = await call(client, "loreline/memories", {"text": "pnpm"})
    assert [m.kind for m in text.items] == ["preference"]
    elsewhere = await call(client, "loreline/memories", {"folder": str(repo.parent)})
    assert elsewhere.total == 0


async def test_provenance_and_recall(lsp: tuple[LanguageClient, Path]) -> None:
    client, _ = lsp
    hits = await call(client, "loreline/recall", {"query": "advisory locks billing"})
    top = hits.items[0]
    assert "advisory locks" in top.memory.text and top.ftsRank == 1
    prov = await call(client, "loreline/provenance", {"id": top.memory.id})
    source = prov.sources[0]
    assert (source.tool, source.lineStart, source.lineEnd) == ("claude-code", 5, 5)
    assert source.sessionUri.startswith("file://") and "advisory" in source.excerpt


async def test_the_brief_with_each_lines_sources_follows_a_forget(lsp: tuple[LanguageClient, Path]) -> None:
    from loreline.brief import rewrite

    client, repo = lsp
    assert await call(client, "loreline/brief", {}) is None  # no brief written yet
    with Store() as store:
        rewrite.rewrite(store, str(repo))
    brief = await call(client, "loreline/brief", {"folder": str(repo)})
    assert brief.project == str(repo) and brief.writer == "rules" and brief.version == 1
    lines = {line.text: line for line in brief.lines}
    pnpm = lines["In this repo we use pnpm, never npm."]
    assert (pnpm.topic, pnpm.title, pnpm.by) == ("conventions", "Conventions and preferences", "rules")
    assert [s.id for s in pnpm.sources] == pnpm.memories and pnpm.sources[0].source.lineStart == 1
    await call(client, "loreline/forget", {"id": pnpm.memories[0]})
    after = await call(client, "loreline/brief", {})
    assert after.version == 2 and "In this repo we use pnpm, never npm." not in {line.text for line in after.lines}
    assert len(after.lines) == len(brief.lines) - 1


async def test_hover_shows_matching_memories_with_provenance(lsp: tuple[LanguageClient, Path]) -> None:
    client, repo = lsp
    uri = (repo / "src" / "app.py").as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(
        uri=uri, language_id="python", version=1, text=(repo / "src" / "app.py").read_text())))
    found = await client.text_document_hover_async(types.HoverParams(
        types.TextDocumentIdentifier(uri), types.Position(line=0, character=22)))
    assert found is not None
    value = found.contents.value  # type: ignore[union-attr]
    assert "preference" in value and "In this repo we use pnpm, never npm." in value
    assert "claude-code" in value and "lines 1" in value
    nothing = await client.text_document_hover_async(types.HoverParams(
        types.TextDocumentIdentifier(uri), types.Position(line=1, character=8)))
    assert nothing is None


async def test_code_lens_lists_memories_tied_to_the_file(lsp: tuple[LanguageClient, Path]) -> None:
    client, repo = lsp
    uri = (repo / "src" / "app.py").as_uri()
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(types.TextDocumentIdentifier(uri)))
    assert len(lenses) == 1 and lenses[0].range.start.line == 0
    assert lenses[0].command is not None and "memories about this file" in lenses[0].command.title
    listed = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command=lenses[0].command.command, arguments=lenses[0].command.arguments))
    assert {m["kind"] for m in listed["items"]} == {"preference", "decision"}
    none = await client.text_document_code_lens_async(types.CodeLensParams(
        types.TextDocumentIdentifier((repo / "README.md").as_uri())))
    assert not none


async def test_conflicts_written_by_another_process_arrive_with_did_change(
        lsp: tuple[LanguageClient, Path]) -> None:
    client, repo = lsp
    page = await call(client, "loreline/memories", {})
    ids = {m.kind: m.id for m in page.items}
    with Store() as store, store.write():
        cid = conflicts.record(store, str(repo), ids["preference"], ids["decision"], "test pair")
    for _ in range(50):
        if client.did_change_log:  # type: ignore[attr-defined]
            break
        await asyncio.sleep(0.1)
    assert client.did_change_log, "no loreline/didChange after another process wrote"  # type: ignore[attr-defined]
    pending = await call(client, "loreline/conflicts", {})
    assert [c.id for c in pending.items] == [cid]
    resolved = await call(client, "loreline/resolveConflict", {"id": cid, "keep": "new"})
    assert (resolved.status, resolved.resolution, resolved.existing.status) == ("resolved", "keep_new", "superseded")
    assert (await call(client, "loreline/conflicts", {})).items == []


async def test_forget_removes_from_listing_and_notifies(lsp: tuple[LanguageClient, Path]) -> None:
    client, _ = lsp
    page = await call(client, "loreline/memories", {"kind": "fact"})
    before = len(client.did_change_log)  # type: ignore[attr-defined]
    result = await call(client, "loreline/forget", {"id": page.items[0].id})
    assert result.forgotten == [page.items[0].id] and result.project == page.project
    assert (await call(client, "loreline/memories", {"kind": "fact"})).total == 0
    await asyncio.sleep(0.1)
    assert len(client.did_change_log) > before  # type: ignore[attr-defined]


async def test_import_reports_progress(lsp: tuple[LanguageClient, Path], tmp_path: Path) -> None:
    client, repo = lsp
    paths = fill(tmp_path / "more", repo, count=3)
    result = await call(client, "loreline/import", {"paths": [p.as_uri() for p in paths]})
    # the first session repeats what the store already knows; the other two add one fact each
    assert (result.sessions.imported, result.added, result.merged) == (3, 2, 7)
    (token, reports), = client.progress_reports.items()
    assert str(token).startswith("loreline-import-")
    kinds = [getattr(r, "kind", None) for r in reports]
    assert kinds[0] == "begin" and kinds[-1] == "end" and kinds.count("report") == 3


async def test_import_can_be_cancelled_between_sessions(lsp: tuple[LanguageClient, Path], tmp_path: Path) -> None:
    client, repo = lsp
    paths = fill(tmp_path / "many", repo, count=150)
    task = asyncio.ensure_future(call(client, "loreline/import", {"paths": [str(p) for p in paths]}))
    token = None
    for _ in range(500):
        started = [t for t, reports in client.progress_reports.items()
                   if any(getattr(r, "kind", "") == "report" for r in reports)]
        if started:
            token = started[0]
            break
        await asyncio.sleep(0.01)
    assert token is not None
    client.protocol.notify("window/workDoneProgress/cancel", types.WorkDoneProgressCancelParams(token=token))
    result = await task
    assert result.cancelled is True and result.sessions.imported < 150


async def test_status(lsp: tuple[LanguageClient, Path]) -> None:
    client, repo = lsp
    info = await call(client, "loreline/status", {})
    assert info.memories.active == 3 and info.project == str(repo) and info.sessionsImported == 1
    assert (info.projectCounts.active, info.projectCounts.pendingConflicts) == (3, 0)
    page = await call(client, "loreline/memories", {"kind": "preference"})
    assert page.items[0].source.lineStart == 1 and page.items[0].sourceCount == 1


BAD_PARAMS = [
    ("loreline/memories", {"limit": "ten"}),
    ("loreline/memories", {"kind": "opinion"}),
    ("loreline/provenance", {"id": "7"}),
    ("loreline/provenance", {}),
    ("loreline/provenance", {"id": 2**70}),
    ("loreline/memories", {"text": "\ud800"}),
    ("loreline/recall", {"query": 42}),
    ("loreline/conflicts", {"status": 1}),
    ("loreline/resolveConflict", {"id": 1, "keep": "new", "merge": "x"}),
    ("loreline/resolveConflict", {"id": 1, "keep": "maybe"}),
    ("loreline/forget", {"id": None}),
    ("loreline/import", {"paths": "not-a-list"}),
    ("loreline/status", {"folder": 3}),
    ("loreline/setApiKey", {"key": 123}),
]


@pytest.mark.parametrize(("method", "params"), BAD_PARAMS)
async def test_wrong_parameter_types_are_rejected_and_the_server_stays_up(
        lsp: tuple[LanguageClient, Path], method: str, params: dict[str, Any]) -> None:
    client, _ = lsp
    with pytest.raises(JsonRpcException) as caught:
        await call(client, method, params)
    assert caught.value.code == -32602
    assert (await call(client, "loreline/memories", {})).total == 3


async def test_engine_errors_are_request_failed_responses(lsp: tuple[LanguageClient, Path]) -> None:
    client, _ = lsp
    for method, params, text in (("loreline/provenance", {"id": 999}, "no memory with id 999"),
                                 ("loreline/forget", {"id": 999}, "no memory with id 999"),
                                 ("loreline/resolveConflict", {"id": 5, "keep": "new"}, "no conflict"),
                                 ("loreline/setApiKey", {"key": "sk-ant-test-key"}, "keyring"),
                                 ("loreline/import", {"paths": ["/nonexistent/s.jsonl"]}, "no such transcript")):
        with pytest.raises(JsonRpcException) as caught:
            await call(client, method, params)
        assert caught.value.code == -32803 and text in caught.value.message
    assert (await call(client, "loreline/memories", {})).total == 3


async def test_the_server_hosts_the_capture_worker(tmp_path: Path, loreline_home: Path) -> None:
    """A Stop hook only spools (it never starts a worker); the worker inside the running
    server imports it and the client hears `loreline/didChange` — no CLI involved."""
    repo = make_repo(tmp_path)
    env = {**os.environ, "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}
    client = await ClientServerConfig(server_command=[sys.executable, "-m", "loreline_lsp"], server_env=env).start()
    changes: list[Any] = []
    client.feature("loreline/didChange")(lambda params: changes.append(params))
    await client.initialize_session(types.InitializeParams(
        capabilities=types.ClientCapabilities(),
        workspace_folders=[types.WorkspaceFolder(uri=repo.as_uri(), name="repo")],
        initialization_options={"pollSeconds": 0.2, "workerIntervalSeconds": 1},
    ))
    try:
        session = ClaudeSession(str(repo))
        session.user("In this repo we use pnpm, never npm.")
        session.assistant("Noted.")
        session.user("Thanks, that is all for now.")  # two prompts: background capture skips one-prompt sessions
        path = session.write(tmp_path / "live.jsonl")
        payload = json.dumps({"session_id": session.session_id, "transcript_path": str(path), "cwd": str(repo),
                              "hook_event_name": "Stop"})
        hook = Path(sys.executable).parent / "loreline-hook"
        done = subprocess.run([str(hook), "Stop"], input=payload, text=True, capture_output=True,
                              env={**env, "LORELINE_HOME": str(loreline_home)}, timeout=30)
        assert done.returncode == 0
        total = 0
        for _ in range(150):
            total = (await call(client, "loreline/memories", {})).total
            if total:
                break
            await asyncio.sleep(0.1)
        assert total == 1
        for _ in range(30):
            if changes:
                break
            await asyncio.sleep(0.1)
        assert changes
    finally:
        await client.shutdown_session()


async def test_a_write_waiting_for_the_lock_does_not_freeze_reads(lsp: tuple[LanguageClient, Path]) -> None:
    import threading
    import time as clock

    client, _ = lsp
    page = await call(client, "loreline/memories", {"kind": "fact"})
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        with Store() as store, store.write():
            held.set()
            release.wait(10)

    thread = threading.Thread(target=hold)
    thread.start()
    held.wait(5)
    try:
        pending = asyncio.ensure_future(call(client, "loreline/forget", {"id": page.items[0].id}))
        await asyncio.sleep(0.2)
        started = clock.monotonic()
        assert (await call(client, "loreline/memories", {})).total == 3
        assert clock.monotonic() - started < 1.5 and not pending.done()
    finally:
        release.set()
        thread.join()
    assert (await pending).forgotten == [page.items[0].id]


# ---- every field the engine keeps reaches the editor (one serializer for both front ends) ----


async def test_import_report_counts_conflicts_and_versions(lsp: tuple[LanguageClient, Path], tmp_path: Path) -> None:
    client, repo = lsp
    s = ClaudeSession(str(repo))
    s.user("Let's use MySQL for reporting since the team knows it.")
    s.user("Actually, scrap that: we'll use Postgres for reporting because we need window functions.")
    result = await call(client, "loreline/import", {"paths": [str(s.write(tmp_path / "rev.jsonl"))]})
    assert (result.conflicts, result.versioned, result.added) == (1, 0, 2)
    assert result.sessions.deferred == [] and result.forgottenSkipped == 0 and result.linesSkipped == 0
    info = await call(client, "loreline/status", {})
    assert info.projectCounts.active == 4 and info.projectCounts.superseded == 1


async def test_import_report_shows_sessions_deferred_by_a_rate_limit(
        tmp_path: Path, loreline_home: Path, fake_anthropic: FakeAnthropic) -> None:
    """The editor hears which sessions wait for the next run, and why (it used to drop them)."""
    repo = make_repo(tmp_path)
    path = fill(tmp_path, repo)[0]
    fake_anthropic.enqueue(FakeAnthropic.rate_limited(retry_after="3600"))
    env = {**os.environ, "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring", "ANTHROPIC_API_KEY": TEST_KEY,
           "ANTHROPIC_BASE_URL": fake_anthropic.url}
    client = await ClientServerConfig(server_command=[sys.executable, "-m", "loreline_lsp"], server_env=env).start()
    await client.initialize_session(types.InitializeParams(
        capabilities=types.ClientCapabilities(),
        workspace_folders=[types.WorkspaceFolder(uri=repo.as_uri(), name="repo")],
        initialization_options={"backgroundWorker": False}))
    try:
        result = await call(client, "loreline/import", {"paths": [path.as_uri()]})
    finally:
        await client.shutdown_session()
    assert result.backend == "anthropic" and result.sessions.imported == 0
    (deferred,) = result.sessions.deferred
    assert deferred.path == str(path) and "asked to wait 3600s" in deferred.reason
    assert result.modelUse.model == "claude-haiku-4-5"


async def test_a_stale_file_gets_a_diagnostic_with_confirm_forget_and_provenance(
        lsp: tuple[LanguageClient, Path]) -> None:
    client, repo = lsp
    app = repo / "src" / "app.py"
    uri = app.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(
        uri=uri, language_id="python", version=1, text=app.read_text())))
    await wait_for(lambda: uri in client.diagnostics)
    assert not client.diagnostics[uri]
    (repo / "README.md").write_text("an unrelated change\n")
    client.text_document_did_save(types.DidSaveTextDocumentParams(
        types.TextDocumentIdentifier((repo / "README.md").as_uri())))
    await asyncio.sleep(0.3)
    assert not client.diagnostics[uri]
    app.write_text("def rewritten():\n    return 'yarn'\n")
    client.text_document_did_save(types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(uri)))
    await wait_for(lambda: bool(client.diagnostics[uri]))
    diag = client.diagnostics[uri][0]
    assert diag.severity == types.DiagnosticSeverity.Information and diag.range.start.line == 0
    assert diag.source == "loreline" and diag.code == "loreline.stale"
    assert diag.message.startswith("2 memories about this file may be stale since it changed: #")
    assert "src/app.py changed (100% of its lines)" in diag.message
    ids = diag.data["ids"]  # type: ignore[index]
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        types.TextDocumentIdentifier(uri), diag.range, types.CodeActionContext(diagnostics=[diag])))
    titles = [a.title for a in actions or []]
    assert titles[:3] == [f"Loreline: confirm #{ids[0]} still holds", f"Loreline: forget #{ids[0]}",
                          f"Loreline: show provenance of #{ids[0]}"]
    listed = await call(client, "loreline/memories", {})
    assert {m.id for m in listed.items if m.stale} == set(ids)
    shown = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="loreline.stale.provenance", arguments=[ids[0]]))
    assert shown["sources"][0]["excerpt"]
    confirmed = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="loreline.stale.confirm", arguments=[ids[0]]))
    assert confirmed["stale"] is None and " via " in confirmed["confirmedBy"]
    await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="loreline.stale.forget", arguments=[ids[1]]))
    await wait_for(lambda: not client.diagnostics[uri])
    again = await call(client, "loreline/provenance", {"id": ids[0]})
    assert again.memory.confirmedAt and again.memory.lastSeen == again.memory.confirmedAt


async def wait_for(condition: Any, seconds: float = 10.0) -> None:
    for _ in range(int(seconds / 0.05)):
        if condition():
            return
        await asyncio.sleep(0.05)
    raise AssertionError("timed out waiting for the server")


async def test_the_inbox_lists_held_memories_and_conflicts_and_approve_reject_work(
        lsp: tuple[LanguageClient, Path]) -> None:
    client, repo = lsp
    with Store() as store:
        ids = [int(r[0]) for r in store.rows("SELECT id FROM memories ORDER BY id")]
        with store.write():
            for memory_id in ids[:2]:
                rows.hold(store, memory_id, "from background capture (review = ask)")
            conflicts.record(store, str(repo), ids[0], ids[2], "test pair")
    inbox = await call(client, "loreline/inbox", {})
    assert [m.id for m in inbox.held] == ids[:2] and inbox.held[0].holdReason.startswith("from background")
    assert [c.new.id for c in inbox.conflicts] == [ids[2]]
    listed = await call(client, "loreline/memories", {})
    assert [m.id for m in listed.items] == [ids[2]]
    approved = await call(client, "loreline/approve", {"id": ids[0], "text": "We use pnpm for everything."})
    assert approved.status == "active" and approved.text == "We use pnpm for everything." and approved.holdReason is None
    rejected = await call(client, "loreline/reject", {"id": ids[1]})
    assert rejected.forgotten == [ids[1]]
    after = await call(client, "loreline/inbox", {})
    assert after.held == [] and len(after.conflicts) == 1
    with pytest.raises(JsonRpcException, match="is not held for review"):
        await call(client, "loreline/reject", {"id": ids[0]})


async def test_a_branch_switch_reported_as_watched_files_flags_and_switching_back_clears(
        lsp: tuple[LanguageClient, Path]) -> None:
    client, repo = lsp
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@e"}

    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(repo), *args], check=True, env=env, capture_output=True)

    app = repo / "src" / "app.py"
    git("add", ".")
    git("commit", "-qm", "start")
    git("checkout", "-qb", "other")
    app.write_text("class Entirely:\n    different = True\n")
    git("commit", "-qam", "other")
    uri = app.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(
        uri=uri, language_id="python", version=1, text=app.read_text())))
    await wait_for(lambda: uri in client.diagnostics)
    changed = types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=uri, type=types.FileChangeType.Changed),
        types.FileEvent(uri=(repo / "README.md").as_uri(), type=types.FileChangeType.Changed)])
    client.workspace_did_change_watched_files(changed)
    await wait_for(lambda: bool(client.diagnostics[uri]))
    assert client.diagnostics[uri][0].message.startswith("2 memories about this file may be stale")
    git("checkout", "-q", "master" if "master" in subprocess.run(
        ["git", "-C", str(repo), "branch"], capture_output=True, text=True).stdout else "main")
    client.workspace_did_change_watched_files(changed)
    await wait_for(lambda: not client.diagnostics[uri])
    listed = await call(client, "loreline/memories", {})
    assert not any(m.stale for m in listed.items)


async def test_a_file_changed_while_closed_is_checked_when_opened(lsp: tuple[LanguageClient, Path]) -> None:
    client, repo = lsp
    app = repo / "src" / "app.py"
    app.write_text("nothing of the old file is left\n")
    uri = app.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(
        uri=uri, language_id="python", version=1, text=app.read_text())))
    await wait_for(lambda: bool(client.diagnostics.get(uri)))
    assert "src/app.py changed (100% of its lines)" in client.diagnostics[uri][0].message
