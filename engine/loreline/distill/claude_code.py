"""The `claude-code` distiller: Claude through the user's own Claude Code login.

`CodeClient.call_tool(tool, system, user)` satisfies `ToolCaller`, like the anthropic
backend's `ModelClient`, so the same distill prompt, `record_memories` contract and
evidence validation apply, and the belief judge (`classify_relation`, `judge_conflict`)
runs through it too. Each call drives the `claude` CLI through the official
`claude-agent-sdk` (an optional extra, imported on the first call only):
- the tool is an in-process SDK MCP server tool (`mcp__loreline__<name>`): the SDK checks
  the arguments against the tool's JSON schema and hands them to us; the model is told to
  answer only by calling it (Claude Code cannot force a tool choice), and an answer
  without the call is asked for once more by the distiller, then is ModelOutputError;
- the run is sealed off: no built-in tools, only our tool allowed (`dontAsk` denies the
  rest), no user/project/local settings (so no hook of the user's, Loreline's included,
  fires), no other MCP server, `LORELINE_OFF=1` in the child's environment, no session
  persistence (nothing in `~/.claude/projects`, nothing in `claude --resume`), and a
  Loreline-owned working directory that discovery skips should a transcript appear anyway;
- bounds: the CLI retries a failing request at most `distill.max_retries` times and waits
  at most `distill.timeout_seconds` for one (`CLAUDE_CODE_MAX_RETRIES`, `API_TIMEOUT_MS`);
  the whole call is cut at `DEADLINE_FACTOR`× that. A failure other than a rejected login
  raises RateLimitedError, so the session is deferred, never lost, and every later call of
  the same client fails fast the same way (one outage defers the rest of the run);
- the tokens the result message reports are counted by the attached `UsageMeter` (which
  also enforces the unattended daily cap) before the answer is used.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

from ..config import Config
from ..errors import AuthError, ModelOutputError
from ..models import Usage
from . import UsageMeter
from .anthropic import ToolDistiller
from .caller import MeteredCaller

NAME = "claude-code"
SERVER = "loreline"
DEFAULT_MODEL = "claude-haiku-4-5"
DEADLINE_FACTOR = 3.0
ANSWER_RULE = ("\n\nAnswer only by calling the {tool} tool, once, with your complete answer. "
               "Write no other text and call no other tool.")


def tool_name(name: str) -> str:
    """The name Claude Code gives our in-process tool."""
    return f"mcp__{SERVER}__{name}"


@dataclass(frozen=True, slots=True)
class CodeSettings:
    cli: Path
    workdir: Path
    model: str = DEFAULT_MODEL
    max_output_tokens: int = 4096
    timeout_seconds: float = 90.0
    max_retries: int = 4
    #: turn 1 calls the tool, turn 2 ends (or corrects an answer the schema refused)
    max_turns: int = 3

    @classmethod
    def from_config(cls, cfg: Config, cli: Path, workdir: Path) -> CodeSettings:
        return cls(cli=cli, workdir=workdir, model=cfg.get_str("distill.claude_code_model"),
                   max_output_tokens=cfg.get_int("distill.max_output_tokens"),
                   timeout_seconds=cfg.get_float("distill.timeout_seconds"),
                   max_retries=cfg.get_int("distill.max_retries"))


@dataclass(slots=True)
class _Outcome:
    answers: list[dict[str, Any]] = field(default_factory=list)
    result: dict[str, Any] = field(default_factory=dict)


class CodeClient(MeteredCaller):
    """Tool calls through the `claude` CLI and the user's login; satisfies `ToolCaller`."""

    SERVICE = "Claude Code"

    def __init__(self, settings: CodeSettings, *, meter: UsageMeter | None = None) -> None:
        self.settings = settings
        self.meter = meter
        self._down: str | None = None

    def __repr__(self) -> str:
        return f"CodeClient(model={self.settings.model!r}, cli={str(self.settings.cli)!r})"

    def _answer(self, tool: Mapping[str, Any], system: str, user: str, max_tokens: int) -> tuple[Any, Usage]:
        outcome = self._run(tool, system, user, max_tokens)
        return outcome, usage_of(outcome.result)

    def _accept(self, answer: Any, tool: Mapping[str, Any]) -> dict[str, Any]:
        if not answer.answers:
            raise ModelOutputError(f"the model answered without calling {tool['name']} "
                                   f"(result {answer.result.get('subtype', 'unknown')})")
        return answer.answers[0]

    def _max_output_tokens(self) -> int:
        return self.settings.max_output_tokens

    def _run(self, tool: Mapping[str, Any], system: str, user: str, max_tokens: int) -> _Outcome:
        import anyio

        self.settings.workdir.mkdir(parents=True, exist_ok=True, mode=0o700)
        try:
            return anyio.run(self._ask, tool, system, user, max_tokens)
        except TimeoutError:
            self._give_up(f"no answer within {self._deadline():g}s")

    def _deadline(self) -> float:
        return self.settings.timeout_seconds * DEADLINE_FACTOR

    async def _ask(self, tool: Mapping[str, Any], system: str, user: str, max_tokens: int) -> _Outcome:
        import anyio
        from claude_agent_sdk import ClaudeSDKError, ResultError, ResultMessage, query

        outcome = _Outcome()
        options = self._options(tool, system, max_tokens, outcome)
        try:
            with anyio.fail_after(self._deadline()):
                async for message in query(prompt=user, options=options):
                    if isinstance(message, ResultMessage):
                        outcome.result = result_dict(message)
        except ResultError as err:
            outcome.result = outcome.result or dict(err.data)
            if not outcome.answers:
                self._failed(err.api_error_status, _one_line(err.result or "; ".join(err.errors) or str(err)))
        except ClaudeSDKError as err:
            if not outcome.answers:
                self._give_up(f"Claude Code failed: {_one_line(str(err))}")
        if outcome.result.get("is_error") and not outcome.answers:
            self._failed(outcome.result.get("api_error_status"), str(outcome.result.get("subtype")))
        return outcome

    def _options(self, tool: Mapping[str, Any], system: str, max_tokens: int, outcome: _Outcome) -> Any:
        from claude_agent_sdk import ClaudeAgentOptions, SdkMcpTool, create_sdk_mcp_server

        async def record(arguments: dict[str, Any]) -> dict[str, Any]:
            outcome.answers.append(dict(arguments))
            return {"content": [{"type": "text", "text": "Recorded."}]}

        name = str(tool["name"])
        server = create_sdk_mcp_server(SERVER, tools=[
            SdkMcpTool(name, str(tool.get("description", "")), dict(tool["input_schema"]), record)])
        s = self.settings
        return ClaudeAgentOptions(
            system_prompt=system + ANSWER_RULE.format(tool=tool_name(name)), model=s.model,
            tools=[], allowed_tools=[tool_name(name)], permission_mode="dontAsk",
            mcp_servers={SERVER: server}, strict_mcp_config=True, setting_sources=[],
            max_turns=s.max_turns, cwd=s.workdir, cli_path=s.cli, env=child_env(s, max_tokens),
            extra_args={"no-session-persistence": None, "disable-slash-commands": None})

    def _failed(self, status: int | None, detail: str) -> NoReturn:
        if status in (401, 403) or "/login" in detail or "not logged in" in detail.lower():
            raise AuthError(f"Claude Code's login was refused ({status or 'no login'}): run `claude` and "
                            "/login, or pick another backend with --backend") from None
        self._give_up(f"HTTP {status}: {detail}" if status else detail)



