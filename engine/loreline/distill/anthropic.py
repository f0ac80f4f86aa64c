"""The `anthropic` distiller: Claude through the official SDK, one forced tool call per chunk.

`ModelClient.call_tool(tool, system, user)` is the one network primitive, shared with the
belief pipeline's tools (`classify_relation`, `judge_conflict`); it satisfies `ToolCaller`:
- the answer is forced (`tool_choice` names the tool); the instructions are one system
  block marked for prompt caching; the transcript goes in the user message only;
- retries are the SDK's own (`distill.max_retries`: 408/409/429/5xx, timeouts and
  connection errors, exponential backoff with jitter, `retry-after`/`retry-after-ms` and
  `x-should-retry` honoured). Two rules are ours: a `retry-after` longer than
  `distill.retry_max_seconds` is not waited out (a middleware sees it on the attempt and
  defers at once), and after the last retry the call raises RateLimitedError so the
  caller defers the work instead of losing it, and every later call of the same client
  fails fast the same way (the breaker): one outage defers the rest of the run without
  waiting it out session by session. A 429 that ends the call is a rate limit
  (UsageLimitError): its `retry-after`, else the latest `anthropic-ratelimit-*-reset` time,
  says when the backend's cooldown lifts (`usage.Meter.limited`);
- 401/403 raise AuthError naming where the key came from; the key itself never appears in
  a message;
- each completed call is counted by the attached `UsageMeter` (which also enforces the
  unattended daily cap) before its answer is used.

`AnthropicDistiller` adds the distill prompt (package data, `prompts/distill.md`) and the
`record_memories` contract. An answer outside the contract is asked for once more, then
becomes ModelOutputError; the pipeline counts it and moves on.

The SDK takes about two seconds to import, so it is imported on the first call, never when
this module is.
"""

from __future__ import annotations

import email.utils
import functools
import json
import re
from collections.abc import Mapping
from datetime import UTC, datetime
from importlib import resources
from typing import Any

from ..config import Config
from ..errors import AuthError, DistillError, ModelOutputError, RateLimitedError
from ..models import KINDS, Candidate, Chunk, Evidence, Limit, Usage
from ..records import record
from . import ToolCaller, UsageMeter
from .caller import MeteredCaller

NAME = "anthropic"
PROMPT_VERSION = "2"
DEFAULT_MODEL = "claude-haiku-4-5"
MAX_MEMORIES = 100
#: a memory's retrieval cues: at most this many questions and topic words, each this long
MAX_CUE_QUESTIONS = 4
MAX_CUE_TOPICS = 6
MAX_CUE_CHARS = 120

RECORD_MEMORIES: dict[str, Any] = {
    "name": "record_memories",
    "description": "Record the durable memories this transcript excerpt supports, each with the transcript "
                   "lines and exact quotes that back it. Call it with an empty list when there are none.",
    "input_schema": {
        "type": "object",
        "properties": {
            "memories": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "kind": {"type": "string", "enum": list(KINDS)},
                        "text": {"type": "string", "description": "one self-contained idea"},
                        "evidence": {
                            "type": "array",
                            "minItems": 1,
                            "items": {
                                "type": "object",
                                "properties": {
                                    "line": {"type": "integer", "description": "a line number from a label"},
                                    "quote": {"type": "string", "description": "verbatim text of that turn"},
                                },
                                "required": ["line", "quote"],
                            },
                        },
                        "asked": {
                            "type": "boolean",
                            "description": "true only when the developer explicitly asked to keep this "
                                           "(optional)",
                        },
                        "questions": {
                            "type": "array", "maxItems": MAX_CUE_QUESTIONS,
                            "items": {"type": "string"},
                            "description": "a few short questions a developer would ask that this memory "
                                           "answers, in everyday words (optional)",
                        },
                        "topics": {
                            "type": "array", "maxItems": MAX_CUE_TOPICS,
                            "items": {"type": "string"},
                            "description": "the memory's topic words: what kind of thing it is about, e.g. "
                                           "'python package manager', 'test runner' (optional)",
                        },
                    },
                    "required": ["kind", "text", "evidence"],
                },
            },
        },
        "required": ["memories"],
    },
}


