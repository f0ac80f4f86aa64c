"""`loreline team …`, `loreline status`, recall and the SessionStart block with a team server,
in subprocesses against real stores and a real PostgreSQL + pgvector server."""

from __future__ import annotations

import json
import subprocess
import os
import shutil
import time
from pathlib import Path

import pytest

from loreline.capture.worker import Worker
from loreline.distill.rules import RulesDistiller
from loreline.store import Store
from tests.conftest import hook_exe, loreline_exe, subprocess_env
from tests.pg_server import PgServer, Unavailable
from tests.team_fixtures import _unavailable, pg, team_dsn  # noqa: F401
from tests.team_helpers import import_said, make_repo, memory_id, server_text

pytestmark = pytest.mark.slow  # a real PostgreSQL + pgvector server and many CLI processes

LOCKS = "We decided to use advisory locks for billing jobs because each job needs exactly one worker."
PRIVATE = "We decided to keep the quarterly numbers in a private sheet because finance asked for it."


def cli(home: Path, *args: str, cwd: Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([loreline_exe(), *args], capture_output=True, text=True, env=subprocess_env(home),
                          cwd=cwd, timeout=60)
    if check:
        assert done.returncode == 0, done.stderr
    return done


def _machine(tmp_path: Path, name: str, remote: str, sentences: list[str]) -> tuple[Path, Path]:
    home = tmp_path / f"{name}-home"
    project = Path(make_repo(tmp_path / name / "billing", remote))
    old = os.environ.get("LORELINE_HOME")  # the machine's own home while its session is imported
    os.environ["LORELINE_HOME"] = str(home)
    try:
        with Store() as local:
            if sentences:
                import_said(local, str(project), sentences, tmp_path, name)
    finally:
        os.environ["LORELINE_HOME"] = old or ""
    return home, project


def test_connect_share_sync_status_recall_and_injection(tmp_path: Path, team_dsn: str) -> None:
    ana_home, ana_dir = _machine(tmp_path, "ana", "git@github.com:acme/billing.git", [LOCKS, PRIVATE])
    raj_home, raj_dir = _machine(tmp_path, "raj", "https://github.com/acme/billing.git", [])

    refused = cli(ana_home, "team", "connect", team_dsn.replace("loreline@", "loreline:pw@"), cwd=ana_dir,
                  check=False)
    assert refused.returncode == 1 and refused.stderr.count("\n") == 1 and "holds a password" in refused.stderr

    in_file = cli(ana_home, "config", "set", "team.dsn", team_dsn.replace("loreline@", "loreline:pw@"), cwd=ana_dir,
                  check=False)
    assert in_file.returncode == 2 and "holds a password" in in_file.stderr
    assert not any("loreline:pw@" in p.read_text() for p in ana_home.rglob("*.toml"))
    cli(ana_home, "config", "set", "team.author", "ana", cwd=ana_dir)
    first = cli(ana_home, "team", "connect", team_dsn, cwd=ana_dir)
    assert "published 0" in first.stdout  # nothing approved yet
    ids = _ids(ana_home, ana_dir)
    cli(ana_home, "team", "share", str(ids[LOCKS]), cwd=ana_dir)
    assert "published 1" in cli(ana_home, "team", "sync", cwd=ana_dir).stdout
    assert PRIVATE not in server_text(team_dsn)
    config_text = (ana_home / "config.toml").read_text() if (ana_home / "config.toml").exists() else \
        "".join(p.read_text() for p in ana_home.rglob("*.toml"))
    assert team_dsn in config_text

    got = cli(raj_home, "team", "connect", team_dsn, cwd=raj_dir)
    assert "received 1 (1 added)" in got.stdout
    status = json.loads(cli(raj_home, "team", "status", "--json", cwd=raj_dir).stdout)
    assert status["reachable"] is True and status["received"] == 1
    assert status["projects"][0]["remote"] == "github.com/acme/billing" and status["projects"][0]["behind"] == 0
    assert "team: " in cli(raj_home, "status", cwd=raj_dir).stdout

    recalled = cli(raj_home, "recall", "advisory locks billing", cwd=raj_dir).stdout
    assert LOCKS[:40] in recalled and "(team:" in recalled and "shared by" in recalled
    team_recalled = cli(raj_home, "team", "recall", "advisory locks", cwd=raj_dir).stdout
    assert LOCKS in team_recalled and team_recalled.strip().endswith("— " + _author(ana_home, ana_dir))

    hook = subprocess.run([hook_exe()], input=json.dumps(
        {"hook_event_name": "SessionStart", "session_id": "abc12345-0000", "cwd": str(raj_dir), "source": "startup"}),
        capture_output=True, text=True, env=subprocess_env(raj_home), cwd=raj_dir, timeout=30)
    block = json.loads(hook.stdout)["hookSpecificOutput"]["additionalContext"]
    assert LOCKS in block and f"(team: {_author(ana_home, ana_dir)})" in block


def _ids(home: Path, cwd: Path) -> dict[str, int]:
    listing = json.loads(cli(home, "memories", "--json", cwd=cwd).stdout)
    items = listing["memories"] if isinstance(listing, dict) else listing
    return {m["text"]: int(m["id"]) for m in items}


def _author(home: Path, cwd: Path) -> str:
    return str(json.loads(cli(home, "team", "status", "--json", cwd=cwd).stdout)["author"])


def test_a_server_that_is_down_is_one_line_and_capture_goes_on(tmp_path: Path) -> None:
    home, project = _machine(tmp_path, "ana", "git@github.com:acme/billing.git", [LOCKS])
    cli(home, "config", "set", "team.dsn", "postgresql://ana@127.0.0.1:1/loreline", cwd=project)
    done = cli(home, "team", "sync", cwd=project, check=False)
    assert done.returncode == 1 and done.stderr.count("\n") == 1
    assert "cannot reach the team server" in done.stderr and "local memories are untouched" in done.stderr
    assert LOCKS[:30] in cli(home, "recall", "advisory locks", cwd=project).stdout


def test_the_worker_syncs_in_the_background(tmp_path: Path, team_dsn: str, loreline_home: Path) -> None:
    project = make_repo(tmp_path / "billing", "git@github.com:acme/billing.git")
    with Store() as store:
        import_said(store, project, [LOCKS], tmp_path, "s1")
        with store.write():
            from loreline.store import teamsync

            teamsync.share(store, memory_id(store, LOCKS))
    from loreline import config

    config.set_value("team.dsn", team_dsn)
    report = Worker(distiller=RulesDistiller()).drain()
    assert report is not None and report.team is not None and "published 1" in report.team
    assert LOCKS in server_text(team_dsn)
    again = Worker(distiller=RulesDistiller()).drain()
    assert again is not None and again.team is None  # not due again before team.sync_seconds


def test_without_a_keyring_connect_names_the_password_not_the_api_key(tmp_path: Path, team_dsn: str) -> None:
    home, project = _machine(tmp_path, "ana", "git@github.com:acme/billing.git", [])
    done = subprocess.run([loreline_exe(), "team", "connect", team_dsn, "--password-stdin"], input="hunter2\n",
                          capture_output=True, text=True, cwd=project, timeout=60,
                          env=subprocess_env(home, PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring"))
    assert done.returncode == 1 and done.stderr.count("\n") == 1
    assert "the team server's password" in done.stderr and "PGPASSWORD" in done.stderr
    assert "ANTHROPIC_API_KEY" not in done.stderr and "hunter2" not in done.stderr
    assert not (home / "config.toml").exists()  # nothing recorded


PASSWORD = "Tr0ub4dor-and-3-horses"
NEEDS = ("dbus-run-session", "gnome-keyring-daemon", "secret-tool")


def test_the_password_lives_in_the_os_keyring_and_nowhere_else(tmp_path: Path) -> None:
    missing = [tool for tool in NEEDS if shutil.which(tool) is None]
    if missing:
        _unavailable(f"the keyring test needs {', '.join(missing)} (apt-get install gnome-keyring dbus "
                     "libsecret-tools; .ci/run does it)")
    try:
        server = PgServer(password=PASSWORD).start()
    except Unavailable as err:
        _unavailable(str(err))
        return
    try:
        home, project = _machine(tmp_path, "ana", "git@github.com:acme/billing.git", [LOCKS])
        user_home = tmp_path / "user-home"
        user_home.mkdir()
        exe = loreline_exe()
        script = (
            "printf pass | gnome-keyring-daemon --unlock --components=secrets >/dev/null || exit 90\n"
            f"'{exe}' team connect '{server.dsn}' --password-stdin || exit 91\n"
            f"'{exe}' team sync || exit 92\n"
            "secret-tool lookup service loreline username 'team:" + server.dsn + "' | wc -c\n"
        )
        env = subprocess_env(home, HOME=str(user_home))
        for name in ("PYTHON_KEYRING_BACKEND", "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR", "PGPASSWORD"):
            env.pop(name, None)
        done = subprocess.run(["dbus-run-session", "--", "sh", "-c", script], input=PASSWORD + "\n", cwd=project,
                              capture_output=True, text=True, timeout=120, env=env)
        assert done.returncode == 0, (done.returncode, done.stdout, done.stderr)
        assert "Password kept in the OS keyring" in done.stdout and "team sync:" in done.stdout
        assert done.stdout.strip().splitlines()[-1].strip() == str(len(PASSWORD))
        for root in (home, user_home, project):
            leaks = [p for p in root.rglob("*") if p.is_file() and PASSWORD.encode() in p.read_bytes()]
            assert leaks == [], leaks  # the keyring file is encrypted: not even there in clear
        without = cli(home, "team", "sync", cwd=project, check=False)  # no keyring here: libpq asks in vain
        assert without.returncode == 1 and without.stderr.count("\n") == 1 and PASSWORD not in without.stderr
    finally:
        server.stop()


def _cursor(home: Path) -> int:
    os.environ["LORELINE_HOME"], old = str(home), os.environ["LORELINE_HOME"]
    try:
        with Store() as store:
            return int(store.scalar("SELECT coalesce(max(pulled), 0) FROM team_cursors") or 0)
    finally:
        os.environ["LORELINE_HOME"] = old


def test_a_sync_killed_mid_pull_resumes_where_it_stopped(tmp_path: Path, team_dsn: str) -> None:
    said = [f"We decided to use library lib{i} for task {i} because it is the fastest one." for i in range(1500)]
    ana_home, ana_dir = _machine(tmp_path, "ana", "git@github.com:acme/billing.git", said)
    cli(ana_home, "config", "set", "team.share", "all", cwd=ana_dir)
    cli(ana_home, "team", "connect", team_dsn, cwd=ana_dir)
    for attempt in range(10):  # a fresh machine each time; kill as soon as the pull has begun to land
        raj_home, raj_dir = _machine(tmp_path, f"raj{attempt}", "https://github.com/acme/billing", [])
        cli(raj_home, "config", "set", "team.dsn", team_dsn, cwd=raj_dir)
        proc = subprocess.Popen([loreline_exe(), "team", "sync"], env=subprocess_env(raj_home), cwd=raj_dir,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while proc.poll() is None and time.monotonic() < deadline and _cursor(raj_home) == 0:
            time.sleep(0.005)
        proc.kill()  # SIGKILL: no cleanup, as a crash or a closed laptop would
        proc.wait()
        partial = _cursor(raj_home)
        if 0 < partial < 1500:
            break
    else:
        pytest.fail("no kill landed mid-pull in 10 attempts")
    done = cli(raj_home, "team", "sync", cwd=raj_dir)
    received = int(done.stdout.split("received ")[1].split(" ")[0])
    assert received == 1500 - partial  # resumed after the last finished batch, nothing re-read
    os.environ["LORELINE_HOME"], old = str(raj_home), os.environ["LORELINE_HOME"]
    try:
        with Store() as store:
            texts = [r[0] for r in store.rows("SELECT text FROM memories WHERE status = 'active'")]
    finally:
        os.environ["LORELINE_HOME"] = old
    assert sorted(texts) == sorted(said)  # every memory exactly once


def test_the_worker_goes_on_when_the_team_server_is_down(tmp_path: Path, loreline_home: Path) -> None:
    from loreline import config

    config.set_value("team.dsn", "postgresql://ana@127.0.0.1:1/loreline")
    report = Worker(distiller=RulesDistiller()).drain()
    assert report is not None and report.team is not None
    assert report.team.startswith("team sync: cannot reach the team server")
    with Store() as store:
        assert "cannot reach" in (store.meta("team.last_error") or "")
