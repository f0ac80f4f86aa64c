"""The VS Code client (editor-plugins/vscode), built for real (`npm ci`, `tsc`, `vsce package`):

- its protocol side with `node --test` and vscode-jsonrpc against the real `loreline lsp`;
- the packaged extension in the real VS Code host (code-server 4.100.3, installed outside the
  repository by scripts/install-editor-hosts), driven in Debian's chromium by playwright-core.

Both run on a store filled by a real import of sessions in a real git repository. code-server
runs in its own process group (it forks an extension host and a file watcher), and the whole
group is killed at the end. Outside CI a missing Node, code-server or chromium is a skip with
the reason; under CI=true it is a failure.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import ROOT, loreline_exe, subprocess_env
from tests.editor_helpers import (World, briefed, conflict_elsewhere, held_memories, make_world, missing_host,
                                  pending_conflict)

EXTENSION = ROOT / "editor-plugins" / "vscode"
CODE_SERVER_VERSION = "4.100.3"
CHROMIUM = Path(os.environ.get("LORELINE_CHROMIUM", "/usr/bin/chromium"))
pytestmark = pytest.mark.editor_host


def run(args: list[str], timeout: float = 300, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=EXTENSION, capture_output=True, text=True, timeout=timeout, env=env)


def ok(done: subprocess.CompletedProcess[str], what: str) -> None:
    assert done.returncode == 0, f"{what} failed ({done.returncode}):\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"


@pytest.fixture(scope="module")
def built() -> Path:
    """The extension with its node_modules (npm ci when the lock file changed) and compiled."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        missing_host("Node.js with npm is not on PATH (the VS Code client is built with npm and tsc)")
    stamp = EXTENSION / "node_modules" / ".package-lock.json"
    if not stamp.exists() or stamp.stat().st_mtime < (EXTENSION / "package-lock.json").stat().st_mtime:
        ok(run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"]), "npm ci")
    ok(run([str(EXTENSION / "node_modules" / ".bin" / "tsc"), "-p", "."]), "tsc")
    return EXTENSION


@pytest.fixture
def world(tmp_path: Path, loreline_home: Path) -> World:
    return make_world(tmp_path, loreline_home)


def test_protocol_side_against_the_real_server(built: Path, world: World) -> None:
    env = subprocess_env(world.home, LORELINE_SERVER=loreline_exe(), LORELINE_TEST_REPO=str(world.repo),
                         LORELINE_TEST_EXTRA=str(world.extra), PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring")
    done = run(["node", "--test", "test/protocol.test.js"], timeout=120, env=env)
    ok(done, "node --test test/protocol.test.js")
    assert "# fail 0" in done.stdout and "# pass 13" in done.stdout, done.stdout


def test_the_executable_is_found_along_path_and_with_pathext_on_windows(built: Path) -> None:
    done = run(["node", "--test", "test/executable.test.js"], timeout=60)
    ok(done, "node --test test/executable.test.js")
    assert "# fail 0" in done.stdout and "# pass 5" in done.stdout, done.stdout


def code_server() -> Path:
    cache = Path(os.environ.get("LORELINE_E2E_CACHE") or Path.home() / ".cache" / "loreline-e2e")
    binary = cache / "code-server" / CODE_SERVER_VERSION / "node_modules" / ".bin" / "code-server"
    if not binary.exists():
        missing_host(f"code-server {CODE_SERVER_VERSION} is not installed at {binary}: run scripts/install-editor-hosts")
    if not CHROMIUM.exists():
        missing_host(f"{CHROMIUM} is missing: apt-get install chromium")
    return binary


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def install(binary: Path, vsix: Path, base: Path, env: dict[str, str]) -> None:
    user = base / "user-data" / "User"
    user.mkdir(parents=True)
    (user / "settings.json").write_text(json.dumps({
        "loreline.path": loreline_exe(), "loreline.pollSeconds": 0.2, "loreline.backgroundWorker": False,
        "workbench.startupEditor": "none", "security.workspace.trust.enabled": False,
        "telemetry.telemetryLevel": "off", "extensions.autoCheckUpdates": False, "extensions.autoUpdate": False,
        "workbench.tips.enabled": False, "chat.commandCenter.enabled": False, "window.commandCenter": False,
    }))
    ok(subprocess.run([str(binary), "--user-data-dir", str(base / "user-data"), "--extensions-dir", str(base / "ext"),
                       "--install-extension", str(vsix)], env=env, capture_output=True, text=True, timeout=120),
       "code-server --install-extension")


@pytest.fixture
def workbench(built: Path, world: World) -> Iterator[tuple[str, Path, dict[str, str]]]:
    """code-server with the packaged extension, serving the world's repository; yields its URL."""
    binary = code_server()
    pending_conflict(world)
    held_memories(world)  # the Inbox: 2 held memories and the conflict
    conflict_elsewhere(world)  # the status item counts this project's conflict only ("1 conflict", not 2)
    briefed(world)  # the project brief: a line for each of the 3 active memories
    base = world.tmp / "vscode"
    (base / "home").mkdir(parents=True)
    vsix = base / "loreline.vsix"
    ok(run([str(EXTENSION / "node_modules" / ".bin" / "vsce"), "package", "--skip-license", "--allow-missing-repository", "-o", str(vsix)]),
       "vsce package")
    env = subprocess_env(world.home, HOME=str(base / "home"), PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring",
                         LORELINE_SELFTEST_FILE=str(base / "selftest.json"),
                         LORELINE_SELFTEST_DOC=str(world.repo / "src" / "app.py"))
    install(binary, vsix, base, env)
    port = free_port()
    with (base / "code-server.log").open("w") as log:
        server = subprocess.Popen(
            [str(binary), "--auth", "none", "--bind-addr", f"127.0.0.1:{port}", "--disable-telemetry",
             "--disable-update-check", "--disable-workspace-trust", "--disable-getting-started-override",
             "--user-data-dir", str(base / "user-data"), "--extensions-dir", str(base / "ext"), str(world.repo)],
            env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        wait_healthy(port, server, base)
        yield f"http://127.0.0.1:{port}/?folder={world.repo}", base, env
    finally:
        stop_group(server)


def wait_healthy(port: int, server: subprocess.Popen[bytes], base: Path) -> None:
    for _ in range(120):
        if server.poll() is not None:
            break
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2):
                return
        except OSError:
            time.sleep(0.25)
    raise AssertionError(f"code-server did not come up:\n{(base / 'code-server.log').read_text()[-3000:]}")


def stop_group(server: subprocess.Popen[bytes]) -> None:
    """code-server, its extension host, file watcher and our language server: the whole group."""
    for sig, wait in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(server.pid, sig)
        except ProcessLookupError:
            return
        try:
            server.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            continue
        time.sleep(0.3)  # let the rest of the group go too
    try:
        os.killpg(server.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def run_group(args: list[str], timeout: float, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Run the browser driver in its own process group, so a timeout also ends its chromium."""
    driver = subprocess.Popen(args, cwd=EXTENSION, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, start_new_session=True)
    try:
        out, err = driver.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(driver.pid, signal.SIGKILL)
        out, err = driver.communicate()
        err += f"\n(the driver ran over {timeout} s and was killed)"
    return subprocess.CompletedProcess(args, driver.returncode, out, err)


def test_in_the_real_vscode_host(workbench: tuple[str, Path, dict[str, str]], world: World) -> None:
    url, base, env = workbench
    shots = Path(os.environ.get("LORELINE_E2E_SHOTS") or base / "shots")
    done = run_group(["node", "test/e2e/workbench.js"], timeout=240, env={
        **env, "E2E_URL": url, "E2E_SHOTS": str(shots), "E2E_SELFTEST": str(base / "selftest.json"),
        "LORELINE_CLI": loreline_exe(), "LORELINE_TEST_EXTRA": str(world.extra),
        "LORELINE_TEST_EXTRA2": str(world.extra2)})
    print(done.stdout)  # the steps with their times, shown when something fails
    log = (base / "code-server.log").read_text(errors="replace")[-3000:]
    assert done.returncode == 0 and "PASS" in done.stdout, f"{done.stdout}\n{done.stderr}\n--- code-server.log\n{log}"
    result = json.loads((base / "selftest.json").read_text())
    assert any("In this repo we use pnpm, never npm." in text and "claude-code" in text for text in result["hover"])
    assert result["tree"] == ["Inbox (3)", "Brief · 3 lines", "preference (1)", "decision (1)", "fact (1)"]
    assert len(result["brief"]) == 3 and any(line.startswith("In this repo we use pnpm, never npm. (#")
                                             for line in result["brief"])
    for name in ("tree.png", "brief.png", "provenance.png", "hover.png", "refreshed.png", "stale.png", "stale-actions.png",
                 "confirmed.png", "inbox.png"):
        assert (shots / name).stat().st_size > 10_000, f"{name} looks empty"
