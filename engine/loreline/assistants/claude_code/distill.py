"""The `claude-code` distiller: Claude through the user's own Claude Code login.

`CodeClient.call_tool(tool, system, user)` satisfies `ToolCaller`, like the anthropic
backend's `ModelClient`, so the same distill prompt, `record_memories` contract and
evidence validation apply, and the belief judge (`classify_relation`, `judge_conflict`)
runs through it too. Each call is one `claude -p` run, driven directly (standard library
only, nothing to install beyond the `claude` the user already has):
- the answer is structured output: `--json-schema` carries the tool's input schema, Claude
  Code offers the model its `StructuredOutput` tool with that schema, checks the answer
  against it and returns it as `structured_output` in the `--output-format json` result;
  the system prompt says the tool named in the instructions is that one. A result without
  a structured answer is asked for once more by the distiller, then the chunk is deferred;
- the run is sealed off: no built-in tools (`--tools ""`), no user/project/local settings
  (`--setting-sources ""`: no hook of the user's, Loreline's included, fires), no MCP server
  (`--strict-mcp-config`), no slash commands, `LORELINE_OFF=1` in the child's environment,
  no session persistence (nothing in `~/.claude/projects`, nothing in `claude --resume`),
  and a Loreline-owned working directory that discovery skips should a transcript appear;
- bounds: the CLI retries a failing request at most `distill.max_retries` times and waits
  at most `distill.timeout_seconds` for one (`CLAUDE_CODE_MAX_RETRIES`, `API_TIMEOUT_MS`);
  the whole run is cut (with its children) at `DEADLINE_FACTOR`× that. A refused login
  raises AuthError (one line; the import stops); a usage limit or rate limit (the result's
  `api_error` "usage_limit_reached" or `api_error_status` 429, or its words: "You've hit your
  5-hour limit · resets 6:12am (UTC)", the older "Claude AI usage limit reached|<epoch>")
  raises UsageLimitError with the reset time it names, which starts the backend's cooldown
  (`limit_of`); any other failure raises RateLimitedError, so the session is deferred, never
  lost, and every later call of the same client fails fast the same way (one outage defers
  the rest of the run);
- the tokens the result reports are counted by the attached `UsageMeter` (which also
  enforces the unattended daily cap) before the answer is used.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NoReturn

from ...config import Config
from ...errors import AuthError, ModelOutputError
from ...models import Limit, Usage
from ...distill import UsageMeter, cli_run, resets
from ...distill.anthropic import ToolDistiller
from ...distill.caller import MeteredCaller
from ...records import record

NAME = "claude-code"
DEFAULT_MODEL = "claude-haiku-4-5"
DEADLINE_FACTOR = 3.0
#: the tool Claude Code offers for `--json-schema` answers
STRUCTURED = "StructuredOutput"
ANSWER_RULE = ("\n\nWhere these instructions say to call {tool}, call the StructuredOutput tool instead, once, "
               "with the same input and your complete answer. Write no other text.")


@record
class CodeSettings:
    cli: Path
    workdir: Path
    model: str = DEFAULT_MODEL
    max_output_tokens: int = 4096
    timeout_seconds: float = 90.0
    max_retries: int = 4
    #: turn 1 answers, turn 2 corrects an answer the schema refused
    max_turns: int = 3

    @classmethod
    def from_config(cls, cfg: Config, cli: Path, workdir: Path) -> CodeSettings:
        return cls(cli=cli, workdir=workdir, model=cfg.get_str("distill.claude_code_model"),
                   max_output_tokens=cfg.get_int("distill.max_output_tokens"),
                   timeout_seconds=cfg.get_float("distill.timeout_seconds"),
                   max_retries=cfg.get_int("distill.max_retries"))


class CodeClient(MeteredCaller):
    """Structured answers from the `claude` CLI under the user's login; satisfies `ToolCaller`."""

    SERVICE = "Claude Code"

    def __init__(self, settings: CodeSettings, *, meter: UsageMeter | None = None) -> None:
        super().__init__(meter)
        self.settings = settings

    def __repr__(self) -> str:
        return f"CodeClient(model={self.settings.model!r}, cli={str(self.settings.cli)!r})"

    def _answer(self, tool: Mapping[str, Any], system: str, user: str, max_tokens: int) -> tuple[Any, Usage]:
        result = self._run(tool, system, user, max_tokens)
        return result, usage_of(result)

    def _accept(self, answer: Any, tool: Mapping[str, Any]) -> dict[str, Any]:
        structured = answer.get("structured_output")
        if not isinstance(structured, dict):
            raise ModelOutputError(f"Claude Code returned no structured {tool['name']} answer "
                                   f"(result {answer.get('subtype', 'unknown')})")
        return structured

    def _max_output_tokens(self) -> int:
        return self.settings.max_output_tokens

    def _deadline(self) -> float:
        return self.settings.timeout_seconds * DEADLINE_FACTOR

    def _run(self, tool: Mapping[str, Any], system: str, user: str, max_tokens: int) -> dict[str, Any]:
        s = self.settings
        try:
            done = cli_run.run(argv(s, tool, system), user, cwd=s.workdir, env=child_env(s, max_tokens),
                               deadline=self._deadline())
        except cli_run.TimedOut as err:
            self._give_up(str(err))
        except cli_run.NotStarted as err:
            self._give_up(str(err))
        result = parse_result(done.stdout)
        if result is None:
            said = cli_run.one_line(done.stderr or done.stdout) or f"exit status {done.returncode}"
            if _refused(said):
                self._failed(None, said)
            limit = limit_of({"result": said})
            if limit is not None:
                self._limit_reached(limit)
            self._give_up(f"Claude Code failed: {said}")
        if result.get("is_error"):
            limit = limit_of(result)
            if limit is not None:
                self._limit_reached(limit)
            status = result.get("api_error_status")
            self._failed(status if isinstance(status, int) else None,
                         cli_run.one_line(str(result.get("result") or result.get("subtype") or "error")))
        return result

    def _failed(self, status: int | None, detail: str) -> NoReturn:
        if status in (401, 403) or _refused(detail):
            raise AuthError(f"Claude Code's login was refused ({status or 'no login'}): run `claude` and "
                            "/login, or pick another backend with --backend") from None
        self._give_up(f"HTTP {status}: {detail}" if status else detail)