@record
class Settings:
    model: str = DEFAULT_MODEL
    base_url: str | None = None
    max_output_tokens: int = 4096
    timeout_seconds: float = 90.0
    max_retries: int = 4
    retry_max_seconds: float = 30.0

    @classmethod
    def from_config(cls, cfg: Config) -> Settings:
        """distill.* settings; the endpoint is distill.base_url, else $ANTHROPIC_BASE_URL."""
        from .. import environment  # background work never goes through the assistant's endpoint

        base_url = cfg.get_str("distill.base_url").strip() or environment.environ().get("ANTHROPIC_BASE_URL", "").strip()
        return cls(
            model=cfg.get_str("distill.model"),
            base_url=base_url or None,
            max_output_tokens=cfg.get_int("distill.max_output_tokens"),
            timeout_seconds=cfg.get_float("distill.timeout_seconds"),
            max_retries=cfg.get_int("distill.max_retries"),
            retry_max_seconds=cfg.get_float("distill.retry_max_seconds"),
        )


class TooLongToWait(RateLimitedError):
    """The server asked for a longer wait than `retry_max_seconds`: defer, do not sleep."""

    def __init__(self, reason: str, seconds: float, status: int = 0, headers: Mapping[str, str] | None = None) -> None:
        super().__init__(reason)
        self.reason, self.seconds, self.status = reason, seconds, status
        self.headers: Mapping[str, str] = headers or {}


class ModelClient(MeteredCaller):
    """Forced tool calls against a Messages API endpoint; the SDK retries, we defer."""

    SERVICE = "the Anthropic API"

    def __init__(self, settings: Settings, key: str, key_source: str, *, meter: UsageMeter | None = None) -> None:
        super().__init__(meter)
        self.settings = settings
        self._key = key
        self._key_source = key_source
        self._sdk: Any = None

    def __repr__(self) -> str:  # never show the key
        return f"ModelClient(model={self.settings.model!r}, key from {self._key_source})"

    def _answer(self, tool: Mapping[str, Any], system: str, user: str, max_tokens: int) -> tuple[Any, Usage]:
        message = self._send(request(tool, system, user, self.settings.model, max_tokens))
        return message, _usage(message)

    def _accept(self, answer: Any, tool: Mapping[str, Any]) -> dict[str, Any]:
        return _tool_input(answer, str(tool["name"]))

    def _max_output_tokens(self) -> int:
        return self.settings.max_output_tokens

    def _send(self, body: dict[str, Any]) -> Any:
        sdk, errors = self._client()
        try:
            return sdk.messages.create(**body)
        except TooLongToWait as err:
            if err.status == 429:
                self._limit_reached(rate_limit(err.headers, f"HTTP 429, asked to wait {err.seconds:g}s"))
            self._give_up(f"{err.reason}, asked to wait {err.seconds:g}s")
        except errors.AnthropicError as err:
            why = self._classify(err, errors)
            if isinstance(err, errors.APIStatusError) and int(err.status_code) == 429:
                said = _one_line(getattr(err, "api_message", None) or why)
                self._limit_reached(rate_limit(err.response.headers, f"HTTP 429: {said}"))
            self._give_up(f"{why}, {self.settings.max_retries + 1} attempts")

    def _client(self) -> tuple[Any, Any]:
        import anthropic

        if self._sdk is None:
            self._sdk = anthropic.Anthropic(api_key=self._key, base_url=self.settings.base_url,
                                            max_retries=self.settings.max_retries,
                                            timeout=self.settings.timeout_seconds, middleware=[self._wait_cap])
        return self._sdk, anthropic

    def _wait_cap(self, req: Any, call_next: Any) -> Any:
        """SDK middleware, once per attempt: a retry-after beyond our cap ends the call now."""
        response = call_next(req)
        asked = retry_after(response.headers) if response.status_code == 429 or response.status_code >= 500 else None
        if asked is not None and asked > self.settings.retry_max_seconds:
            raise TooLongToWait(f"HTTP {response.status_code}", asked, response.status_code, response.headers)
        return response

    def _classify(self, err: Exception, errors: Any) -> str:
        """Why a call failed after the SDK's retries, or raise the error the caller should see."""
        if isinstance(err, errors.APITimeoutError):
            return f"no answer within {self.settings.timeout_seconds:g}s"
        if isinstance(err, errors.APIConnectionError):
            return "cannot connect"
        if not isinstance(err, errors.APIStatusError):
            raise DistillError(f"the Anthropic SDK failed: {type(err).__name__}") from None
        status = int(err.status_code)
        if status in (401, 403):
            raise AuthError(auth_message(status, self._key_source)) from None
        if status in (408, 409, 429) or status >= 500:
            return f"HTTP {status} {_error_type(err)}".strip()
        detail = _one_line(getattr(err, "api_message", None) or _error_type(err) or "")
        hint = "; check distill.model and distill.base_url" if status == 404 else ""
        raise DistillError(f"the Anthropic API refused the request (HTTP {status}: {detail}){hint}") from None


