"""The local viewer on a shared machine: loopback only, a per-run token, Host and Origin
checked, no CORS, a strict Content-Security-Policy, escaped text, read-only on a read-only
store, and changes recorded as "you via viewer" (a real viewer process, raw HTTP)."""

from __future__ import annotations

import socket
from pathlib import Path
from urllib.parse import quote

import psutil
import pytest

from loreline.store import Store
from tests.editor_helpers import World, held_memories, missing_host, session
from tests.test_readonly_home import MOUNT_RO, _ro_mounts_work
from tests.viewer_helpers import Running, start_viewer, viewer, world  # noqa: F401 - fixtures
from loreline import pipeline
from loreline.distill.rules import RulesDistiller

SCRIPT = '<script>alert("owned")</script>'


def _memory_id(text_part: str) -> int:
    with Store() as store:
        return int(store.scalar("SELECT id FROM memories WHERE text LIKE ? ORDER BY id DESC LIMIT 1",
                                (f"%{text_part}%",)))


def test_it_listens_on_loopback_only(viewer: Running) -> None:
    listening = [c.laddr for c in psutil.Process(viewer.proc.pid).net_connections(kind="inet")
                 if c.status == psutil.CONN_LISTEN]
    assert listening and all(addr.ip == "127.0.0.1" for addr in listening), listening
    assert listening[0].port == viewer.port


def test_no_token_or_a_wrong_token_is_refused(viewer: Running) -> None:
    assert viewer.request("GET", "/")[0] == 403
    assert viewer.request("GET", "/?token=" + "x" * len(viewer.token))[0] == 403
    assert viewer.request("GET", "/", headers={"Cookie": f"loreline_view_{viewer.port}=wrong"})[0] == 403
    status, headers, _ = viewer.request("GET", f"/?token={viewer.token}")
    assert status == 303 and headers["location"] == "/"  # the token leaves the address bar
    cookie = headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    assert viewer.request("GET", "/", headers={"Cookie": cookie.split(";")[0]})[0] == 200


def test_a_foreign_host_is_refused_even_with_the_token(viewer: Running) -> None:
    cookie = viewer.cookie()
    for host in ("evil.example", f"evil.example:{viewer.port}", "127.0.0.1:1", f"127.0.0.2:{viewer.port}"):
        assert viewer.request("GET", "/", headers={"Cookie": cookie}, host=host)[0] == 403, host
        assert viewer.request("GET", f"/?token={viewer.token}", host=host)[0] == 403, host
    assert viewer.request("GET", "/", headers={"Cookie": cookie}, host=f"localhost:{viewer.port}")[0] == 200


def test_a_change_from_a_foreign_origin_is_refused_and_changes_nothing(world: World, viewer: Running) -> None:
    cookie = viewer.cookie()
    memory_id = _memory_id("pnpm")
    for origin in ("http://evil.example", "null", f"http://localhost:{viewer.port + 1}", None):
        headers = {"Cookie": cookie, **({"Origin": origin} if origin else {})}
        assert viewer.request("POST", f"/m/{memory_id}/forget", headers=headers)[0] == 403, origin
    cross = {"Cookie": cookie, "Origin": f"http://127.0.0.1:{viewer.port}", "Sec-Fetch-Site": "cross-site"}
    assert viewer.request("POST", f"/m/{memory_id}/forget", headers=cross)[0] == 403
    with Store() as store:
        assert store.scalar("SELECT status FROM memories WHERE id = ?", (memory_id,)) == "active"
    own = {"Cookie": cookie, "Origin": f"http://127.0.0.1:{viewer.port}"}
    status, headers, _ = viewer.request("POST", f"/m/{memory_id}/forget", headers=own)
    assert status == 303
    with Store() as store:
        assert store.scalar("SELECT status FROM memories WHERE id = ?", (memory_id,)) == "forgotten"
        actors = {(str(a), str(v)) for a, v in store.rows("SELECT actor, via FROM audit WHERE memory_id = ?",
                                                          (memory_id,))}
    assert ("user", "viewer") in actors


def test_every_answer_has_a_strict_policy_and_no_cors(viewer: Running) -> None:
    cookie = viewer.cookie()
    for path in ("/", "/inbox", "/conflicts", "/sessions", "/usage", "/static/viewer.js", "/nowhere"):
        status, headers, _ = viewer.request("GET", path, headers={"Cookie": cookie, "Origin": "http://evil.example"})
        csp = headers.get("content-security-policy", "")
        assert "default-src 'none'" in csp and "script-src 'self'" in csp and "frame-ancestors 'none'" in csp, path
        assert "unsafe-inline" not in csp and not any(k.startswith("access-control-") for k in headers), path
    status, headers, _ = viewer.request("OPTIONS", "/", headers={"Cookie": cookie, "Origin": "http://evil.example",
                                                                  "Access-Control-Request-Method": "POST"})
    assert not any(k.startswith("access-control-") for k in headers)