def _refused(detail: str) -> bool:
    lowered = detail.lower()
    return "/login" in lowered or "not logged in" in lowered or "invalid api key" in lowered


_USAGE_WORDS = re.compile(r"usage limit|hit your [\w\s-]{0,40}limit|limit reached", re.IGNORECASE)
_RATE_WORDS = re.compile(r"rate.limit|too many requests|\(429\)", re.IGNORECASE)
_LEGACY_RESET = re.compile(r"limit reached\|(\d{9,11})\b")
_RESETS = re.compile(r"\bresets\b(.*)", re.IGNORECASE)


def limit_of(result: Mapping[str, Any]) -> Limit | None:
    """The usage limit or rate limit a result reports, with when it resets; None for any other
    failure. The reset comes from the older `|<epoch>` suffix, a `rate_limit_info.resetsAt`,
    or the words "resets 6:12am (UTC)" / "resets Dec 5, 3:59am (America/New_York)"."""
    text = cli_run.one_line(str(result.get("result") or ""), 300)
    usage = result.get("api_error") == "usage_limit_reached" or _USAGE_WORDS.search(text) is not None
    if not usage and result.get("api_error_status") != 429 and _RATE_WORDS.search(text) is None:
        return None
    return Limit("usage limit" if usage else "rate limit", text or "HTTP 429", _reset(text, result))


def _reset(text: str, result: Mapping[str, Any]) -> float | None:
    legacy = _LEGACY_RESET.search(text)
    if legacy is not None:
        return float(legacy.group(1))
    params = result.get("api_error_params")
    info = params.get("rate_limit_info") if isinstance(params, dict) else None
    stamp = info.get("resetsAt") if isinstance(info, dict) else None
    if isinstance(stamp, (int, float)) and not isinstance(stamp, bool):
        return float(stamp)
    said = _RESETS.search(text)
    return resets.clock(said.group(1)) if said is not None else None


def argv(settings: CodeSettings, tool: Mapping[str, Any], system: str) -> list[str]:
    """The `claude -p` command line for one structured answer (the prompt goes on stdin)."""
    return [str(settings.cli), "-p", "--output-format", "json",
            "--json-schema", json.dumps(tool["input_schema"], separators=(",", ":")),
            "--system-prompt", system + ANSWER_RULE.format(tool=tool["name"]),
            "--model", settings.model, "--max-turns", str(settings.max_turns),
            "--tools", "", "--setting-sources", "", "--strict-mcp-config", "--disable-slash-commands",
            "--no-session-persistence"]


def child_env(settings: CodeSettings, max_tokens: int) -> dict[str, str]:
    """What the `claude` child gets on top of our environment: capture off, bounds on."""
    return {"LORELINE_OFF": "1", "CLAUDE_CODE_MAX_RETRIES": str(settings.max_retries),
            "API_TIMEOUT_MS": str(int(settings.timeout_seconds * 1000)),
            "CLAUDE_CODE_MAX_OUTPUT_TOKENS": str(max_tokens)}


def parse_result(stdout: str) -> dict[str, Any] | None:
    """The `--output-format json` result object, or None when the CLI printed none."""
    for line in reversed(stdout.strip().splitlines()):
        try:
            found = json.loads(line)
        except ValueError:
            continue
        if isinstance(found, dict) and found.get("type") == "result":
            return found
    return None


def usage_of(result: Mapping[str, Any]) -> Usage:
    """The tokens a result reports (all the run's requests together) as one call."""
    raw = result.get("usage")
    u = raw if isinstance(raw, dict) else {}

    def count(key: str) -> int:
        value = u.get(key)
        return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0

    return Usage(1, count("input_tokens"), count("cache_read_input_tokens"), count("cache_creation_input_tokens"),
                 count("output_tokens"))


class CodeDistiller(ToolDistiller):
    """Satisfies `Distiller` and `Metered` through the user's Claude Code."""

    name = NAME
    defer_unusable = True

    def __init__(self, client: CodeClient) -> None:
        super().__init__(client, client.settings.model)
