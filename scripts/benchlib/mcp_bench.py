"""MCP server timings over stdio against a store of 10,000 memories in one project.

- start to `initialize` answered: spawning `loreline mcp` (as clients do) until the answer;
- a `recall` round trip: `tools/call` with a query that matches memories, answered;
- the size of a typical `recall` result (5 memories), in characters and estimated tokens.

The client is a plain JSON-RPC reader (newline-delimited JSON, MCP's stdio framing).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import IO, Any

from . import lsp_bench
from .registry import Context, Row, median

CALLS = 50
QUERIES = ("pnpm lockfile", "OPENSSL_DIR on macOS", "ruff and pytest", "migrations backoff", "Alpine images")


class McpClient:
    def __init__(self, env: dict[str, str], cwd: Path) -> None:
        exe = shutil.which("loreline", path=str(Path(sys.executable).parent)) or "loreline"
        self.proc = subprocess.Popen([exe, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, env=env, cwd=cwd)
        self.next_id = 0

    def send(self, message: dict[str, Any]) -> None:
        stdin: IO[bytes] = self.proc.stdin  # type: ignore[assignment]
        stdin.write(json.dumps(message).encode() + b"\n")
        stdin.flush()

    def request(self, method: str, params: Any) -> Any:
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        stdout: IO[bytes] = self.proc.stdout  # type: ignore[assignment]
        while True:
            line = stdout.readline()
            if not line:
                raise RuntimeError("the MCP server closed its output")
            message = json.loads(line)
            if message.get("id") == self.next_id and "method" not in message:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result")

    def close(self) -> None:
        self.proc.stdin.close()  # type: ignore[union-attr]
        self.proc.wait(timeout=10)


def _session(home: Path, project: Path) -> dict[str, list[float]]:
    started = time.perf_counter()
    client = McpClient({**os.environ, "LORELINE_HOME": str(home)}, project)
    client.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                  "clientInfo": {"name": "bench", "version": "1"}})
    ready = 1000 * (time.perf_counter() - started)
    client.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    trips, sizes = [], []
    for n in range(CALLS):
        began = time.perf_counter()
        result = client.request("tools/call", {"name": "recall", "arguments": {"query": QUERIES[n % len(QUERIES)]}})
        trips.append(1000 * (time.perf_counter() - began))
        text = "".join(block.get("text", "") for block in result["content"])
        assert not result.get("isError") and text.startswith("#"), text[:200]
        sizes.append(len(text))
    client.close()
    return {"ready": [ready], "trip": trips, "size": [float(s) for s in sizes]}


def mcp_timings(ctx: Context) -> list[Row]:
    home, project = lsp_bench.shared_store(ctx)
    with ctx.step("timing the MCP server"):
        runs = [_session(home, project) for _ in range(ctx.runs)]
    ready = median([r["ready"][0] for r in runs])
    trip = median([median(r["trip"]) for r in runs])
    chars = median([median(r["size"]) for r in runs])
    return [
        Row("MCP server: start to initialize answered", f"{ready:.0f} ms (`loreline mcp`)", ready, "ms",
            "≤ 5 s (Codex waits 10 s, Claude Code 30 s)", ready <= 5000, ctx.runs),
        Row("MCP server: recall round trip (10,000 memories)", f"{trip:.1f} ms median ({CALLS} calls)", trip, "ms",
            "—", None, ctx.runs),
        Row("MCP server: a recall result (5 memories)", f"{chars:.0f} characters, about {chars / 4:.0f} tokens",
            chars, "chars", "—", None, ctx.runs),
    ]
