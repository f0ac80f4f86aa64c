"""The sandbox the real-client scenarios run in, and the few verbs they use.

A `Sandbox` is one throwaway world: its own HOME (Claude Code's `~/.claude`, `~/.claude.json`),
CODEX_HOME, LORELINE_HOME (with `distill.backend = "rules"`: no key is configured for
Loreline, so the offline rules distiller decides what is kept) and a fresh git repository
the sessions work in. Every CLI invocation gets an environment built from nothing (no
variable of the test process leaks in) and runs beside a fresh `fake_models` server, both
inside one `unshare -n` network namespace when the machine allows it (only loopback exists
there, so nothing can leave the machine); otherwise side by side on the host's loopback, with
proxies pointing at a closed port (see `Isolation`).

Each run keeps its own folder under `runs/` (requests the fake model received, stdout,
stderr, result), so a failing assertion can name the files to read.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from filelock import FileLock
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.conftest import ROOT, loreline_exe
from tests.e2e_real.fake_models import Replies, read_log

FAKE_MODELS = Path(__file__).with_name("fake_models.py")
INSTALL_SCRIPT = ROOT / "scripts" / "install-real-clients"
CLAUDE_KEY = "sk-ant-test-fake-e2e"
CODEX_KEY = "sk-fake-test-e2e"
GEMINI_KEY = "fake-gemini-key-e2e"
#: what keeps Claude Code from calling home in -p mode (telemetry, error reports, updates)
CLAUDE_QUIET = {"DISABLE_TELEMETRY": "1", "DISABLE_ERROR_REPORTING": "1",
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1"}
DEAD_PROXY = "http://127.0.0.1:9"


class ClientsUnavailable(Exception):
    """The pinned CLIs could not be installed (npm missing, offline registry, bad package)."""


@dataclass(frozen=True)
class Clients:
    claude: Path
    codex: Path
    versions: dict[str, str]
    gemini: Path | None = None


def install_clients() -> Clients:
    """Run the idempotent installer; the paths and versions it reports."""
    try:
        done = subprocess.run([str(INSTALL_SCRIPT)], capture_output=True, text=True, timeout=900)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise ClientsUnavailable(f"{INSTALL_SCRIPT.name} could not run: {err}") from None
    if done.returncode != 0:
        raise ClientsUnavailable(done.stderr.strip() or f"{INSTALL_SCRIPT.name} exited {done.returncode}")
    found: dict[str, tuple[str, Path]] = {}
    for line in done.stdout.splitlines():
        name, version, binary = line.split(" ", 2)
        found[name] = (version, Path(binary))
    if not {"claude", "codex", "gemini"} <= set(found):
        raise ClientsUnavailable(f"{INSTALL_SCRIPT.name} reported {sorted(found)}, not claude, codex and gemini")
    return Clients(found["claude"][1], found["codex"][1], {k: v[0] for k, v in found.items()}, found["gemini"][1])


@dataclass(frozen=True)
class Isolation:
    """How runs are cut off from the network: a loopback-only namespace, or (fallback) proxies."""

    netns: bool
    reason: str

    @classmethod
    def probe(cls) -> Isolation:
        if os.environ.get("LORELINE_E2E_NO_NETNS", "").strip() not in ("", "0"):
            return cls(False, "LORELINE_E2E_NO_NETNS is set")
        unshare = shutil.which("unshare")
        if unshare is None:
            return cls(False, "`unshare` is not installed (util-linux)")
        done = subprocess.run([unshare, "-n", sys.executable, str(FAKE_MODELS), "--probe"],
                              capture_output=True, text=True, timeout=60)
        if done.returncode != 0:
            return cls(False, f"`unshare -n` failed here ({(done.stderr.strip() or 'no reason given')[:200]}); "
                              "it needs root or unprivileged user namespaces")
        return cls(True, "every run is inside `unshare -n`: a network namespace with only loopback")


@dataclass(repr=False)
class Run:
    """One CLI invocation: what it printed and what the fake model received."""

    name: str
    folder: Path
    rc: int
    seconds: float
    offline: bool
    stdout: str
    stderr: str
    requests: list[dict[str, Any]]

    def __repr__(self) -> str:
        return f"Run({self.name}, rc={self.rc}, {self.folder})"

    def check(self) -> Run:
        assert self.rc == 0, f"{self.name} exited {self.rc}; stderr: {self.stderr[-1500:]} (see {self.folder})"
        return self

    def json(self) -> Any:
        return json.loads(self.stdout)

    def bodies(self, api: str) -> list[str]:
        """Every request body this run sent to `api`, as JSON text."""
        return [json.dumps(r["body"], ensure_ascii=False) for r in self.requests if r["api"] == api]


@dataclass(repr=False)
class Sandbox:
    root: Path
    clients: Clients
    isolation: Isolation
    runs: list[Run] = field(default_factory=list)

    def __repr__(self) -> str:
        return f"Sandbox({self.root})"

    def __post_init__(self) -> None:
        for folder in (self.home, self.codex_home, self.repo, self.root / "runs"):
            folder.mkdir(parents=True, exist_ok=True)
        self.loreline_home.mkdir(mode=0o700, parents=True, exist_ok=True)
        # every session a story drives is a one-prompt `-p` run: background capture takes those here
        # (its rule for short sessions, capture.min_prompts, is tested in tests/test_spend_gate.py)
        (self.loreline_home / "config.toml").write_text('[distill]\nbackend = "rules"\n\n[capture]\nmin_prompts = 1\n',
                                                         encoding="utf-8")
        subprocess.run(["git", "init", "-q", "-b", "main", str(self.repo)], check=True)

    # -- places -------------------------------------------------------------------------

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def codex_home(self) -> Path:
        return self.root / "home" / ".codex"

    @property
    def gemini_home(self) -> Path:
        return self.root / "home" / ".gemini"

    @property
    def loreline_home(self) -> Path:
        return self.root / "loreline"

    @property
    def repo(self) -> Path:
        return self.root / "work" / "shop"

    @property
    def spool(self) -> Path:
        return self.loreline_home / "spool"

    # -- environments -------------------------------------------------------------------

    def base_env(self, **extra: str) -> dict[str, str]:
        """A from-scratch environment: nothing of the test process leaks into a run."""
        node = shutil.which("node")
        path = [str(Path(node).parent)] if node else []
        path += ["/usr/local/bin", "/usr/bin", "/bin"]
        env = {"PATH": os.pathsep.join(dict.fromkeys(path)), "HOME": str(self.home), "LANG": "C.UTF-8",
               "TERM": "dumb", "LORELINE_HOME": str(self.loreline_home), "CODEX_HOME": str(self.codex_home),
               "TMPDIR": str(self.root / "tmp"),
               # the rules store what they find active (see tests/conftest.py)
               "LORELINE_RULES_SUGGEST": "0",
               # Loreline from this tree, whichever tree the installed console script points at
               "PYTHONPATH": os.pathsep.join(str(ROOT / part) for part in ("engine", "lsp", "hooks")),
               # a warm recall process a hook starts leaves a minute after the last prompt
               "LORELINE_WARM_IDLE_SECONDS": "60"}
        (self.root / "tmp").mkdir(exist_ok=True)
        if os.environ.get("PYTHONPATH"):  # the Loreline sources under test, when not the installed ones
            env["PYTHONPATH"] = os.environ["PYTHONPATH"]
        if not self.isolation.netns:
            env.update({"HTTP_PROXY": DEAD_PROXY, "HTTPS_PROXY": DEAD_PROXY, "http_proxy": DEAD_PROXY,
                        "https_proxy": DEAD_PROXY, "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"})
        env.update(extra)
        return env

    def loreline_env(self) -> dict[str, str]:
        # a test never reaches a desktop keyring (rules backend needs no key anyway)
        return self.base_env(PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring")

    # -- running things -----------------------------------------------------------------

    def loreline(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        done = subprocess.run([loreline_exe(), *args], capture_output=True, text=True, cwd=self.repo,
                              env=self.loreline_env(), timeout=180)
        if check:
            assert done.returncode == 0, f"loreline {' '.join(args)} exited {done.returncode}: {done.stderr.strip()}"
        return done

    def warm(self, *, start: bool) -> bool:
        """Whether the warm recall process answers for this sandbox's home (after starting it and
        waiting up to a minute, with `start`)."""
        from loreline_hooks.bench import warm_up

        return warm_up(self.loreline_env(), 60, start=start)

    def loreline_json(self, *args: str) -> Any:
        return json.loads(self.loreline(*args, "--json").stdout)

    def memories(self) -> list[dict[str, Any]]:
        return list(self.loreline_json("memories", "--project", str(self.repo)))

    def drain(self) -> dict[str, Any] | None:
        """Wait for any running worker, then run the due jobs ourselves."""
        out = self.loreline("worker", "--drain", "--wait", "120", "--json").stdout.strip()
        return json.loads(out) if out else None

    def run_client(self, name: str, argv: list[str], env: dict[str, str], replies: Replies,
                   timeout: float = 120.0, answers: Path | None = None) -> Run:
        """Run one CLI invocation beside a fresh fake model server (see the module docstring); with
        `answers`, a set of recorded answers, the server answers the gemini backend's requests from it."""
        folder = self.root / "runs" / f"{len(self.runs) + 1:02d}-{name}"
        folder.mkdir()
        replies.dump(folder / "replies.json")
        runner = [sys.executable, str(FAKE_MODELS), "--log", str(folder / "requests.jsonl"),
                  "--replies", str(folder / "replies.json"), "--result", str(folder / "result.json"),
                  "--stdout", str(folder / "stdout"), "--stderr", str(folder / "stderr"),
                  "--cwd", str(self.repo), "--timeout", str(timeout)]
        if answers is not None:
            runner += ["--answers", str(answers)]
        if self.isolation.netns:
            runner = [shutil.which("unshare") or "unshare", "-n", *runner, "--lo-up"]
        for key in [k for k, v in env.items() if "{port}" in v]:
            runner += ["--setenv", f"{key}={env.pop(key)}"]
        subprocess.run([*runner, "--", *argv], env=env, check=True, timeout=timeout + 60)
        result = json.loads((folder / "result.json").read_text(encoding="utf-8"))
        run = Run(name, folder, int(result["rc"]), float(result["seconds"]), bool(result["offline"]),
                  (folder / "stdout").read_text(encoding="utf-8", errors="replace"),
                  (folder / "stderr").read_text(encoding="utf-8", errors="replace"), read_log(folder / "requests.jsonl"))
        self.runs.append(run)
        return run

    def claude(self, name: str, args: list[str], replies: Replies, **extra: str) -> Run:
        env = self.base_env(ANTHROPIC_BASE_URL="http://127.0.0.1:{port}", ANTHROPIC_API_KEY=CLAUDE_KEY,
                            **CLAUDE_QUIET, **extra)
        return self.run_client(name, [str(self.clients.claude), *args], env, replies)

    def codex(self, name: str, args: list[str], replies: Replies, **extra: str) -> Run:
        base_url = '-c', 'model_providers.fake.base_url="http://127.0.0.1:{port}/v1"'
        env = self.base_env(FAKE_OPENAI_KEY=CODEX_KEY, **extra)
        return self.run_client(name, [str(self.clients.codex), args[0], *base_url, *args[1:]], env, replies)

    def gemini(self, name: str, args: list[str], replies: Replies, **extra: str) -> Run:
        """`gemini` headless against the fake Gemini API (`GOOGLE_GEMINI_BASE_URL`); the model is
        named, so the CLI's routing classifier (another model call) is not consulted."""
        assert self.clients.gemini is not None
        env = self.base_env(GEMINI_API_KEY=GEMINI_KEY, GOOGLE_GEMINI_BASE_URL="http://127.0.0.1:{port}",
                            GEMINI_CLI_TRUST_WORKSPACE="true", **extra)
        return self.run_client(name, [str(self.clients.gemini), "-m", "gemini-2.5-flash", *args], env, replies)

    # -- looking at Loreline's state ----------------------------------------------------

    @contextmanager
    def worker_lock(self) -> Iterator[None]:
        """Hold the worker lock: hooks then start no worker and their spool files stay to be read."""
        with FileLock(str(self.loreline_home / "worker.lock")):
            yield

    def spool_records(self) -> list[dict[str, Any]]:
        if not self.spool.is_dir():
            return []
        names = sorted(p for p in self.spool.iterdir() if p.suffix == ".json" and not p.name.startswith("."))
        return [json.loads(p.read_text(encoding="utf-8")) for p in names]

    def rows(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """Read the store read-only with the standard library, as an outside observer."""
        db = self.loreline_home / "loreline.db"
        if not db.exists():
            return []
        conn = sqlite3.connect(db.as_uri() + "?mode=ro", uri=True, timeout=10)
        try:
            return conn.execute(sql, params).fetchall()
        finally:
            conn.close()

    def jobs(self) -> list[dict[str, Any]]:
        cols = ("id", "session_key", "session_id", "tool", "event", "state", "attempts", "last_error", "payload")
        found = self.rows(f"SELECT {', '.join(cols)} FROM jobs ORDER BY id")
        return [dict(zip(cols, row)) | {"payload": json.loads(row[-1] or "{}")} for row in found]


@asynccontextmanager
async def language_server(box: Sandbox) -> AsyncIterator[LanguageClient]:
    """`loreline lsp` on the sandbox's store, initialized with the repository as its workspace."""
    config = ClientServerConfig(server_command=[loreline_exe(), "lsp"], server_env=box.loreline_env())
    client: LanguageClient = await config.start()  # type: ignore[assignment]
    await client.initialize_session(types.InitializeParams(
        capabilities=types.ClientCapabilities(),
        workspace_folders=[types.WorkspaceFolder(uri=box.repo.as_uri(), name=box.repo.name)],
        initialization_options={"backgroundWorker": False}))
    try:
        yield client
    finally:
        await client.shutdown_session()


async def hover_text(client: LanguageClient, path: Path, line: int, character: int) -> str | None:
    found = await client.text_document_hover_async(types.HoverParams(
        types.TextDocumentIdentifier(path.as_uri()), types.Position(line=line, character=character)))
    if found is None:
        return None
    contents = found.contents
    return contents.value if isinstance(contents, types.MarkupContent) else str(contents)


def wait_for(check: Callable[[], bool], what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")


def transcript_line(path: Path, number: int) -> dict[str, Any]:
    """Line `number` (1-based, physical) of a JSONL transcript, parsed."""
    with open(path, encoding="utf-8") as handle:
        for index, line in enumerate(handle, 1):
            if index == number:
                return dict(json.loads(line))
    raise AssertionError(f"{path} has fewer than {number} lines")


def normalized(text: str) -> str:
    return " ".join(text.split()).lower()
