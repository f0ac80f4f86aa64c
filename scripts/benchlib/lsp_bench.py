"""Language-server timings over stdio against a store of 10,000 memories in one project.

- start to ready: spawning `python -m loreline_lsp` until the `initialize` answer arrives;
- hover p95: hovers over words of an open file that match memories (markdown built each time);
- a 1,000-memory project list: `loreline/memories` with `limit: 1000`.

The client is a plain JSON-RPC reader (Content-Length framing, `json`), like an editor's.
pygls' own client is not used for timing: it turns every JSON object of an answer into a
freshly made namedtuple class, which for a 1,000-item page costs several times what the
server spends.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import IO, Any

from loreline.embed import default_embedder
from loreline.project import project_key

from . import recall_bench
from .registry import Context, Row, median, percentile

MEMORIES = 10_000
HOVERS = 200
PAGES = 10
WORDS = ("pnpm", "OPENSSL_DIR", "ruff", "pytest", "lockfile", "Alpine", "backoff", "migrations")


class RawClient:
    def __init__(self, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "loreline_lsp"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, env=env)
        self.next_id = 0

    def _write(self, message: dict[str, Any]) -> None:
        body = json.dumps(message).encode()
        stdin: IO[bytes] = self.proc.stdin  # type: ignore[assignment]
        stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        stdin.flush()

    def notify(self, method: str, params: Any) -> None:
        self._write({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method: str, params: Any) -> Any:
        self.next_id += 1
        self._write({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        while True:
            message = self._read()
            if message.get("id") == self.next_id and "method" not in message:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result")

    def _read(self) -> dict[str, Any]:
        stdout: IO[bytes] = self.proc.stdout  # type: ignore[assignment]
        length = 0
        while True:
            line = stdout.readline()
            if not line:
                raise RuntimeError("the language server closed its output")
            if line in (b"\r\n", b"\n"):
                break
            name, _, value = line.decode("ascii").partition(":")
            if name.lower() == "content-length":
                length = int(value)
        return json.loads(stdout.read(length))

    def close(self) -> None:
        self.request("shutdown", None)
        self.notify("exit", None)
        self.proc.wait(timeout=10)


def shared_store(ctx: Context) -> tuple[Path, Path]:
    """The home and project folder of the language server bench's store (10,000 memories in the
    project), built once per run and reused by the MCP and viewer benches."""
    project = ctx.work / "lsp-project"
    project.mkdir(parents=True, exist_ok=True)
    home = ctx.work / "lsp-home"
    return (home if (home / "loreline.db").exists() else _store(ctx, project)), project


def _store(ctx: Context, project: Path) -> Path:
    home = ctx.work / "lsp-home"
    home.mkdir(parents=True, exist_ok=True)
    key = project_key(str(project))  # the folder may sit inside a git checkout: use its real key
    items = [replace(s, project=key) for s in recall_bench.specs(MEMORIES, MEMORIES, ctx.seed)]
    embedder = default_embedder()
    with ctx.step(f"building a store of {MEMORIES:,} memories for the language server"):
        vectors = recall_bench.embed_all(embedder, [s.text for s in items])
        recall_bench.build(home / "loreline.db", items, vectors, []).close()
    return home


def _session(home: Path, project: Path, doc: Path) -> dict[str, list[float]]:
    started = time.perf_counter()
    client = RawClient({**os.environ, "LORELINE_HOME": str(home)})
    client.request("initialize", {"processId": os.getpid(), "rootUri": project.as_uri(), "capabilities": {},
                                  "workspaceFolders": [{"uri": project.as_uri(), "name": "bench"}],
                                  "initializationOptions": {"backgroundWorker": False}})
    ready = 1000 * (time.perf_counter() - started)
    client.notify("initialized", {})
    text = doc.read_text(encoding="utf-8")
    client.notify("textDocument/didOpen", {"textDocument": {"uri": doc.as_uri(), "languageId": "python",
                                                            "version": 1, "text": text}})
    hovers = _hovers(client, doc, text)
    pages = []
    for _ in range(PAGES):
        began = time.perf_counter()
        page = client.request("loreline/memories", {"limit": 1000})
        pages.append(1000 * (time.perf_counter() - began))
        assert len(page["items"]) == 1000
    client.close()
    return {"ready": [ready], "hover": hovers, "page": pages}


def _hovers(client: RawClient, doc: Path, text: str) -> list[float]:
    first = text.splitlines()[0]
    spots = [first.index(w) + 1 for w in WORDS]
    out, found = [], 0
    for n in range(HOVERS):
        began = time.perf_counter()
        answer = client.request("textDocument/hover", {"textDocument": {"uri": doc.as_uri()},
                                                       "position": {"line": 0, "character": spots[n % len(spots)]}})
        out.append(1000 * (time.perf_counter() - began))
        found += answer is not None
    assert found > HOVERS // 2, "hover found almost nothing: the bench would not measure real work"
    return out


def lsp_timings(ctx: Context) -> list[Row]:
    home, project = shared_store(ctx)
    doc = project / "app.py"
    doc.write_text("# " + " ".join(WORDS) + "\nprint('hello')\n", encoding="utf-8")
    with ctx.step("timing the language server"):
        runs = [_session(home, project, doc) for _ in range(ctx.runs)]
    ready = median([r["ready"][0] for r in runs])
    hover_p95 = median([percentile(r["hover"], 95) for r in runs])
    hover_p50 = median([median(r["hover"]) for r in runs])
    page = median([median(r["page"]) for r in runs])
    return [
        Row("language server: start to ready", f"{ready:.0f} ms", ready, "ms", "≤ 1.5 s", ready <= 1500, ctx.runs),
        Row("language server: hover p95 (10,000 memories)", f"{hover_p95:.1f} ms (p50 {hover_p50:.1f} ms, "
            f"{HOVERS} hovers)", hover_p95, "ms", "p95 ≤ 30 ms", hover_p95 <= 30, ctx.runs),
        Row("language server: project list of 1,000", f"{page:.1f} ms per page (round trip)", page, "ms",
            "≤ 50 ms", page <= 50, ctx.runs),
    ]