def child_env(settings: CodeSettings, max_tokens: int) -> dict[str, str]:
    """What the `claude` child gets on top of our environment: capture off, bounds on."""
    return {"LORELINE_OFF": "1", "CLAUDE_CODE_MAX_RETRIES": str(settings.max_retries),
            "API_TIMEOUT_MS": str(int(settings.timeout_seconds * 1000)),
            "CLAUDE_CODE_MAX_OUTPUT_TOKENS": str(max_tokens)}


def result_dict(message: Any) -> dict[str, Any]:
    return {"subtype": message.subtype, "is_error": message.is_error, "usage": message.usage or {},
            "total_cost_usd": message.total_cost_usd, "num_turns": message.num_turns,
            "api_error_status": message.api_error_status}


def usage_of(result: Mapping[str, Any]) -> Usage:
    """The tokens a result message reports (all the run's requests together) as one call."""
    raw = result.get("usage")
    u = raw if isinstance(raw, dict) else {}

    def count(key: str) -> int:
        value = u.get(key)
        return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0

    return Usage(1, count("input_tokens"), count("cache_read_input_tokens"), count("cache_creation_input_tokens"),
                 count("output_tokens"))


def _one_line(text: str, limit: int = 200) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


class CodeDistiller(ToolDistiller):
    """Satisfies `Distiller` and `Metered` through the user's Claude Code."""

    name = NAME

    def __init__(self, client: CodeClient) -> None:
        super().__init__(client, client.settings.model)
