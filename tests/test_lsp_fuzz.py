"""Random and mutated JSON-RPC messages against the real language server over stdio.

Every method the server registers (standard and `loreline/*`, requests and notifications, as
requests and as notifications), plus garbage bodies, wrong ids, huge strings, deep nesting,
invalid UTF-8 and lone surrogates. The claim checked: each request is answered exactly once
(a request whose id cannot be read, and a body that is not a JSON object, once with id null),
every error is one line without a traceback, and the server still answers a well-formed
request at the end. Seeded and bounded: a few hundred messages in a few seconds.

`exit` (which ends the process by design) and `shutdown` (after which requests are refused by
design) are left out of the storm; tests/test_lsp_robust.py covers both.
"""

from __future__ import annotations

import json
import os
import random
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from loreline_lsp.server import server as registered
from tests.lsp_raw import ERROR_CODES, RawServer
from tests.test_lsp import fill, import_paths, make_repo

pytestmark = pytest.mark.slow  # thousands of fuzzed messages against the real language server

SEED = 1414
MESSAGES = 400
LEFT_OUT = {"exit", "shutdown"}
ALLOWED_ERRORS = {ERROR_CODES[name] for name in ("ParseError", "InvalidRequest", "MethodNotFound", "InvalidParams",
                                                  "RequestFailed", "RequestCancelled",
                                                  "ServerNotInitialized")}


def registered_methods() -> list[str]:
    fm = registered.protocol.fm
    return sorted((set(fm.features) | set(fm.builtin_features)) - LEFT_OUT)


def templates(repo: Path, session: Path) -> dict[str, Any]:
    """A well-formed params value per method (mutations start from these)."""
    app = (repo / "src" / "app.py").as_uri()
    doc = {"uri": app}
    return {
        "initialize": {"processId": None, "rootUri": repo.as_uri(), "capabilities": {}},
        "initialized": {},
        "textDocument/hover": {"textDocument": doc, "position": {"line": 0, "character": 22}},
        "textDocument/codeLens": {"textDocument": doc},
        "textDocument/didOpen": {"textDocument": {**doc, "languageId": "python", "version": 1,
                                                  "text": "# install deps with pnpm\n"}},
        "textDocument/didChange": {"textDocument": {**doc, "version": 2}, "contentChanges": [{"text": "pnpm\n"}]},
        "textDocument/didClose": {"textDocument": doc},
        "notebookDocument/didOpen": {"notebookDocument": {"uri": app + ".ipynb", "notebookType": "jupyter",
                                                          "version": 1, "cells": []}, "cellTextDocuments": []},
        "notebookDocument/didChange": {"notebookDocument": {"uri": app + ".ipynb", "version": 2}, "change": {}},
        "notebookDocument/didClose": {"notebookDocument": {"uri": app + ".ipynb"}, "cellTextDocuments": []},
        "$/setTrace": {"value": "off"},
        "window/workDoneProgress/cancel": {"token": "nothing"},
        "workspace/didChangeWorkspaceFolders": {"event": {"added": [], "removed": []}},
        "workspace/executeCommand": {"command": "loreline.showFileMemories", "arguments": [app]},
        "loreline/memories": {"kind": "fact", "limit": 5},
        "loreline/provenance": {"id": 1},
        "loreline/recall": {"query": "advisory locks"},
        "loreline/brief": {"folder": str(repo)},
        "loreline/conflicts": {"status": "any"},
        "loreline/resolveConflict": {"id": 1, "keep": "new"},
        "loreline/forget": {"id": 3},
        "loreline/import": {"paths": [str(session)]},
        "loreline/status": {"folder": str(repo)},
        "loreline/setApiKey": {"key": "sk-ant-fuzz"},
    }