def auth_message(status: int, source: str) -> str:
    fix = "run `loreline auth set` to store a valid key"
    if source != "the OS keyring":
        fix += f" (or fix {source})"
    return f"the Anthropic API rejected the key ({status}) from {source}; {fix}"


def request(tool: Mapping[str, Any], system: str, user: str, model: str, max_tokens: int) -> dict[str, Any]:
    """The Messages API body: cached instructions, the forced tool, the data as the user turn."""
    return {
        "model": model,
        "max_tokens": max_tokens,
        "system": [{"type": "text", "text": system, "cache_control": {"type": "ephemeral"}}],
        "tools": [dict(tool)],
        "tool_choice": {"type": "tool", "name": tool["name"]},
        "messages": [{"role": "user", "content": user}],
    }


def retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds the server asked us to wait (`retry-after-ms`, `retry-after` seconds or date)."""
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


#: the rate limit headers that name when a limit resets (RFC 3339 times)
RESET_HEADERS = ("anthropic-ratelimit-requests-reset", "anthropic-ratelimit-tokens-reset",
                 "anthropic-ratelimit-input-tokens-reset", "anthropic-ratelimit-output-tokens-reset")


def rate_limit(headers: Mapping[str, str], said: str) -> Limit:
    """A 429 as a rate limit: it lifts after `retry-after`, else at the latest reset time the
    rate limit headers name, else when the cooldown's default says (until None)."""
    wait = retry_after(headers)
    if wait is not None:
        return Limit("rate limit", said, datetime.now(UTC).timestamp() + wait)
    resets = []
    for name in RESET_HEADERS:
        try:
            resets.append(datetime.fromisoformat(str(headers.get(name) or "").replace("Z", "+00:00")).timestamp())
        except ValueError:
            continue
    return Limit("rate limit", said, max(resets) if resets else None)


def _usage(message: Any) -> Usage:
    u = message.usage
    return Usage(1, int(u.input_tokens or 0), int(u.cache_read_input_tokens or 0),
                 int(u.cache_creation_input_tokens or 0), int(u.output_tokens or 0))


def _tool_input(message: Any, name: str) -> dict[str, Any]:
    for block in message.content:
        if getattr(block, "type", None) == "tool_use" and getattr(block, "name", None) == name:
            if isinstance(block.input, dict):
                return block.input
    raise ModelOutputError(f"the model answered without calling {name} (stop reason {message.stop_reason})")


def _error_type(err: Any) -> str:
    kind = getattr(err, "type", None)
    return str(kind) if kind else ""


def _one_line(text: str, limit: int = 160) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


# ---- the distiller ---------------------------------------------------------------------------


@functools.cache
def instructions() -> str:
    """The distill prompt, shipped as package data."""
    return resources.files("loreline.distill").joinpath("prompts/distill.md").read_text(encoding="utf-8")


def user_message(chunk: Chunk) -> str:
    from .. import asked

    note = ""
    if chunk.context_until >= chunk.line_start:
        note = (f"Lines up to L{chunk.context_until} were already processed: they are context only; "
                "cite at least one later line.\n")
    note += asked.note_for_model(asked.in_chunk(chunk))
    if chunk.said_again:
        lines = ", ".join(f"L{line}" for line in chunk.said_again)
        note += (f"The developer's words at {lines} say again what they said in an earlier session of this "
                 "project: a wish said twice holds beyond this task.\n")
    return (f'<transcript lines="L{chunk.line_start}-L{chunk.line_end}">\n{chunk.text}\n</transcript>\n\n'
            f"{note}Call record_memories with the durable memories this excerpt supports "
            "(an empty list is a valid answer).")


