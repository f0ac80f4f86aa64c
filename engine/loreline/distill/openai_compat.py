"""The `openai-compatible` distiller: any server that speaks the OpenAI chat completions API
(Ollama, LM Studio, llama.cpp's server, vLLM, or a hosted one), one structured answer per call.

`ChatClient.call_tool(tool, system, user)` satisfies `ToolCaller`, like the other backends'
clients, so the distill prompt, the `record_memories` contract, evidence validation, the belief
judge, the brief and the cue writer all run through it unchanged. Each call is one `POST
{base_url}/chat/completions` with plain `httpx2` (the HTTP client the anthropic SDK is built on; no SDK):
- the instructions are the system message, the data the user message; the answer is
  constrained by the tool's own input schema as `response_format: {type: json_schema,
  json_schema: {name, description, schema, strict: false}}` (the schema as the tool defines
  it: optional properties stay optional, which local servers' grammars take as they are).
  A server that refuses `json_schema` (HTTP 400/422 naming it) is asked again, and from then on
  for the rest of the run, with the tool as a forced function call (`tools` + `tool_choice`);
- the answer is held to the tool's schema (`schema.problems`): text that is not one JSON
  object, the schema echoed back instead of an answer, an answer cut at `max_tokens`
  (`finish_reason: length`) or one that breaks the schema is ModelOutputError with one line
  saying which; the distiller asks once more, then counts it and moves on;
- bounds: `distill.timeout_seconds` per attempt, `distill.max_retries` retries after a
  timeout, a connection error, 408/409/429 or 5xx, waiting what `Retry-After` asks (at most
  `distill.retry_max_seconds`, else at once deferred) or an exponential backoff. A 429 that
  ends the call is a rate limit (UsageLimitError with its `Retry-After`: the backend's
  cooldown, `usage.Meter.limited`); any other outage is RateLimitedError (the session is
  deferred, every later call of this client fails fast); 401/403 is AuthError naming where
  the key came from; another refusal is DistillError with the server's one-line reason;
- usage comes from the response's `usage` (`prompt_tokens`, `completion_tokens`,
  `prompt_tokens_details.cached_tokens`); a server that reports none is counted by characters
  / 4 of what was sent and received, so the spend gate still sees tokens.

The key (optional: most local servers take none) is sent as `Authorization: Bearer` and never
appears in a message, a log or `repr`.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Mapping
from typing import Any, NoReturn

from ..config import Config
from ..errors import AuthError, DistillError, ModelOutputError
from ..models import Usage
from ..records import record
from . import UsageMeter
from .anthropic import ToolDistiller, rate_limit, retry_after
from .caller import MeteredCaller

NAME = "openai-compatible"
JSON_SCHEMA = "json_schema"
TOOLS = "tools"
#: the first wait between retries when the server names none (doubled each time, at most 8 s)
BACKOFF_SECONDS = 0.5
_THINKING = re.compile(r"^\s*<think>.*?</think>\s*", re.DOTALL)


@record
class ChatSettings:
    base_url: str
    model: str
    max_output_tokens: int = 4096
    timeout_seconds: float = 90.0
    max_retries: int = 4
    retry_max_seconds: float = 30.0

    @classmethod
    def from_config(cls, cfg: Config, base_url: str, model: str) -> ChatSettings:
        """The server and model `loreline.backends` found, with the distill.* bounds every backend uses."""
        return cls(base_url=base_url, model=model, max_output_tokens=cfg.get_int("distill.max_output_tokens"),
                   timeout_seconds=cfg.get_float("distill.timeout_seconds"),
                   max_retries=cfg.get_int("distill.max_retries"),
                   retry_max_seconds=cfg.get_float("distill.retry_max_seconds"))

    def endpoint(self) -> str:
        return self.base_url.rstrip("/") + "/chat/completions"


@record
class Reply:
    """One completed chat answer and the way it was asked for (`JSON_SCHEMA` or `TOOLS`)."""

    mode: str
    body: dict[str, Any]


def request(tool: Mapping[str, Any], system: str, user: str, model: str, max_tokens: int,
            mode: str = JSON_SCHEMA) -> dict[str, Any]:
    """The chat completions body: the instructions, the data, and the answer's shape."""
    body: dict[str, Any] = {"model": model, "max_tokens": max_tokens, "temperature": 0, "stream": False,
                            "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}]}
    described = {"description": tool["description"]} if "description" in tool else {}
    if mode == JSON_SCHEMA:
        body["response_format"] = {"type": "json_schema", "json_schema": {
            "name": tool["name"], **described, "schema": tool["input_schema"], "strict": False}}
    else:
        body["tools"] = [{"type": "function", "function": {"name": tool["name"], **described,
                                                           "parameters": tool["input_schema"]}}]
        body["tool_choice"] = {"type": "function", "function": {"name": tool["name"]}}
    return body


class ChatClient(MeteredCaller):
    """Structured answers from an OpenAI-compatible server; satisfies `ToolCaller`."""

    SERVICE = "the OpenAI-compatible server"

    def __init__(self, settings: ChatSettings, key: str | None = None, key_source: str | None = None, *,
                 meter: UsageMeter | None = None) -> None:
        super().__init__(meter)
        self.settings = settings
        self._key = key
        self._key_source = key_source
        self.mode = JSON_SCHEMA
        self._http: Any = None

    def __repr__(self) -> str:  # never show the key
        return (f"ChatClient(model={self.settings.model!r}, base_url={self.settings.base_url!r}, "
                f"key from {self._key_source or 'nowhere'})")

    def _answer(self, tool: Mapping[str, Any], system: str, user: str, max_tokens: int) -> tuple[Any, Usage]:
        body = request(tool, system, user, self.settings.model, max_tokens, self.mode)
        answer = self._post(body)
        if answer is None:  # the server refuses json_schema: the forced tool call, from now on
            self.mode = TOOLS
            body = request(tool, system, user, self.settings.model, max_tokens, TOOLS)
            answer = self._post(body)
            if answer is None:
                raise DistillError(f"{self.SERVICE} at {self.settings.base_url} refused both a json_schema "
                                   "response_format and a forced tool call")
        return Reply(self.mode, answer), usage_of(answer, body)

    def _accept(self, answer: Any, tool: Mapping[str, Any]) -> dict[str, Any]:
        return structured(answer, tool)

    def _max_output_tokens(self) -> int:
        return self.settings.max_output_tokens

    # -- the HTTP exchange ---------------------------------------------------------------------

    def _client(self) -> Any:
        import httpx2 as httpx

        if self._http is None:
            headers = {"Authorization": f"Bearer {self._key}"} if self._key else {}
            self._http = httpx.Client(timeout=self.settings.timeout_seconds, headers=headers, trust_env=False)
        return self._http

    def _post(self, body: dict[str, Any]) -> dict[str, Any] | None:
        """The answer's JSON; None when the server refuses the `json_schema` answer format."""
        import httpx2 as httpx

        s, why, limit_headers = self.settings, "", None
        for attempt in range(s.max_retries + 1):
            if attempt:
                time.sleep(self._wait(attempt, limit_headers))
            try:
                response = self._client().post(s.endpoint(), json=body)
            except httpx.TimeoutException:
                why, limit_headers = f"no answer within {s.timeout_seconds:g}s", None
                continue
            except httpx.HTTPError as err:
                why, limit_headers = f"cannot connect to {s.base_url} ({type(err).__name__})", None
                continue
            status = response.status_code
            if status == 200:
                return _json_of(response)
            if status in (408, 409, 429) or status >= 500:
                why, limit_headers = f"HTTP {status} {_said(response)}".strip(), response.headers
                asked = retry_after(response.headers)
                if asked is not None and asked > s.retry_max_seconds:
                    why += f", asked to wait {asked:g}s"
                    break
                continue
            if "response_format" in body and status in (400, 422) and _refuses_schema(response):
                return None
            self._refused(status, _said(response))
        if limit_headers is not None and why.startswith("HTTP 429"):
            self._limit_reached(rate_limit(limit_headers, why))
        self._give_up(f"{why}, {s.max_retries + 1} attempts" if "asked to wait" not in why else why)

    def _wait(self, attempt: int, headers: Any) -> float:
        asked = retry_after(headers) if headers is not None else None
        if asked is not None:
            return asked
        return float(min(8.0, BACKOFF_SECONDS * 2 ** (attempt - 1)))

    def _refused(self, status: int, said: str) -> NoReturn:
        if status in (401, 403):
            where = f"the key from {self._key_source}" if self._key_source else "no key"
            raise AuthError(f"{self.SERVICE} at {self.settings.base_url} refused the request ({status}) with "
                            f"{where}: store its key with `loreline auth set --for openai-compatible` "
                            "(or set LORELINE_OPENAI_API_KEY)") from None
        hint = "; check distill.openai_base_url and distill.openai_model" if status == 404 else ""
        raise DistillError(f"{self.SERVICE} refused the request (HTTP {status}: {said or 'no reason given'}){hint}")


def _json_of(response: Any) -> dict[str, Any]:
    try:
        found = response.json()
    except ValueError:
        found = None
    if not isinstance(found, dict):
        raise ModelOutputError("the OpenAI-compatible server answered 200 with no JSON object")
    return found


def _said(response: Any) -> str:
    """The server's own one-line reason, from `{"error": {"message"}}`, `{"error": str}` or the text."""
    try:
        found = response.json()
    except ValueError:
        found = response.text
    if isinstance(found, dict):
        error = found.get("error", found.get("detail", found.get("message", "")))
        found = error.get("message", error) if isinstance(error, dict) else error
    flat = " ".join(str(found or "").split())
    return flat if len(flat) <= 200 else flat[:199] + "…"


def _refuses_schema(response: Any) -> bool:
    said = _said(response).lower()
    return any(word in said for word in ("response_format", "json_schema", "structured output", "grammar"))


# -- reading an answer ---------------------------------------------------------------------------


def structured(reply: Reply, tool: Mapping[str, Any]) -> dict[str, Any]:
    """The tool input a chat answer holds, held to the tool's schema; ModelOutputError saying
    what is wrong with it otherwise."""
    from .schema import problems

    choices = reply.body.get("choices")
    choice = choices[0] if isinstance(choices, list) and choices and isinstance(choices[0], dict) else {}
    found = choice.get("message")
    message: dict[str, Any] = found if isinstance(found, dict) else {}
    name = str(tool["name"])
    if choice.get("finish_reason") == "length":
        raise ModelOutputError(f"the {name} answer was cut at the output limit (raise distill.max_output_tokens)")
    text = _arguments(message, name) if reply.mode == TOOLS else message.get("content")
    if not isinstance(text, str) or not text.strip():
        raise ModelOutputError(f"the server's answer holds no {name} {'call' if reply.mode == TOOLS else 'text'}")
    try:
        value = json.loads(_THINKING.sub("", text))
    except ValueError:
        raise ModelOutputError(f"the {name} answer is not one JSON object (loose text or JSON)") from None
    if not isinstance(value, dict):
        raise ModelOutputError(f"the {name} answer is not a JSON object")
    schema = tool.get("input_schema", {})
    if "properties" in value and value.get("type") == "object" and "properties" not in schema.get("properties", {}):
        raise ModelOutputError(f"the model echoed the {name} schema back instead of answering")
    found = problems(value, schema)
    if found:
        raise ModelOutputError(f"the {name} answer breaks its schema: {found[0]}")
    return value


def _arguments(message: Mapping[str, Any], name: str) -> Any:
    calls = message.get("tool_calls")
    for call in calls if isinstance(calls, list) else []:
        function = call.get("function") if isinstance(call, dict) else None
        if isinstance(function, dict) and function.get("name") == name:
            arguments = function.get("arguments")
            return json.dumps(arguments) if isinstance(arguments, dict) else arguments
    return None


def usage_of(answer: Mapping[str, Any], sent: Mapping[str, Any]) -> Usage:
    """The tokens the response's `usage` reports; characters / 4 when it reports none."""
    raw = answer.get("usage")
    if not isinstance(raw, dict) or not isinstance(raw.get("prompt_tokens"), int):
        return Usage(1, len(json.dumps(sent)) // 4, 0, 0, len(json.dumps(answer.get("choices", ""))) // 4)
    details = raw.get("prompt_tokens_details")
    cached = details.get("cached_tokens") if isinstance(details, dict) else 0
    cached = cached if isinstance(cached, int) and not isinstance(cached, bool) else 0
    completion = raw.get("completion_tokens")
    completion = completion if isinstance(completion, int) and not isinstance(completion, bool) else 0
    return Usage(1, max(0, raw["prompt_tokens"] - cached), cached, 0, completion)


class ChatDistiller(ToolDistiller):
    """Satisfies `Distiller` and `Metered` through an OpenAI-compatible server."""

    name = NAME

    def __init__(self, client: ChatClient) -> None:
        super().__init__(client, client.settings.model)
