"""A read-only Loreline home (a mounted backup, a locked-down machine) serves every read command;
a command that writes says so in one line and changes nothing.

Tests run as root, which file modes do not stop, so the home is made read-only the way a
backup mount is: `chmod -R a-w` and then a read-only bind mount in a private mount namespace
(`unshare -rm`, `mount --bind` + `remount,ro`), where the kernel refuses every write
(EROFS) whoever asks. The real CLI runs inside that namespace. One more test makes a copy of
the home read-only with `chmod -R a-w` alone and reads it as an unprivileged user (`setpriv`),
for whom the modes bind."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from loreline.samples.builder import ClaudeSession, project_slug
from loreline.store import Store
from tests.conftest import loreline_exe, subprocess_env
from tests.editor_helpers import missing_host

pytestmark = pytest.mark.slow  # every read command in its own CLI process

MOUNT_RO = 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@"'


def _ro_mounts_work(tmp_path: Path) -> bool:
    probe = tmp_path / "probe"
    probe.mkdir()
    if shutil.which("unshare") is None:
        return False
    result = subprocess.run(["unshare", "-rm", "sh", "-c", MOUNT_RO, str(probe), "touch",
                             str(probe / "x")], capture_output=True, timeout=30)
    return result.returncode != 0 and b"Read-only" in result.stderr and not (probe / "x").exists()


def cli(home: Path, *args: str, stdin: str = "", cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([loreline_exe(), *args], capture_output=True, text=True, input=stdin,
                          env=subprocess_env(home), cwd=cwd, timeout=120)


def ro_cli(home: Path, *args: str, stdin: str = "", **env: str) -> subprocess.CompletedProcess[str]:
    """The CLI with `home` mounted read-only for it (and only for it)."""
    return subprocess.run(["unshare", "-rm", "sh", "-c", MOUNT_RO, str(home), loreline_exe(), *args],
                          capture_output=True, text=True, input=stdin, env=subprocess_env(home, **env), timeout=120)


def snapshot(root: Path) -> dict[str, tuple[int, str]]:
    return {str(p.relative_to(root)): (p.stat().st_mode, hashlib.sha256(p.read_bytes()).hexdigest()
                                        if p.is_file() else "")
            for p in sorted(root.rglob("*"))}


def session(tmp_path: Path, name: str, *lines: str) -> Path:
    work = tmp_path / name
    work.mkdir(exist_ok=True)
    chat = ClaudeSession(str(work))
    for line in lines:
        chat.user(line)
    path = chat.write(tmp_path / "claude" / "projects" / project_slug(chat.cwd) / f"{chat.session_id}.jsonl")
    os.utime(path, (time.time() - 3600, time.time() - 3600))
    return path


@pytest.fixture
def populated(tmp_path: Path, loreline_home: Path) -> Path:
    if not _ro_mounts_work(tmp_path):
        missing_host("read-only bind mounts in a private namespace (unshare -rm, mount) are not available")
    session(tmp_path, "shop", "In this repo we use pnpm, never npm.",
            "We'll use Postgres advisory locks because each billing job needs one worker.")
    assert cli(loreline_home, "config", "set", "distill.backend", "rules").returncode == 0
    imported = cli(loreline_home, "import", "sessions", "--claude-dir", str(tmp_path / "claude"))
    assert imported.returncode == 0, imported.stderr
    assert cli(loreline_home, "status").returncode == 0  # leaves the state dir's caches too
    return loreline_home


READS = [
    (("status",), "2 active"),
    (("memories", "--all"), "pnpm"),
    (("show", "1"), "pnpm"),
    (("history", "1"), "pnpm"),
    (("conflicts", "--all"), "No pending conflicts"),
    (("config", "get", "distill.backend"), "rules"),
    (("config", "list"), "distill.backend"),
]


def test_every_read_command_works_on_a_read_only_home(populated: Path, tmp_path: Path) -> None:
    before = snapshot(populated)
    subprocess.run(["chmod", "-R", "a-w", str(populated)], check=True)
    try:
        for args, expected in READS:
            result = ro_cli(populated, *args)
            assert result.returncode == 0 and expected in result.stdout, (args, result.stderr)
        recall = ro_cli(populated, "recall", "pnpm", "--project", str(tmp_path / "shop"))
        assert recall.returncode == 0 and "never npm" in recall.stdout, recall.stderr
        status = json.loads(ro_cli(populated, "status", "--json").stdout)
        assert status["memories"]["active"] == 2
        [path] = (tmp_path / "claude" / "projects").rglob("*.jsonl")
        shown = ro_cli(populated, "transcript", str(path))
        assert shown.returncode == 0 and "pnpm" in shown.stdout
        redacted = ro_cli(populated, "redact", stdin="token ghp_aB3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gI3kM5 ok\n")
        assert redacted.returncode == 0 and redacted.stdout == "token [REDACTED:github-token] ok\n"
        preview = ro_cli(populated, "import", "sessions", "--dry-run", "--claude-dir", str(tmp_path / "claude"))
        assert preview.returncode == 0 and "1 unchanged" in preview.stdout, preview.stderr
    finally:
        subprocess.run(["chmod", "-R", "u+w", str(populated)], check=True)
    after = {name: (mode | 0o200 if name else mode, digest) for name, (mode, digest) in snapshot(populated).items()}
    assert {k: v[1] for k, v in after.items()} == {k: v[1] for k, v in before.items()}


def test_commands_that_write_say_so_in_one_line_and_change_nothing(populated: Path, tmp_path: Path) -> None:
    session(tmp_path, "shop", "The deploy script lives in tools/deploy.sh.")
    before = snapshot(populated)
    writes = [("forget", "1"), ("config", "set", "distill.backend", "rules"),
              ("import", "sessions", "--claude-dir", str(tmp_path / "claude"))]
    for args in writes:
        result = ro_cli(populated, *args)
        assert result.returncode != 0, args
        assert result.stderr.count("\n") == 1 and result.stderr.startswith("loreline: "), (args, result.stderr)
        assert "read-only" in result.stderr.lower() and "Traceback" not in result.stderr, (args, result.stderr)
    assert snapshot(populated) == before


def test_pending_wal_content_is_read(populated: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A writer still has the store open (its -wal and -shm exist): the read-only reader sees
    its committed but not yet checkpointed change."""
    monkeypatch.setenv("LORELINE_HOME", str(populated))
    with Store() as store:
        store.conn.execute("PRAGMA wal_autocheckpoint=0")
        with store.write():
            store.conn.execute("UPDATE memories SET text = 'We use pnpm 9, never npm.' WHERE id = 1")
        assert Path(str(store.path) + "-wal").stat().st_size > 0
        shown = ro_cli(populated, "show", "1")
    assert shown.returncode == 0 and "pnpm 9" in shown.stdout, shown.stderr


