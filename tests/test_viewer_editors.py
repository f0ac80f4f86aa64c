"""An editor opens a memory's page in the local viewer: the language server starts the viewer
on first use and answers `loreline/viewer` with a working address (real server over stdio, real
viewer process, plain HTTP)."""

from __future__ import annotations

import http.client
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from loreline.store import Store
from tests.editor_helpers import World
from tests.lsp_raw import RawServer
from tests.test_lsp_robust import server_env
from tests.viewer_helpers import world  # noqa: F401 - a fixture

pytestmark = pytest.mark.slow


def _get(url: str, cookie: str = "") -> tuple[int, dict[str, str], str]:
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    conn.request("GET", parts.path + (f"?{parts.query}" if parts.query else ""),
                 headers={"Cookie": cookie} if cookie else {})
    answer = conn.getresponse()
    body = answer.read().decode()
    headers = {k.lower(): v for k, v in answer.getheaders()}
    conn.close()
    return answer.status, headers, body


def test_the_language_server_gives_a_working_address_of_a_memory_s_page(world: World, loreline_home: Path,
                                                                       tmp_path: Path) -> None:
    with Store() as store:
        memory_id = int(store.scalar("SELECT id FROM memories WHERE text LIKE '%pnpm%'"))
    server = RawServer(server_env(loreline_home), tmp_path / "server.log")
    try:
        server.initialize(world.repo)
        url = server.call("loreline/viewer", {"id": memory_id}, timeout=60)["result"]["url"]
        parts = urlsplit(url)
        assert parts.hostname == "127.0.0.1" and parts.path == f"/m/{memory_id}" and parts.query.startswith("token=")
        status, headers, _ = _get(url)
        assert status == 303 and headers["location"] == f"/m/{memory_id}"
        status, _, page = _get(f"http://127.0.0.1:{parts.port}/m/{memory_id}", headers["set-cookie"].split(";")[0])
        assert status == 200 and "In this repo we use pnpm, never npm." in page
        again = server.call("loreline/viewer", {"id": memory_id})["result"]["url"]
        assert urlsplit(again).port == parts.port  # one viewer per server
        missing = server.call("loreline/viewer", {"id": 999999})
        assert "error" in missing
        assert _get(f"http://127.0.0.1:{parts.port}/m/{memory_id}")[0] == 403  # still needs the token
    finally:
        server.close()
    with pytest.raises(OSError):
        _get(f"http://127.0.0.1:{parts.port}/")  # the viewer left with the server