def test_script_in_a_memory_or_a_transcript_is_shown_as_text(world: World, loreline_home: Path) -> None:
    path = session(world.tmp / "sessions" / "xss.jsonl", world.repo,
                   f"In this repo we use pnpm {SCRIPT} and never npm <img src=x onerror=alert(1)>.")
    with Store() as store:
        pipeline.import_sessions(store, [(path, None)], pipeline.Options(distiller=RulesDistiller()))
    memory_id = _memory_id("alert")
    running = start_viewer(loreline_home)
    try:
        cookie = running.cookie()
        pages = [f"/m/{memory_id}", f"/project?key={quote(str(world.repo / 'src'))}",
                 f"/recall?key={quote(str(world.repo / 'src'))}&q=pnpm", "/sessions",
                 f"/session?path={quote(str(path))}"]
        for page in pages:
            status, _, html = running.request("GET", page, headers={"Cookie": cookie})
            assert status == 200, page
            assert "<script>alert" not in html and "<img src=x" not in html, page
        _, _, detail = running.request("GET", f"/m/{memory_id}", headers={"Cookie": cookie})
        # in the memory's text and in the transcript around its source
        assert detail.count("&lt;img src=x onerror=alert(1)&gt;") >= 2, detail
    finally:
        running.stop()


def test_a_read_only_store_shows_no_actions_and_refuses_changes(world: World, loreline_home: Path,
                                                                 tmp_path: Path) -> None:
    """The home mounted read-only for the viewer alone (tests run as root, which modes do not stop)."""
    if not _ro_mounts_work(tmp_path):
        missing_host("read-only bind mounts in a user namespace (unshare -rm) are not available here")
    held_memories(world)
    with Store() as store:
        store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    running = start_viewer(loreline_home, prefix=("unshare", "-rm", "sh", "-c", MOUNT_RO, str(loreline_home)))
    try:
        cookie = running.cookie()
        memory_id = _memory_id("pnpm")
        _, _, html = running.request("GET", f"/m/{memory_id}", headers={"Cookie": cookie})
        assert "read-only" in html and 'action="/m/' not in html
        _, _, inbox = running.request("GET", "/inbox", headers={"Cookie": cookie})
        assert "nomad" in inbox and "/approve" not in inbox
        own = {"Cookie": cookie, "Origin": f"http://127.0.0.1:{running.port}"}
        assert running.request("POST", f"/m/{memory_id}/forget", headers=own)[0] == 409
    finally:
        running.stop()
    with Store() as store:
        assert store.scalar("SELECT status FROM memories WHERE id = ?", (memory_id,)) == "active"


def test_a_busy_port_is_one_clear_line(loreline_home: Path, world: World) -> None:
    import subprocess
    import sys

    from tests.conftest import subprocess_env

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        done = subprocess.run([sys.executable, "-m", "loreline_view", "--no-browser", "--port", str(port)],
                              env=subprocess_env(loreline_home), capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and f"127.0.0.1:{port}" in done.stderr


def test_the_demo_opens_its_store_in_the_viewer(tmp_path: Path) -> None:
    import re
    import subprocess

    from tests.conftest import loreline_exe, subprocess_env

    proc = subprocess.Popen([loreline_exe(), "demo", "--view", "--no-browser"], text=True, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=subprocess_env(tmp_path / "never-used"))
    try:
        assert proc.stdout is not None
        found = None
        for line in proc.stdout:
            found = re.search(r"http://127\.0\.0\.1:(\d+)/\?token=(\S+)", line)
            if found:
                break
        assert found, "no viewer address"
        running = Running(proc, int(found.group(1)), found.group(2))  # type: ignore[arg-type]
        _, _, html = running.request("GET", "/", headers={"Cookie": running.cookie()})
        assert "/home/dev/acme-shop" in html and "/home/dev/acme-billing" in html
    finally:
        proc.terminate()
        proc.wait(30)
    assert not (tmp_path / "never-used").exists()
    with pytest.raises(OSError):  # the viewer ended with the demo
        running.request("GET", "/")