class Storm:
    def __init__(self, rng: random.Random, methods: list[str], params: dict[str, Any]) -> None:
        self.rng, self.methods, self.params = rng, methods, params
        self.counter = 0

    def value(self, depth: int = 0) -> Any:
        """A random JSON value (strings with lone surrogates, huge strings, nesting)."""
        r = self.rng
        pick = r.randrange(12 if depth < 3 else 10)
        if pick == 10:
            return [self.value(depth + 1) for _ in range(r.randrange(3))]
        if pick == 11:
            return {r.choice(("uri", "id", "query", "folder", "line")): self.value(depth + 1)}
        return [None, True, r.randint(-2**70, 2**70), r.random() * 1e6, "", "\ud800 lone", "x" * r.choice((10, 5000)),
                r.choice(("file:///nowhere/x.py", "untitled:1", "5", "../..", "\x00")), "y" * 1_000_000,
                r.choice((-1, 0, 2**31, 2**63))][pick]

    def mutate(self, value: Any) -> Any:
        r = self.rng
        if isinstance(value, dict) and value and r.random() < 0.7:
            out = dict(value)
            key = r.choice(list(out))
            action = r.randrange(3)
            if action == 0:
                del out[key]
            else:
                out[key] = self.mutate(out[key]) if action == 1 else self.value()
            return out
        if isinstance(value, list) and value and r.random() < 0.5:
            return [self.mutate(v) for v in value]
        return self.value()

    def message(self) -> tuple[bytes, Any]:
        """One body to send and what it must get back: an id, "null" (id null) or None."""
        r = self.rng
        kind = r.randrange(20)
        if kind == 0:
            return bytes(r.randrange(256) for _ in range(r.randrange(1, 200))), "classify"
        if kind == 1:
            depth = r.choice((100, 100_000))
            self.counter += 1
            head = b'{"jsonrpc":"2.0","id":"deep-%d","method":"loreline/memories","params":' % self.counter
            return head + b"[" * depth + b"]" * depth + b"}", "classify"
        if kind == 2:
            return json.dumps(r.choice((5, "text", [1, 2], [{"jsonrpc": "2.0", "id": 9, "method": "x"}]))).encode(), "null"
        method = r.choice(self.methods + ["loreline/nothing", "textDocument/definition"])
        params = self.params.get(method, {})
        if r.random() < 0.6:
            params = self.mutate(params)
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
        if r.random() < 0.1:
            del message["params"]
        expect = self._id(message)
        if kind == 3:
            message["jsonrpc"] = r.choice(("1.0", None, 2))
        if kind == 4:
            message["method"] = r.choice((7, None, ["x"]))
        body = json.dumps(message).encode()
        if kind == 5:  # a raw byte that is not UTF-8 inside the body
            body = body.replace(b'"2.0"', b'"2.0\xff"', 1)
            expect = "null"
        return body, expect

    def _id(self, message: dict[str, Any]) -> Any:
        r = self.rng
        roll = r.random()
        if roll < 0.2:
            return None  # a notification: no answer
        if roll < 0.3:
            message["id"] = r.choice((1.5, True, None, [1], {"id": 1}))
            return "null"
        self.counter += 1
        message["id"] = 10_000 + self.counter if roll < 0.7 else f"s-{self.counter}-\u00e9"
        return message["id"]


def classify(body: bytes) -> Any:
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        return "null"
    if not isinstance(data, dict):
        return "null"
    return data.get("id")


def test_every_request_is_answered_exactly_once_and_the_server_stays_up(tmp_path: Path, loreline_home: Path) -> None:
    repo = make_repo(tmp_path)
    sessions = fill(tmp_path, repo, count=2)
    import_paths(sessions[:1])
    home = tmp_path / "user-home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CLAUDE_", "CODEX_"))}
    env.update(LORELINE_HOME=str(loreline_home), HOME=str(home), CLAUDE_CONFIG_DIR=str(home / ".claude"),
               CODEX_HOME=str(home / ".codex"), PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring")
    raw = RawServer(env, tmp_path / "server.log")
    storm = Storm(random.Random(SEED), registered_methods(), templates(repo, sessions[1]))
    expected: list[Any] = []
    started = time.monotonic()
    try:
        for n in range(MESSAGES):
            if n == 20:  # the first messages arrive before initialize
                raw.initialize(repo, {"pollSeconds": 0.2})
            body, expect = storm.message()
            expected.append(classify(body) if expect == "classify" else expect)
            raw.send_bytes(body)
        ids = [e for e in expected if e not in (None, "null")]
        for msg_id in ids:
            raw.response(msg_id, timeout=60)
        final = raw.call("loreline/memories", {}, timeout=30)
        assert final.get("result", {}).get("total", 0) >= 1, final
        time.sleep(0.5)  # let any second answer arrive
        answers = [m for m in raw.received if "method" not in m]
        per_id = Counter(json.dumps(m.get("id")) for m in answers)
        assert per_id[json.dumps(final["id"])] == 1
        for msg_id in ids:
            assert per_id[json.dumps(msg_id)] == 1, f"request {msg_id!r} got {per_id[json.dumps(msg_id)]} answers"
        assert per_id["null"] == expected.count("null")
        assert sum(per_id.values()) == len(ids) + expected.count("null") + 2  # and initialize, the final request
    finally:
        code = raw.close()
    elapsed = time.monotonic() - started
    errors = [m["error"] for m in answers if "error" in m]
    for error in errors:
        assert error["code"] in ALLOWED_ERRORS, error
        assert "data" not in error and "\n" not in error["message"] and "Traceback" not in error["message"], error
    print(f"fuzz: {MESSAGES} messages, {len(ids)} requests with ids, {expected.count('null')} answered with id null, "
          f"{len(errors)} errors {sorted(Counter(e['code'] for e in errors).items())}, {elapsed:.1f} s")
    assert code == 0 and elapsed < 60
    assert len(ids) > 150 and expected.count("null") > 20 and len(errors) > 50
