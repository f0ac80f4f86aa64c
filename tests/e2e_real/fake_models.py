"""A loopback model server for the real Claude Code and Codex CLIs, and a runner that puts one
CLI invocation and this server in the same (network-isolated) place.

Server (`FakeModels`): binds 127.0.0.1 on a free port and speaks, with scripted answers,
- the Anthropic Messages API: `POST /v1/messages` (Claude Code adds `?beta=true`), streamed as
  SSE `message_start`, `content_block_start`, `content_block_delta`…, `content_block_stop`,
  `message_delta`, `message_stop` — or one JSON message when the request does not stream;
  `POST /v1/messages/count_tokens`;
- the OpenAI Responses API: `POST /v1/responses`, streamed as SSE `response.created` …
  `response.completed`;
- the Gemini API: `POST /v1beta/models/<model>:streamGenerateContent` (SSE `data:` chunks of
  `GenerateContentResponse`), `:generateContent` (one JSON answer) and `:countTokens`;
- `GET /v1/models` (empty list) and `HEAD` (200) for clients that probe; anything else is 404.
Every request is appended to the log (one JSON line: api, method, path, headers without
credentials, body) before it is answered, so a test can read exactly what a CLI sent.

Answers are chosen by `Replies`: the first rule whose needle occurs in the last user message
wins, else the default. Needles are matched case-insensitively. An answer is plain text, or a
tool call when it is written `tool_reply(name, input)` (Anthropic: one `tool_use` block,
stop reason `tool_use`; the request after it carries the tool result, whose text is not
searched, so the default answer ends the turn; Gemini: one `functionCall` part, the same way), an API error when it is written
`error_reply(status)`, or no answer for a while when it is written `stall_reply(seconds)`
(both APIs; the Responses API's error body is OpenAI's).

Recorded answers (`--answers DIR`, a set as `loreline.distill.recorded` writes it): a Gemini
request that carries the gemini backend's answer rule is read back as the logical request it
carries (our system prompt, before the rule; the tool the rule names with its schema, and that
tool's description as the set's requests hold it; the user message, before the CLI's `-p`
prompt; the model the URL names) and keyed as `recorded.request_key` keys it; the recorded
answer is the reply text (its JSON), with usage estimated as the recorded answers estimate it
(characters / 4), so a run through the real CLI gives the figures `--backend recorded:DIR`
gives. Each lookup is logged (`api` "recorded": key, tool, found); a request the set has no
answer for is answered with prose the backend refuses, never with an answer of another request.

Probe (`python fake_models.py --probe`, run under `unshare -n`): exits 0 when loopback can be
brought up, this server answers on it, and no other route exists.

Runner (`python fake_models.py --log F --replies R [--lo-up] [--setenv K=V]… -- CMD…`):
brings the loopback interface up when asked (inside `unshare -n` it starts down), starts the
server, replaces `{port}` in CMD and in the `--setenv` values, runs CMD with stdin from
/dev/null, and writes `--result` JSON: exit status, seconds, port, and whether any
non-loopback route exists (`offline`). Standard library only: it runs as a plain script.
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import json
import os
import re
import socket
import struct
import subprocess
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

SECRET_HEADERS = frozenset({"x-api-key", "authorization", "cookie", "openai-api-key", "proxy-authorization"})
USAGE = {"input_tokens": 40, "output_tokens": 10, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}


@dataclass(frozen=True)
class Replies:
    default: str = "Understood."
    rules: tuple[tuple[str, str], ...] = ()

    @classmethod
    def load(cls, path: Path) -> Replies:
        data = json.loads(path.read_text(encoding="utf-8"))
        rules = tuple((str(r["contains"]).lower(), str(r["reply"])) for r in data.get("rules", []))
        return cls(str(data.get("default", cls.default)), rules)

    def dump(self, path: Path) -> None:
        rules = [{"contains": needle, "reply": reply} for needle, reply in self.rules]
        path.write_text(json.dumps({"default": self.default, "rules": rules}), encoding="utf-8")

    def answer(self, last_user_text: str) -> str:
        lowered = last_user_text.lower()
        return next((reply for needle, reply in self.rules if needle in lowered), self.default)


TOOL_PREFIX = "tool_use:"


def tool_reply(name: str, arguments: dict[str, Any]) -> str:
    """A scripted answer that calls tool `name` with `arguments` instead of writing text."""
    return TOOL_PREFIX + json.dumps({"name": name, "input": arguments})


ERROR_PREFIX = "error:"


def error_reply(status: int, kind: str = "overloaded_error", message: str = "fake: scripted failure",
                headers: dict[str, str] | None = None, fields: dict[str, Any] | None = None) -> str:
    """A scripted answer that fails with HTTP `status`: an error body of the API asked (its
    `type`, `message` and any further `fields`, as a usage limit's `resets_at`), with `headers`
    (a `retry-after`, a rate limit's reset times)."""
    return ERROR_PREFIX + json.dumps({"status": status, "type": kind, "message": message,
                                      "headers": headers or {}, "fields": fields or {}})


STALL_PREFIX = "stall:"


def stall_reply(seconds: float) -> str:
    """A scripted answer that keeps the request waiting `seconds`, then answers "Too late."."""
    return f"{STALL_PREFIX}{seconds}"


def tool_of(answer: str) -> dict[str, Any] | None:
    if not answer.startswith(TOOL_PREFIX):
        return None
    call = json.loads(answer[len(TOOL_PREFIX):])
    return {"type": "tool_use", "id": "toolu_" + uuid.uuid4().hex[:22], "name": call["name"], "input": call["input"]}


#: the gemini backend's rule after our system prompt, and its `-p` prompt after the user message
#: (loreline.assistants.gemini.distill's ANSWER_RULE and PROMPT; tests/e2e_real/test_gemini_recorded.py
#: checks they agree)
ANSWER_RULE_HEAD = "\n\nWhere these instructions say to call "
ANSWER_RULE_MIDDLE = (", reply instead with exactly that input as one JSON object, and nothing else: no prose, "
                      "no code fence. It must match this JSON schema:\n")
CLI_PROMPT = "\n\nReply now with that one JSON object."


def request_key(tool: dict[str, Any], system: str, user: str, model: str) -> str:
    """`loreline.distill.recorded.request_key`, in the standard library (this runs as a plain script)."""
    body = json.dumps({"system": system, "user": user, "tool": tool, "model": model},
                      sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(body.encode("utf-8", "surrogatepass")).hexdigest()


def squeezed(text: str) -> str:
    return re.sub(r"\n{3,}", "\n\n", text)


@dataclass
class RecordedAnswers:
    """A set of recorded answers, answering the Gemini requests of the gemini backend."""

    folder: Path
    _tools: dict[str, list[dict[str, Any]]] | None = None
    _prompts: dict[str, list[str]] | None = None

    def tools(self, name: str) -> list[dict[str, Any]]:
        """The tools named `name` the set's requests hold (each description and schema once)."""
        if self._tools is None:
            found: dict[str, list[dict[str, Any]]] = {}
            for path in sorted((self.folder / "requests").glob("*.json")):
                tool = json.loads(path.read_text(encoding="utf-8")).get("tool")
                if isinstance(tool, dict) and tool not in found.setdefault(str(tool.get("name")), []):
                    found[str(tool.get("name"))].append(tool)
            self._tools = found
        return self._tools.get(name, [])

    def prompts(self, sent: str) -> list[str]:
        """The set's system prompts that Gemini CLI sends as `sent` (the text before the answer rule):
        it replaces each run of three or more newlines with two (`GEMINI_SYSTEM_MD` included)."""
        if self._prompts is None:
            found: dict[str, list[str]] = {}
            for path in sorted((self.folder / "prompts").glob("*.md")):
                text = path.read_text(encoding="utf-8")
                found.setdefault(squeezed(text + "\n\n"), []).append(text)
            self._prompts = found
        return self._prompts.get(sent, [])

    def lookup(self, model: str, body: dict[str, Any]) -> dict[str, Any] | None:
        """The logical request a Gemini request carries, and its recorded answer (`answer`: None
        when the set has none); None when the request is not one of the gemini backend's."""
        system = " ".join(str(p.get("text", "")) for p in (body.get("systemInstruction") or {}).get("parts", [])
                          if isinstance(p, dict))
        contents = body.get("contents") if isinstance(body.get("contents"), list) else []
        parts = contents[-1].get("parts", []) if contents and isinstance(contents[-1], dict) else []
        said = str(parts[-1].get("text", "")) if parts and isinstance(parts[-1], dict) else ""
        head = system.rfind(ANSWER_RULE_HEAD.lstrip("\n"))
        if head < 2 or ANSWER_RULE_MIDDLE not in system[head:] or not said.endswith(CLI_PROMPT):
            return None
        name, _, schema_text = system[head:].partition(ANSWER_RULE_MIDDLE)
        name = name[len(ANSWER_RULE_HEAD) - 2:]
        try:
            schema = json.loads(schema_text)
        except ValueError:
            return None
        user = said[:-len(CLI_PROMPT)]
        tools = [t for t in self.tools(name) if t.get("input_schema") == schema]
        # the CLI squeezes runs of blank lines in its system prompt: ours is the set's prompt that reads so
        pairs = [(t, ours) for t in tools for ours in self.prompts(system[:head])]
        keys = [request_key(t, ours, user, model) for t, ours in pairs]
        for (tool, ours), key in zip(pairs, keys):
            path = self.folder / "answers" / f"{key}.json"
            if path.is_file():
                answer = json.loads(path.read_text(encoding="utf-8"))["answer"]
                sent = len(ours) + len(user) + len(json.dumps(tool))
                return {"key": key, "tool": name, "answer": answer,
                        "usage": {"promptTokenCount": sent // 4, "candidatesTokenCount": len(json.dumps(answer)) // 4,
                                  "totalTokenCount": sent // 4 + len(json.dumps(answer)) // 4}}
        return {"key": keys[0] if keys else None, "tool": name, "answer": None,
                "known_tool": bool(tools)}


@dataclass
class RequestLog:
    path: Path
    lock: threading.Lock = field(default_factory=threading.Lock)

    def append(self, entry: dict[str, Any]) -> None:
        line = json.dumps(entry, ensure_ascii=False) + "\n"
        with self.lock, open(self.path, "a", encoding="utf-8") as handle:
            handle.write(line)


def text_of(content: Any) -> str:
    """The text in a message's content: a string, or blocks with `text` (both APIs)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    return ""


def last_user_text(messages: Any) -> str:
    for message in reversed(messages if isinstance(messages, list) else []):
        if isinstance(message, dict) and message.get("role") == "user":
            return text_of(message.get("content"))
    return ""


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: Server

    def log_message(self, format: str, *args: Any) -> None:  # quiet: the request log is the record
        pass

    # -- plumbing -----------------------------------------------------------------------

    def _read_body(self) -> Any:
        size = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(size) if size else b""
        if not raw:
            return None
        encoding = (self.headers.get("content-encoding") or "").lower()
        if encoding == "gzip":
            import gzip

            raw = gzip.decompress(raw)
        elif encoding:
            return {"_undecoded": encoding, "_bytes": len(raw)}
        try:
            return json.loads(raw)
        except ValueError:
            return {"_raw": raw.decode("utf-8", "replace")[:4000]}

    def _record(self, api: str, body: Any) -> None:
        headers = {k.lower(): v for k, v in self.headers.items() if k.lower() not in SECRET_HEADERS}
        self.server.log.append({"t": time.time(), "api": api, "method": self.command, "path": self.path,
                                "headers": headers, "body": body})

    def _json(self, code: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(code)
        self.send_header("content-type", "application/json")
        self.send_header("request-id", "req_" + uuid.uuid4().hex[:20])
        self.send_header("content-length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _start_stream(self) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("request-id", "req_" + uuid.uuid4().hex[:20])
        self.send_header("connection", "close")
        self.end_headers()
        self.close_connection = True

    def _event(self, name: str, data: dict[str, Any]) -> None:
        self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
        self.wfile.flush()

    def _not_found(self) -> None:
        self._json(404, {"type": "error", "error": {"type": "not_found_error", "message": f"fake: no {self.path}"}})

    # -- routes -------------------------------------------------------------------------

    def do_HEAD(self) -> None:
        self._record("probe", None)
        self.send_response(200)
        self.send_header("content-length", "0")
        self.end_headers()

    def do_GET(self) -> None:
        self._record("probe", None)
        if self.path.split("?")[0].rstrip("/").endswith("/models"):
            return self._json(200, {"object": "list", "data": [], "models": [], "has_more": False})
        self._not_found()

    def do_POST(self) -> None:
        route = self.path.split("?")[0].rstrip("/")
        body = self._read_body()
        if route == "/v1/messages/count_tokens":
            self._record("anthropic", body)
            return self._json(200, {"input_tokens": 40})
        if route == "/v1/messages":
            self._record("anthropic", body)
            return self._anthropic(body if isinstance(body, dict) else {})
        if route.startswith("/v1beta/models/") and ":" in route:
            self._record("gemini", body)
            model, _, method = route[len("/v1beta/models/"):].rpartition(":")
            return self._gemini(method, body if isinstance(body, dict) else {}, model)
        if route.endswith("/responses"):
            self._record("openai", body)
            return self._openai(body if isinstance(body, dict) else {})
        self._record("unknown", body)
        self._not_found()

    # -- Anthropic Messages -------------------------------------------------------------

    def _anthropic(self, body: dict[str, Any]) -> None:
        text = self.server.replies.answer(last_user_text(body.get("messages")))
        if text.startswith(STALL_PREFIX):
            time.sleep(float(text[len(STALL_PREFIX):]))
            text = "Too late."
        if text.startswith(ERROR_PREFIX):
            failure = json.loads(text[len(ERROR_PREFIX):])
            error = {"type": failure["type"], "message": failure.get("message", "fake: scripted failure"),
                     **failure.get("fields", {})}
            return self._json(int(failure["status"]), {"type": "error", "error": error}, failure.get("headers"))
        tool = tool_of(text)
        stop = "tool_use" if tool else "end_turn"
        model = str(body.get("model") or "claude-fake")
        message_id = "msg_" + uuid.uuid4().hex[:24]
        if not body.get("stream"):
            return self._json(200, {"id": message_id, "type": "message", "role": "assistant", "model": model,
                                    "content": [tool or {"type": "text", "text": text}], "stop_reason": stop,
                                    "stop_sequence": None, "usage": USAGE})
        self._start_stream()
        self._event("message_start", {"type": "message_start", "message": {
            "id": message_id, "type": "message", "role": "assistant", "model": model, "content": [],
            "stop_reason": None, "stop_sequence": None, "usage": dict(USAGE, output_tokens=1)}})
        if tool:
            self._tool_block(tool)
        else:
            self._text_block(text)
        self._event("message_delta", {"type": "message_delta",
                                      "delta": {"stop_reason": stop, "stop_sequence": None},
                                      "usage": {"output_tokens": USAGE["output_tokens"]}})
        self._event("message_stop", {"type": "message_stop"})

    def _text_block(self, text: str) -> None:
        self._event("content_block_start", {"type": "content_block_start", "index": 0,
                                            "content_block": {"type": "text", "text": ""}})
        for piece in halves(text):
            self._event("content_block_delta", {"type": "content_block_delta", "index": 0,
                                                "delta": {"type": "text_delta", "text": piece}})
        self._event("content_block_stop", {"type": "content_block_stop", "index": 0})

    def _tool_block(self, tool: dict[str, Any]) -> None:
        self._event("content_block_start", {"type": "content_block_start", "index": 0,
                                            "content_block": dict(tool, input={})})
        for piece in halves(json.dumps(tool["input"])):
            self._event("content_block_delta", {"type": "content_block_delta", "index": 0,
                                                "delta": {"type": "input_json_delta", "partial_json": piece}})
        self._event("content_block_stop", {"type": "content_block_stop", "index": 0})

    # -- Gemini generateContent --------------------------------------------------------

    def _gemini(self, method: str, body: dict[str, Any], model: str = "") -> None:
        if method == "countTokens":
            return self._json(200, {"totalTokens": 40})
        if self.server.answers is not None:
            found = self.server.answers.lookup(model, body)
            if found is not None:
                answer = found.pop("answer")
                self.server.log.append({"t": time.time(), "api": "recorded", "model": model, **found,
                                        "found": answer is not None})
                if answer is None:
                    return self._gemini_text(method, f"fake: no recorded answer for request {found['key']}",
                                             {"promptTokenCount": 40, "candidatesTokenCount": 10,
                                              "totalTokenCount": 50})
                return self._gemini_text(method, json.dumps(answer), found["usage"])
        contents = body.get("contents") if isinstance(body.get("contents"), list) else []
        last = contents[-1] if contents and isinstance(contents[-1], dict) else {}
        parts = last.get("parts") if isinstance(last.get("parts"), list) else []
        after_tool = any(isinstance(p, dict) and "functionResponse" in p for p in parts)
        said = " ".join(str(p.get("text", "")) for p in parts if isinstance(p, dict))
        text = self.server.replies.default if after_tool else self.server.replies.answer(said)
        if text.startswith(STALL_PREFIX):
            time.sleep(float(text[len(STALL_PREFIX):]))
            text = "Too late."
        if text.startswith(ERROR_PREFIX):  # the Gemini API's error shape: {"error": {code, message, status}}
            failure = json.loads(text[len(ERROR_PREFIX):])
            error = {"code": int(failure["status"]), "message": failure.get("message", "fake: scripted failure"),
                     "status": failure["type"], **failure.get("fields", {})}
            return self._json(int(failure["status"]), {"error": error}, failure.get("headers"))
        self._gemini_text(method, text, {"promptTokenCount": 40, "candidatesTokenCount": 10, "totalTokenCount": 50})

    def _gemini_text(self, method: str, text: str, usage: dict[str, int]) -> None:
        tool = tool_of(text)
        part: dict[str, Any] = ({"functionCall": {"name": tool["name"], "args": tool["input"]}} if tool
                                else {"text": text})
        answer = {"candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP",
                                  "index": 0}], "usageMetadata": usage, "modelVersion": "gemini-fake"}
        if method != "streamGenerateContent":
            return self._json(200, answer)
        self._start_stream()
        self.wfile.write(f"data: {json.dumps(answer)}\r\n\r\n".encode())
        self.wfile.flush()

    # -- OpenAI Responses ---------------------------------------------------------------

    def _openai(self, body: dict[str, Any]) -> None:
        items = body.get("input") if isinstance(body.get("input"), list) else []
        after_tool = bool(items) and isinstance(items[-1], dict) and items[-1].get("type") == "function_call_output"
        # a tool's output answers the call: the turn then ends in text (never the same call again)
        text = self.server.replies.default if after_tool else self.server.replies.answer(last_user_text(items))
        if text.startswith(STALL_PREFIX):
            time.sleep(float(text[len(STALL_PREFIX):]))
            text = "Too late."
        if text.startswith(ERROR_PREFIX):
            failure = json.loads(text[len(ERROR_PREFIX):])
            error = {"type": failure["type"], "code": failure["type"],
                     "message": failure.get("message", "fake: scripted failure"), **failure.get("fields", {})}
            return self._json(int(failure["status"]), {"error": error}, failure.get("headers"))
        response_id, item_id = "resp_" + uuid.uuid4().hex[:24], "msg_" + uuid.uuid4().hex[:24]
        usage = {"input_tokens": 40, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 10,
                 "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 50}
        tool = tool_of(text)
        if tool is not None:
            item: dict[str, Any] = {"id": "fc_" + uuid.uuid4().hex[:24], "type": "function_call",
                                    "status": "completed", "call_id": "call_" + uuid.uuid4().hex[:20],
                                    **_namespaced(tool["name"], body.get("tools")),
                                    "arguments": json.dumps(tool["input"])}
        else:
            part = {"type": "output_text", "text": text, "annotations": []}
            item = {"id": item_id, "type": "message", "role": "assistant", "status": "completed", "content": [part]}
        base = {"id": response_id, "object": "response", "created_at": int(time.time()),
                "model": str(body.get("model") or "gpt-fake")}
        if not body.get("stream"):
            return self._json(200, dict(base, status="completed", output=[item], usage=usage))
        self._start_stream()
        events = [
            {"type": "response.created", "response": dict(base, status="in_progress", output=[])},
            {"type": "response.in_progress", "response": dict(base, status="in_progress", output=[])},
            *(self._function_events(item) if tool is not None else self._text_events(item, text)),
            {"type": "response.completed", "response": dict(base, status="completed", output=[item], usage=usage)},
        ]
        for number, event in enumerate(events):
            self._event(event["type"], dict(event, sequence_number=number))

    @staticmethod
    def _text_events(item: dict[str, Any], text: str) -> list[dict[str, Any]]:
        part = item["content"][0]
        where = {"item_id": item["id"], "output_index": 0, "content_index": 0}
        return [
            {"type": "response.output_item.added", "output_index": 0, "item": dict(item, status="in_progress",
                                                                                   content=[])},
            {"type": "response.content_part.added", **where, "part": dict(part, text="")},
            *({"type": "response.output_text.delta", **where, "delta": piece} for piece in halves(text)),
            {"type": "response.output_text.done", **where, "text": text},
            {"type": "response.content_part.done", **where, "part": part},
            {"type": "response.output_item.done", "output_index": 0, "item": item},
        ]

    @staticmethod
    def _function_events(item: dict[str, Any]) -> list[dict[str, Any]]:
        where = {"item_id": item["id"], "output_index": 0}
        return [
            {"type": "response.output_item.added", "output_index": 0,
             "item": dict(item, status="in_progress", arguments="")},
            *({"type": "response.function_call_arguments.delta", **where, "delta": piece}
              for piece in halves(item["arguments"])),
            {"type": "response.function_call_arguments.done", **where, "arguments": item["arguments"]},
            {"type": "response.output_item.done", "output_index": 0, "item": item},
        ]


def _namespaced(name: str, tools: Any) -> dict[str, str]:
    """A call to `<namespace>__<tool>` names the tool inside its namespace, as the Responses API
    does for tools offered in a `namespace` group (Codex groups each MCP server's tools so)."""
    for group in tools if isinstance(tools, list) else []:
        prefix = f"{group.get('name')}__" if isinstance(group, dict) and group.get("type") == "namespace" else None
        if prefix and name.startswith(prefix):
            return {"namespace": str(group["name"]), "name": name[len(prefix):]}
    return {"name": name}


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, log: RequestLog, replies: Replies, answers: RecordedAnswers | None = None) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.log = log
        self.replies = replies
        self.answers = answers


class FakeModels:
    """The server on a background thread: `with FakeModels(log, replies) as fake: fake.port`."""

    def __init__(self, log_path: Path, replies: Replies, answers: Path | None = None) -> None:
        self.server = Server(RequestLog(log_path), replies, RecordedAnswers(answers) if answers else None)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return int(self.server.server_address[1])

    def __enter__(self) -> FakeModels:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def halves(text: str) -> list[str]:
    middle = len(text) // 2
    return [piece for piece in (text[:middle], text[middle:]) if piece]


def read_log(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


# -- the runner ---------------------------------------------------------------------------


def loopback_up() -> None:
    """Set IFF_UP on `lo` (a fresh network namespace starts with it down); no `ip` needed."""
    siocgifflags, siocsifflags, iff_up = 0x8913, 0x8914, 0x1
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        request = struct.pack("16sH14x", b"lo", 0)
        flags = struct.unpack("16sH14x", fcntl.ioctl(sock.fileno(), siocgifflags, request))[1]
        fcntl.ioctl(sock.fileno(), siocsifflags, struct.pack("16sH14x", b"lo", flags | iff_up))


def offline() -> bool:
    """True when no route leaves the machine (a UDP connect only consults routing: no packet)."""
    for family, address in ((socket.AF_INET, ("192.0.2.1", 443)), (socket.AF_INET6, ("2001:db8::1", 443))):
        try:
            with socket.socket(family, socket.SOCK_DGRAM) as sock:
                sock.connect(address)
        except OSError:
            continue
        return False
    return True


def run(args: argparse.Namespace) -> int:
    if args.lo_up:
        loopback_up()
    replies = Replies.load(Path(args.replies)) if args.replies else Replies()
    with FakeModels(Path(args.log), replies, Path(args.answers) if args.answers else None) as fake:
        port = str(fake.port)
        env = dict(os.environ)
        for item in args.setenv:
            name, _, value = item.partition("=")
            env[name] = value.replace("{port}", port)
        argv = [part.replace("{port}", port) for part in args.command]
        start = time.monotonic()
        with open(args.stdout, "wb") as out, open(args.stderr, "wb") as err:
            try:
                code = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err, env=env,
                                      cwd=args.cwd, timeout=args.timeout).returncode
            except subprocess.TimeoutExpired:
                code = -9
        result = {"rc": code, "seconds": round(time.monotonic() - start, 3), "port": fake.port,
                  "offline": offline(), "timed_out": code == -9}
    Path(args.result).write_text(json.dumps(result), encoding="utf-8")
    return 0


def probe() -> int:
    """Inside a fresh namespace: loopback up, a request to ourselves answered, no other route."""
    import urllib.request
    from tempfile import TemporaryDirectory

    loopback_up()
    with TemporaryDirectory() as folder, FakeModels(Path(folder) / "log.jsonl", Replies()) as fake:
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        with opener.open(f"http://127.0.0.1:{fake.port}/v1/models", timeout=10) as answer:
            answer.read()
    if not offline():
        print("a route off the machine exists inside the namespace", file=sys.stderr)
        return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    if (argv if argv is not None else sys.argv[1:]) == ["--probe"]:
        return probe()
    parser = argparse.ArgumentParser(description="Run one command against a loopback fake model server.")
    parser.add_argument("--log", required=True, help="append every request here (JSON lines)")
    parser.add_argument("--replies", help="JSON file: {default, rules: [{contains, reply}]}")
    parser.add_argument("--answers", help="a set of recorded answers: the gemini backend's requests are answered from it")
    parser.add_argument("--result", required=True, help="write {rc, seconds, port, offline} here")
    parser.add_argument("--stdout", required=True)
    parser.add_argument("--stderr", required=True)
    parser.add_argument("--cwd", required=True)
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--lo-up", action="store_true", help="bring the loopback interface up first")
    parser.add_argument("--setenv", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    if args.command[:1] == ["--"]:
        args.command = args.command[1:]
    if not args.command:
        parser.error("no command to run")
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