def _as_another_user() -> list[str]:
    """The prefix that runs a command as an unprivileged user, for whom `chmod a-w` binds."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        missing_host("running as root without setpriv: no unprivileged user to honour file modes")
    return [str(setpriv), "--reuid=65534", "--regid=65534", "--clear-groups"]


def test_a_home_made_read_only_with_chmod_serves_an_unprivileged_user(populated: Path) -> None:
    """No mount this time: `chmod -R a-w` on a home owned by the user who reads it."""
    prefix = _as_another_user()
    base = Path(tempfile.mkdtemp(prefix="loreline-ro-"))
    home = base / "home"
    try:
        base.chmod(0o711)
        shutil.copytree(populated, home)
        if prefix:
            subprocess.run(["chown", "-R", "65534:65534", str(home)], check=True)
        subprocess.run(["chmod", "-R", "a-w", str(home)], check=True)
        before = snapshot(home)
        env = subprocess_env(home, HOME=str(base))

        def run(*args: str) -> subprocess.CompletedProcess[str]:
            return subprocess.run([*prefix, loreline_exe(), *args], capture_output=True, text=True, env=env,
                                  cwd=base, timeout=120)

        for args, expected in READS:
            result = run(*args)
            assert result.returncode == 0 and expected in result.stdout, (args, result.stderr)
        forget = run("forget", "1")
        assert forget.returncode != 0 and forget.stderr.count("\n") == 1 and "read-only" in forget.stderr
        assert snapshot(home) == before
    finally:
        subprocess.run(["chmod", "-R", "u+w", str(base)], check=False)
        shutil.rmtree(base, ignore_errors=True)


def test_a_read_only_store_that_needs_a_migration_says_so(populated: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A store from an older Loreline (a migration not recorded yet) cannot be upgraded in place."""
    monkeypatch.setenv("LORELINE_HOME", str(populated))
    with Store() as store, store.write():
        store.conn.execute("DELETE FROM migrations WHERE rowid = (SELECT max(rowid) FROM migrations)")
    before = snapshot(populated)
    result = ro_cli(populated, "memories", "--all")
    assert result.returncode != 0 and result.stderr.count("\n") == 1
    assert "read-only" in result.stderr and "older Loreline" in result.stderr
    assert snapshot(populated) == before


def test_connect_with_a_read_only_home_changes_no_settings(populated: Path, tmp_path: Path) -> None:
    settings = tmp_path / "user" / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text('{"model": "opus"}\n')
    result = ro_cli(populated, "connect", "claude-code", HOME=str(tmp_path / "user"))
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert "state folder" in result.stderr and "nothing was changed" in result.stderr
    assert settings.read_text() == '{"model": "opus"}\n' and len(list(settings.parent.iterdir())) == 1