class ToolDistiller:
    """The distill prompt and the `record_memories` contract over any `ToolCaller`.

    Satisfies `Distiller` and `Metered`; each backend names itself (`name`), so the policy,
    and with it the replay key, differs between backends and models."""

    name = NAME
    #: a login backend defers a chunk whose answers broke the contract twice (its CLI may have
    #: changed under it; the next run retries); an API backend counts it and moves on
    defer_unusable = False

    def __init__(self, client: ToolCaller, model: str) -> None:
        self.client = client
        self.model = model
        self.policy = f"{self.name}/{model}/distill-v{PROMPT_VERSION}"

    def attach(self, meter: UsageMeter) -> None:
        self.client.meter = meter

    def estimate(self, chunk: Chunk) -> int:
        sent = len(instructions()) + len(json.dumps(RECORD_MEMORIES)) + len(user_message(chunk))
        return sent // 4

    def distill(self, chunk: Chunk) -> list[Candidate]:
        user = user_message(chunk)
        failure = ModelOutputError("no answer")
        for _ in range(2):  # one more try when the answer breaks the contract
            try:
                answer, _spent = self.client.call_tool(RECORD_MEMORIES, instructions(), user)
                return parse_memories(answer, self.policy)
            except ModelOutputError as err:
                failure = err
        if self.defer_unusable:
            raise RateLimitedError(f"{self.name} gave no usable answer twice ({failure}); "
                                   "deferred: the next run retries")
        raise failure


class AnthropicDistiller(ToolDistiller):
    """Claude through the Messages API with an API key."""

    def __init__(self, client: ModelClient) -> None:
        super().__init__(client, client.settings.model)


_LINE = re.compile(r"^\s*L?(\d{1,9})\s*$")


def parse_memories(answer: Mapping[str, Any], extractor: str) -> list[Candidate]:
    """The record_memories input as candidates; anything off the contract is ModelOutputError.

    Only the shape is checked here (kinds, lines and quotes are the evidence stage's job), so
    a well-formed but wrong claim is rejected *and counted by its reason* downstream.
    """
    memories = answer.get("memories")
    if not isinstance(memories, list) or len(memories) > MAX_MEMORIES:
        raise ModelOutputError("record_memories input has no memories list")
    return [_candidate(item, extractor) for item in memories]


def _candidate(item: Any, extractor: str) -> Candidate:
    if not isinstance(item, dict):
        raise ModelOutputError("a memory is not an object")
    kind, text, cited = item.get("kind"), item.get("text"), item.get("evidence")
    if not isinstance(kind, str) or not isinstance(text, str) or not isinstance(cited, list):
        raise ModelOutputError("a memory lacks kind, text or evidence")
    return Candidate(kind.strip().lower(), text.strip(), tuple(_evidence(e) for e in cited), extractor,
                     cues=cues(item.get("questions"), item.get("topics")), asked=item.get("asked") is True)


def cues(asked: Any, topics: Any) -> str:
    """A memory's retrieval cues from the optional `questions` and `topics` of its record: each
    question a line, then the topic words on one line; whatever is not a short string is left
    out (cues are optional: a malformed one costs the memory nothing)."""
    def strings(value: Any, most: int) -> list[str]:
        found = [" ".join(v.split()) for v in value if isinstance(v, str)] if isinstance(value, list) else []
        return [v for v in found if v and len(v) <= MAX_CUE_CHARS][:most]

    lines = strings(asked, MAX_CUE_QUESTIONS)
    words = strings(topics, MAX_CUE_TOPICS)
    return "\n".join([*lines, *([", ".join(words)] if words else [])])


def _evidence(item: Any) -> Evidence:
    if not isinstance(item, dict) or not isinstance(item.get("quote"), str):
        raise ModelOutputError("an evidence item lacks a quote")
    line = item.get("line")
    if isinstance(line, bool) or not isinstance(line, (int, str)):
        raise ModelOutputError("an evidence item lacks a line number")
    if isinstance(line, str):
        match = _LINE.match(line)
        if match is None:
            raise ModelOutputError("an evidence line is not a number")
        line = int(match.group(1))
    return Evidence(line, item["quote"])
