"""A loopback OpenAI-compatible chat server that holds requests to the protocol the way the
local servers do (Ollama, llama.cpp's server, vLLM, LM Studio), for tests and the evals.

    with ChatServer(answer) as server:      # answer(asked) -> dict (the tool input) | Raw
        ... distill.openai_base_url = server.url ...
        server.requests                      # every request, as received

`POST /v1/chat/completions` only (and `GET /v1/models`). Refused with 400 and the reason, as
those servers refuse them: a body that is not a JSON object, no `model`, no `messages` (or one
without a role or content), a `response_format` of an unknown type, a `json_schema` without a
valid name or with a schema that is not well formed (unknown `type`, `properties` not an
object of schemas, `required` naming a property that is not there, `items` not a schema,
an empty `enum`), a tool that is not a function with a name and a well-formed schema, a
`tool_choice` naming a tool that was not offered, `stream: true`. `refuse_json_schema=True`
plays a server without structured output: a `json_schema` answer format is refused (400),
and the client must fall back to a forced tool call.

Structured answers are constrained, as a grammar constrains them: an answer the callback
returns that breaks the requested schema is a bug in the test, and the server says so with
a 500 rather than send it. `Raw` replies (any status, headers, body or content, a delay) are
how a test plays a server that ignores the format, a truncated answer, a 429 or an outage.

Each request is read back as the logical request a `ToolCaller` made (`Asked`: system prompt,
user message, tool, model), whichever way the answer was asked for, so one set of recorded
answers serves this server as it serves `recorded:DIR` (`answer_server`). Usage is reported
as characters / 4 of that request and of the answer, as recorded answers report it, unless
the callback gives its own.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from loreline.distill.schema import problems

TYPES = ("object", "array", "string", "integer", "number", "boolean", "null")
_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


@dataclass(frozen=True)
class Asked:
    """One request as the logical tool call it carries."""

    model: str
    system: str
    user: str
    tool: dict[str, Any]
    mode: str  # "json_schema" or "tools"
    max_tokens: int | None
    body: dict[str, Any]
    headers: dict[str, str]


@dataclass(frozen=True)
class Raw:
    """A reply as given: `content` becomes the message text (or `body` is the whole response);
    or a structured `answer` (held to the schema) with the `usage` given (None: no usage field)."""

    status: int = 200
    content: str | None = None
    answer: dict[str, Any] | None = None
    usage: dict[str, Any] | None = None
    body: dict[str, Any] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    finish_reason: str = "stop"
    delay: float = 0.0


Answer = dict[str, Any] | Raw


def check_schema(schema: Any, where: str = "schema") -> list[str]:
    """Why `schema` is not a well-formed JSON Schema of the kind the grammars compile; empty when it is."""
    if not isinstance(schema, dict):
        return [f"{where} is not an object"]
    found: list[str] = []
    kinds = schema.get("type")
    for kind in kinds if isinstance(kinds, list) else [kinds] if kinds is not None else []:
        if kind not in TYPES:
            found.append(f"{where}.type {kind!r} is not a JSON type")
    props = schema.get("properties", {})
    if not isinstance(props, dict):
        return [*found, f"{where}.properties is not an object"]
    for name, sub in props.items():
        found += check_schema(sub, f"{where}.properties.{name}")
    required = schema.get("required", [])
    if not isinstance(required, list) or any(not isinstance(r, str) or r not in props for r in required):
        found.append(f"{where}.required names a property that is not defined")
    if "items" in schema:
        found += check_schema(schema["items"], f"{where}.items")
    if "enum" in schema and (not isinstance(schema["enum"], list) or not schema["enum"]):
        found.append(f"{where}.enum is not a non-empty list")
    return found


def _estimate(asked: Asked, answer: dict[str, Any]) -> dict[str, int]:
    sent = len(asked.system) + len(asked.user) + len(json.dumps(asked.tool))
    return {"prompt_tokens": sent // 4, "completion_tokens": len(json.dumps(answer)) // 4,
            "total_tokens": sent // 4 + len(json.dumps(answer)) // 4}


class Refused(Exception):
    """A request the protocol does not allow: 400 with this reason."""


def read_request(body: Any, headers: dict[str, str]) -> Asked:
    """The logical request of a chat completions body, or Refused saying what breaks the protocol."""
    if not isinstance(body, dict):
        raise Refused("the request body is not a JSON object")
    if not isinstance(body.get("model"), str) or not body["model"]:
        raise Refused("model is required")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise Refused("messages is required and must be a non-empty list")
    for message in messages:
        if not isinstance(message, dict) or message.get("role") not in ("system", "user", "assistant", "tool") \
                or not isinstance(message.get("content"), (str, list)):
            raise Refused("each message needs a role (system, user, assistant, tool) and a content")
    if body.get("stream"):
        raise Refused("stream is not supported by this server")
    system = "\n".join(m["content"] for m in messages if m["role"] == "system" and isinstance(m["content"], str))
    user = "\n".join(m["content"] for m in messages if m["role"] == "user" and isinstance(m["content"], str))
    mode, tool = _answer_format(body)
    max_tokens = body.get("max_tokens", body.get("max_completion_tokens"))
    return Asked(body["model"], system, user, tool, mode, max_tokens if isinstance(max_tokens, int) else None,
                 body, headers)


def _answer_format(body: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    fmt = body.get("response_format")
    if fmt is not None:
        if not isinstance(fmt, dict) or fmt.get("type") not in ("text", "json_object", "json_schema"):
            raise Refused("response_format.type must be text, json_object or json_schema")
        if fmt["type"] == "json_schema":
            spec = fmt.get("json_schema")
            if not isinstance(spec, dict) or not isinstance(spec.get("name"), str) or not _NAME.match(spec["name"]):
                raise Refused("response_format.json_schema needs a name of letters, digits, _ or -")
            wrong = check_schema(spec.get("schema"))
            if wrong:
                raise Refused(f"invalid JSON schema in response_format: {wrong[0]}")
            return "json_schema", _tool(spec["name"], spec.get("description"), spec["schema"])
    tools = body.get("tools")
    if tools is None:
        return "text", {}
    offered = {}
    for item in tools if isinstance(tools, list) else [None]:
        function = item.get("function") if isinstance(item, dict) and item.get("type") == "function" else None
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            raise Refused("each tool must be a function with a name")
        wrong = check_schema(function.get("parameters", {"type": "object"}))
        if wrong:
            raise Refused(f"invalid JSON schema in tool {function['name']}: {wrong[0]}")
        offered[function["name"]] = _tool(function["name"], function.get("description"), function.get("parameters"))
    choice = body.get("tool_choice")
    named = choice.get("function", {}).get("name") if isinstance(choice, dict) else None
    if named is not None and named not in offered:
        raise Refused(f"tool_choice names {named!r}, which is not among the tools")
    return "tools", offered[named] if named else next(iter(offered.values()), {})


def _tool(name: str, description: Any, schema: Any) -> dict[str, Any]:
    tool: dict[str, Any] = {"name": name, "input_schema": schema}
    if description is not None:
        tool["description"] = description
    return tool


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # quiet: `requests` is the record
        pass

    def _send(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        if self.path.rstrip("/") == "/v1/models":
            return self._send(200, {"object": "list", "data": [{"id": "any", "object": "model"}]})
        self._send(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length)
        if self.path.rstrip("/") != "/v1/chat/completions":
            return self._send(404, {"error": {"message": f"no route {self.path}"}})
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        headers = {k.lower(): v for k, v in self.headers.items()}
        self.server.owner.requests.append({"headers": headers, "body": body})
        try:
            asked = read_request(body, headers)
        except Refused as err:
            return self._send(400, {"error": {"message": str(err), "type": "invalid_request_error"}})
        if asked.mode == "json_schema" and self.server.owner.refuse_json_schema:
            return self._send(400, {"error": {"message": "response_format json_schema is not supported",
                                              "type": "invalid_request_error"}})
        self._reply(asked, self.server.owner.answer(asked))

    def _reply(self, asked: Asked, answer: Answer) -> None:
        if isinstance(answer, Raw):
            time.sleep(answer.delay)
            if answer.body is not None or answer.status != 200:
                return self._send(answer.status, answer.body or {"error": {"message": "scripted failure"}},
                                  answer.headers)
            if answer.answer is None:
                return self._send(200, completion(asked, answer.content or "", {}, answer.finish_reason),
                                  answer.headers)
            return self._structured(asked, answer.answer, answer.usage or {})
        self._structured(asked, answer, _estimate(asked, answer))

    def _structured(self, asked: Asked, answer: dict[str, Any], usage: dict[str, Any]) -> None:
        if asked.tool:
            wrong = problems(answer, asked.tool["input_schema"])
            if wrong:
                return self._send(500, {"error": {"message": f"fake: the scripted answer breaks the schema: {wrong[0]}"}})
        self._send(200, completion(asked, answer, usage))


def completion(asked: Asked, answer: dict[str, Any] | str, usage: dict[str, Any],
               finish_reason: str = "stop") -> dict[str, Any]:
    """A chat completion carrying `answer`: as the message text, or as the forced tool's call."""
    text = answer if isinstance(answer, str) else json.dumps(answer)
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if asked.mode == "tools" and not isinstance(answer, str):
        message = {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": asked.tool["name"], "arguments": text}}]}
    out: dict[str, Any] = {"id": "chatcmpl-loopback", "object": "chat.completion", "created": int(time.time()),
                           "model": asked.model, "choices": [{"index": 0, "message": message,
                                                              "finish_reason": finish_reason}]}
    if usage:
        out["usage"] = usage
    return out


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, owner: ChatServer, port: int) -> None:
        super().__init__(("127.0.0.1", port), _Handler)
        self.owner = owner


class ChatServer:
    """The server on a free loopback port, for a `with` block."""

    def __init__(self, answer: Callable[[Asked], Answer], *, refuse_json_schema: bool = False, port: int = 0) -> None:
        self.answer = answer
        self.port = port
        self.refuse_json_schema = refuse_json_schema
        self.requests: list[dict[str, Any]] = []
        self._server: _Server | None = None

    @property
    def url(self) -> str:
        assert self._server is not None, "the server is not running"
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> ChatServer:
        self._server = _Server(self, self.port)
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
