"""A real PostgreSQL server with pgvector, started by the tests themselves.

The binaries come from the `pgserver` wheel (a PostgreSQL 16 build with pgvector bundled,
installed by the dev extras), else from a system PostgreSQL whose extension folder holds
pgvector. The cluster lives in a fresh temporary folder and listens on a free loopback port
only. PostgreSQL refuses to run as root, so under root (CI containers) the server runs as
the unprivileged `postgres` or `nobody` account.
"""

from __future__ import annotations

import hashlib
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path


class Unavailable(Exception):
    """No PostgreSQL with pgvector on this machine: the message says what to install."""


def find_bindir() -> Path:
    try:
        import pgserver

        bundled = Path(pgserver.__file__).parent / "pginstall" / "bin"
        if (bundled / "postgres").exists():
            return bundled
    except ImportError:
        pass
    pg_config = shutil.which("pg_config")
    if pg_config:
        bindir = Path(subprocess.run([pg_config, "--bindir"], capture_output=True, text=True).stdout.strip())
        share = Path(subprocess.run([pg_config, "--sharedir"], capture_output=True, text=True).stdout.strip())
        if (share / "extension" / "vector.control").exists():
            return bindir
    raise Unavailable("no PostgreSQL with pgvector: install the dev extras (the pgserver wheel bundles both) "
                      "or a system postgresql with its pgvector package; .ci/run does it")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _run_as() -> pwd.struct_passwd | None:
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            return pwd.getpwnam(name)
        except KeyError:
            continue
    raise Unavailable("running as root and no unprivileged account (postgres, nobody) to run PostgreSQL as")


def _reachable_by_others(path: Path) -> bool:
    """Whether every folder above `path` lets other accounts through (o+x)."""
    return all(folder.stat().st_mode & 0o001 for folder in path.resolve().parents)


def _shared_copy(bindir: Path) -> Path:
    """The installation copied where an unprivileged account can run it (a checkout under a
    private folder such as /root), once per installation. The copy keeps the layout around
    it (the wheel's binaries find their libraries at `$ORIGIN/../../../pgserver.libs`)."""
    install = bindir.parent
    top = install.parent.parent  # site-packages for the wheel, the install prefix's parent otherwise
    digest = hashlib.sha256(str(install.resolve()).encode()).hexdigest()[:12]
    target = Path(tempfile.gettempdir()) / f"loreline-pginstall-{digest}"
    copied = target / install.relative_to(top) / "bin"
    if not (copied / "postgres").exists():
        staging = Path(tempfile.mkdtemp(prefix="loreline-pginstall-"))
        shutil.copytree(install, staging / install.relative_to(top), symlinks=True)
        libs = top / "pgserver.libs"
        if libs.is_dir():
            shutil.copytree(libs, staging / "pgserver.libs", symlinks=True)
        os.chmod(staging, 0o755)
        try:
            os.rename(staging, target)
        except OSError:
            shutil.rmtree(staging, ignore_errors=True)  # another session copied it first
    return copied


class PgServer:
    """One throwaway cluster: `start()`, `kill()` (as a crash would), `restart()`, `stop()`."""

    def __init__(self, bindir: Path | None = None, port: int | None = None, password: str | None = None) -> None:
        self.password = password  # None: trust on loopback; else scram-sha-256 with this password
        self.bindir = bindir or find_bindir()
        self.port = port or free_port()
        self.user = _run_as()
        if self.user is not None and not _reachable_by_others(self.bindir):
            self.bindir = _shared_copy(self.bindir)
        self.root = Path(tempfile.mkdtemp(prefix="loreline-pg-"))
        self.data = self.root / "data"
        self.log = self.root / "server.log"
        if self.user is not None:
            os.chown(self.root, self.user.pw_uid, self.user.pw_gid)

    @property
    def dsn(self) -> str:
        return f"postgresql://loreline@127.0.0.1:{self.port}/loreline"

    def _cmd(self, *args: str, check: bool = True, timeout: float = 60) -> subprocess.CompletedProcess[str]:
        user = self.user
        env = {"PATH": os.environ.get("PATH", ""), "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
        if self.password:
            env["PGPASSWORD"] = self.password

        def demote() -> None:
            if user is not None:
                os.setgid(user.pw_gid)
                os.setuid(user.pw_uid)

        return subprocess.run([str(self.bindir / args[0]), *args[1:]], capture_output=True, text=True, env=env,
                              preexec_fn=demote, check=check, timeout=timeout, cwd=self.root)

    def start(self) -> PgServer:
        if not self.data.exists():
            auth = ["--auth=trust"]
            if self.password:
                pwfile = self.root / "pw"
                pwfile.write_text(self.password + "\n")
                if self.user is not None:
                    os.chown(pwfile, self.user.pw_uid, self.user.pw_gid)
                auth = ["--auth=scram-sha-256", f"--pwfile={pwfile}"]
            self._cmd("initdb", "-D", str(self.data), "-U", "loreline", *auth, "-E", "UTF8", "--no-sync")
            (self.root / "pw").unlink(missing_ok=True)
        self._pg_ctl_start()
        self._cmd("createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "loreline", "loreline", check=False)
        return self

    def _pg_ctl_start(self) -> None:
        opts = f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.root} -c fsync=off -c max_connections=200"
        done = self._cmd("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-o", opts, "-w", "-t", "60",
                         "start", check=False)
        if done.returncode != 0:
            log = self.log.read_text(errors="replace")[-2000:] if self.log.exists() else ""
            raise Unavailable(f"PostgreSQL did not start: {done.stderr.strip()} {log}")

    def pid(self) -> int | None:
        pidfile = self.data / "postmaster.pid"
        try:
            return int(pidfile.read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None

    def kill(self) -> None:
        """Stop the server the hard way (SIGKILL the postmaster and its children), as a crash would."""
        pid = self.pid()
        if pid is None:
            return
        subprocess.run(["pkill", "-KILL", "-P", str(pid)], check=False)
        os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.05)

    def restart(self) -> None:
        self._pg_ctl_start()

    def stop(self) -> None:
        if self.pid() is not None:
            self._cmd("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop", check=False)
        shutil.rmtree(self.root, ignore_errors=True)
