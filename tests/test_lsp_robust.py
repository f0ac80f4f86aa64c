"""The real language server over stdio answers every request once, with one-line errors, within
its documented limits, and slow work never holds up other requests (raw JSON-RPC client)."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from loreline.api import Loreline
from loreline_lsp import limits
from loreline_lsp.service import Service
from loreline_lsp.status_cache import StatusCache
from tests.lsp_raw import RawServer, assert_one_line_error
from tests.test_lsp import fill, import_paths, make_repo


def server_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CLAUDE_"))}
    return {**env, "LORELINE_HOME": str(home), "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}


@pytest.fixture
def repo(tmp_path: Path, loreline_home: Path) -> Path:
    repo = make_repo(tmp_path)
    import_paths(fill(tmp_path, repo))
    return repo


@pytest.fixture
def raw(tmp_path: Path, loreline_home: Path) -> Iterator[RawServer]:
    server = RawServer(server_env(loreline_home), tmp_path / "server.log")
    yield server
    server.close()


def hover(uri: object, line: object = 0, character: object = 22) -> dict[str, object]:
    return {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}


def test_requests_before_initialize_are_refused_and_initialize_only_once(raw: RawServer, repo: Path) -> None:
    for method, params in (("loreline/memories", {}), ("textDocument/hover", hover((repo / "x.py").as_uri())),
                           ("loreline/memories", {"limit": "ten"}), ("textDocument/hover", None)):
        assert_one_line_error(raw.call(method, params), "ServerNotInitialized")
    raw.notify("textDocument/didOpen", {"textDocument": {"uri": "file:///x", "languageId": "x", "version": 1,
                                                         "text": "x"}})
    assert "capabilities" in raw.initialize(repo)["result"]
    assert_one_line_error(raw.call("initialize", {"processId": None, "rootUri": None, "capabilities": {}}),
                          "InvalidRequest")
    assert raw.call("loreline/memories", {})["result"]["total"] == 3


@pytest.mark.parametrize("params", [
    hover("file:///a.py", line="zero"),            # a position of the wrong type
    hover("file:///a.py", line=None),
    None,                                          # no params at all
    hover(5),                                      # a URI that is not a string
    {"textDocument": {}, "position": {"line": 0, "character": 0}},
    hover("file:///" + "d" * (limits.MAX_PATH + 10) + "/a.py"),
])
def test_malformed_hovers_are_invalid_params_with_their_id(raw: RawServer, repo: Path, params: object) -> None:
    raw.initialize(repo)
    message = assert_one_line_error(raw.call("textDocument/hover", params), "InvalidParams")
    assert message.startswith("textDocument/hover")
    assert raw.call("loreline/memories", {})["result"]["total"] == 3


def test_a_code_lens_with_an_empty_text_document_is_answered(raw: RawServer, repo: Path) -> None:
    raw.initialize(repo)
    assert_one_line_error(raw.call("textDocument/codeLens", {"textDocument": {}}), "InvalidParams")
    assert_one_line_error(raw.call("textDocument/codeLens", {}), "InvalidParams")
    assert raw.call("textDocument/codeLens", {"textDocument": {"uri": "untitled:Untitled-1"}})["result"] == []


def test_engine_and_os_errors_are_one_line_request_failed(raw: RawServer, repo: Path) -> None:
    raw.initialize(repo)
    missing = raw.call("textDocument/hover", hover((repo / "gone.py").as_uri()))
    assert "cannot read" in assert_one_line_error(missing, "RequestFailed")
    long_folder = raw.call("loreline/memories", {"folder": "/tmp/" + "f" * 100_000})
    assert "4,096" in assert_one_line_error(long_folder, "InvalidParams")
    a_folder = raw.call("textDocument/hover", hover((repo / "src").as_uri()))
    assert "cannot read" in assert_one_line_error(a_folder, "RequestFailed")
    assert_one_line_error(raw.call("loreline/provenance", {"id": 999}), "RequestFailed")
    assert raw.call("loreline/memories", {})["result"]["total"] == 3


def test_a_50_mb_document_is_not_kept_and_hovers_on_it_are_refused(raw: RawServer, repo: Path) -> None:
    raw.initialize(repo)
    uri = (repo / "big.py").as_uri()
    raw.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1,
                                                         "text": "pnpm install\n" * 4_000_000}})
    message = assert_one_line_error(raw.call("textDocument/hover", hover(uri, 0, 2)), "RequestFailed")
    assert "limit" in message
    big_file = repo / "big-on-disk.py"
    big_file.write_bytes(b"pnpm\n" * (limits.MAX_DOCUMENT // 5 + 10))
    assert "limit" in assert_one_line_error(raw.call("textDocument/hover", hover(big_file.as_uri(), 0, 1)),
                                            "RequestFailed")
    raw.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    app = (repo / "src" / "app.py").as_uri()
    found = raw.call("textDocument/hover", hover(app))["result"]
    assert "pnpm" in found["contents"]["value"]


def test_a_huge_recall_query_is_refused_at_once(raw: RawServer, repo: Path) -> None:
    raw.initialize(repo)
    started = time.monotonic()
    answer = raw.call("loreline/recall", {"query": "advisory " * 1_200_000})
    assert "4,096" in assert_one_line_error(answer, "InvalidParams")
    assert time.monotonic() - started < 5
    hits = raw.call("loreline/recall", {"query": "advisory locks"})["result"]["items"]
    assert "advisory" in hits[0]["memory"]["text"]


def test_a_stuck_status_does_not_block_other_requests(tmp_path: Path, loreline_home: Path, repo: Path) -> None:
    """`loreline/status` reads the Claude Code settings; here that file is a FIFO nobody writes
    to, so the read blocks until the test opens it. Meanwhile hovers, lists and refusals are
    answered at once: the status work sits on a reader thread, not on the event loop."""
    claude = tmp_path / "claude-config"
    claude.mkdir()
    os.mkfifo(claude / "settings.json")
    server = RawServer({**server_env(loreline_home), "CLAUDE_CONFIG_DIR": str(claude)}, tmp_path / "server.log")
    try:
        server.initialize(repo)
        stuck = server.new_id()
        server.send({"jsonrpc": "2.0", "id": stuck, "method": "loreline/status", "params": {}})
        more = [server.new_id() for _ in range(6)]  # an editor asks again on every switch
        for msg_id in more:
            server.send({"jsonrpc": "2.0", "id": msg_id, "method": "loreline/status", "params": {}})
        time.sleep(0.5)
        assert not server.responses(stuck), "the status was not held up: the test proves nothing"
        started = time.monotonic()
        found = server.call("textDocument/hover", hover((repo / "src" / "app.py").as_uri()))["result"]
        assert "pnpm" in found["contents"]["value"]
        assert server.call("loreline/memories", {})["result"]["total"] == 3
        assert_one_line_error(server.call("loreline/memories", {"limit": "ten"}), "InvalidParams")
        assert time.monotonic() - started < 2.0
        assert not server.responses(stuck)
        feed(claude / "settings.json")
        assert server.response(stuck, timeout=20)["result"]["memories"]["active"] == 3
        assert all(server.response(msg_id)["result"]["memories"]["active"] == 3 for msg_id in more)
    finally:
        feed(claude / "settings.json")  # never leave the server's reader blocked
        server.close()


def feed(fifo: Path) -> None:
    """Answer the reader blocked on the FIFO with `{}` and put a plain file with the same
    content in its place (later reads do not block). Never blocks itself."""
    try:
        fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
    except OSError:
        return
    try:
        plain = fifo.with_name("plain.json")
        plain.write_text("{}", encoding="utf-8")
        os.replace(plain, fifo)
        os.write(fd, b"{}")
    finally:
        os.close(fd)


def test_requests_after_shutdown_are_refused_and_exit_ends_the_server(raw: RawServer, repo: Path) -> None:
    raw.initialize(repo)
    assert raw.call("shutdown")["result"] is None
    assert_one_line_error(raw.call("loreline/memories", {}), "InvalidRequest")
    raw.notify("exit")
    assert raw.proc.wait(timeout=10) == 0


def test_an_unexpected_error_is_request_failed_and_its_traceback_goes_to_the_log(
        caplog: pytest.LogCaptureFixture) -> None:
    from pygls.exceptions import JsonRpcException

    from loreline_lsp.server import answer

    async def failing() -> None:
        raise OSError(36, "File name too long\nsecond line")

    with pytest.raises(JsonRpcException) as caught:
        asyncio.run(answer("loreline/status", failing()))
    assert caught.value.code == -32803 and caught.value.data is None
    assert caught.value.message == "loreline/status failed: OSError: [Errno 36] File name too long second line"
    assert any(r.exc_info and "Traceback" not in r.getMessage() for r in caplog.records)
    assert "File name too long" in caplog.text and "Traceback" in caplog.text


def test_status_is_computed_again_only_when_what_it_reads_changed(repo: Path, loreline_home: Path) -> None:
    cache = StatusCache()
    with Service.open() as svc, Loreline() as other:
        first = cache.get(svc)
        assert cache.get(svc) == first and cache.computed == 1
        cache.forget()  # as after loreline/setApiKey
        cache.get(svc)
        assert cache.computed == 2
        config = loreline_home / "config.toml"
        config.write_text("[distill]\nbackend = 'rules'\n")
        backend = str(cache.get(svc).backend)
        assert backend.startswith("rules (offline") and "by config" in backend and cache.computed == 3
        other.pin(1)  # a commit by another connection
        cache.get(svc)
        assert cache.computed == 4
        cache.get(svc)
        assert cache.computed == 4


def test_the_documented_limits_are_the_ones_enforced() -> None:
    from tests.test_lsp import PROTOCOL_DOC

    table = PROTOCOL_DOC.read_text(encoding="utf-8").split("## Limits", 1)[1].split("\n## ", 1)[0]
    for value in (limits.MAX_QUERY, limits.MAX_TEXT, limits.MAX_PATH, limits.MAX_PATHS, limits.MAX_PAGE, limits.MAX_KEY):
        assert f"{value:,}" in table
    assert f"{limits.MAX_DOCUMENT // 2**20} MiB" in table and f"{limits.MAX_MESSAGE // 2**20} MiB" in table


def test_a_message_over_the_size_limit_is_dropped_and_answered_with_id_null(raw: RawServer, repo: Path) -> None:
    raw.initialize(repo)
    padding = b" " * limits.MAX_MESSAGE
    raw.send_bytes(b'{"jsonrpc": "2.0", "id": "big", "method": "loreline/memories", "params": {}}' + padding)
    answer = raw.call("loreline/memories", {})
    assert answer["result"]["total"] == 3
    nulls = [m for m in raw.received if "method" not in m and m.get("id") is None]
    assert len(nulls) == 1 and "limit" in assert_one_line_error(nulls[0], "InvalidRequest")
    assert not raw.responses("big")
