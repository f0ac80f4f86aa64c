"""The `codex` distiller: an OpenAI model through the user's own Codex CLI login.

`CodexClient.call_tool(tool, system, user)` satisfies `ToolCaller`, so the distill prompt,
the `record_memories` contract, evidence validation and the belief judge are the same as
for the Claude backends. Each call is one `codex exec` run, driven directly:
- the answer is structured output: `--output-schema` carries the tool's input schema (made
  strict, as the Responses API requires: every object closed, every property listed as
  required, the optional ones nullable), and the final agent message is that JSON object;
- the instructions replace Codex's own (`model_instructions_file`); the transcript is the
  prompt, on stdin;
- the run is sealed off: a read-only sandbox, no approvals, the shell, web search, apps,
  plugins, hooks and the other optional tools switched off, neither the user's config.toml
  nor their exec-policy rules loaded (`--ignore-user-config`, `--ignore-rules`; the login in
  `$CODEX_HOME` is still used), nothing persisted (`--ephemeral`: no rollout for discovery
  or `codex resume` to find), `LORELINE_OFF=1` in its environment and Loreline's own working
  directory;
- bounds: the run is cut (with its children) after `DEADLINE_FACTOR`× `distill.timeout_seconds`.
  A refused or expired login raises AuthError (one line; the import stops); a usage limit
  ("You've hit your usage limit. … try again at 6:12 AM.") or a rate limit ("… last status:
  429 Too Many Requests") raises UsageLimitError with the time it names, which starts the
  backend's cooldown (`limit_of`); any other failure raises RateLimitedError: the session is
  deferred, never lost, and every later call of the same client fails fast (one outage
  defers the rest of the run);
- the tokens `turn.completed` reports are counted by the attached `UsageMeter` (which also
  enforces the unattended daily cap) before the answer is used.

`login.login()` says whether, and how, Codex is logged in, without a network call.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ...config import Config
from ...errors import AuthError, ModelOutputError
from ...models import Limit, Usage
from ...distill import UsageMeter, cli_run, resets
from ...distill.anthropic import ToolDistiller
from ...distill.caller import MeteredCaller
from ...records import record
from .default_model import CODEX_DEFAULT

NAME = "codex"
DEADLINE_FACTOR = 3.0
#: Codex features that would offer the model a tool or run something of the user's
SWITCHED_OFF = ("shell_tool", "unified_exec", "apps", "plugins", "hooks", "multi_agent", "image_generation",
                "browser_use", "computer_use", "in_app_browser", "view_image", "skill_search", "goals",
                "sleep_tool", "tool_suggest", "shell_snapshot", "code_mode", "code_mode_host",
                "unbounded_connection_retries")
ANSWER_RULE = ("\n\nWhere these instructions say to call {tool}, reply instead with exactly that input as one "
               "JSON object matching the output schema, and nothing else.")


@record
class CodexSettings:
    cli: Path
    workdir: Path
    #: empty: Codex's own default model for the login
    model: str = ""
    #: empty: Codex's own endpoint for the login
    base_url: str = ""
    timeout_seconds: float = 90.0

    @classmethod
    def from_config(cls, cfg: Config, cli: Path, workdir: Path) -> CodexSettings:
        """distill.* settings; the endpoint is distill.codex_base_url, else $OPENAI_BASE_URL, else Codex's own."""
        base_url = cfg.get_str("distill.codex_base_url").strip() or os.environ.get("OPENAI_BASE_URL", "").strip()
        return cls(cli=cli, workdir=workdir, model=cfg.get_str("distill.codex_model").strip(), base_url=base_url,
                   timeout_seconds=cfg.get_float("distill.timeout_seconds"))


class CodexClient(MeteredCaller):
    """Structured answers from `codex exec` under the user's Codex login; satisfies `ToolCaller`."""

    SERVICE = "Codex"

    def __init__(self, settings: CodexSettings, *, meter: UsageMeter | None = None) -> None:
        super().__init__(meter)
        self.settings = settings

    def __repr__(self) -> str:
        return f"CodexClient(model={self.settings.model or CODEX_DEFAULT!r}, cli={str(self.settings.cli)!r})"

    def _answer(self, tool: Mapping[str, Any], system: str, user: str, max_tokens: int) -> tuple[Any, Usage]:
        run = self._run(tool, system, user)
        return run, run.usage

    def _accept(self, answer: Any, tool: Mapping[str, Any]) -> dict[str, Any]:
        try:
            found = json.loads(answer.message)
        except ValueError:
            found = None
        if not isinstance(found, dict):
            raise ModelOutputError(f"Codex's answer is not a {tool['name']} JSON object")
        return {k: v for k, v in found.items() if v is not None}

    def _max_output_tokens(self) -> int:
        return 0  # Codex sets its own output limit

    def _run(self, tool: Mapping[str, Any], system: str, user: str) -> Events:
        s = self.settings
        s.workdir.mkdir(parents=True, exist_ok=True, mode=0o700)
        schema = _write_once(s.workdir, "schema", json.dumps(strict_schema(tool["input_schema"]), sort_keys=True))
        rules = _write_once(s.workdir, "instructions", system + ANSWER_RULE.format(tool=tool["name"]))
        deadline = s.timeout_seconds * DEADLINE_FACTOR
        try:
            done = cli_run.run(argv(s, schema, rules), user, cwd=s.workdir, env={}, deadline=deadline)
        except (cli_run.TimedOut, cli_run.NotStarted) as err:
            self._give_up(str(err))
        events = read_events(done.stdout)
        if done.returncode != 0 or events.failure or not events.completed:
            detail = events.failure or cli_run.one_line(_last_line(done.stderr)) or f"exit status {done.returncode}"
            if refused(detail):
                raise AuthError("Codex's login was refused or has expired: run `codex login`, or pick another "
                                "backend with --backend") from None
            limit = limit_of(detail)
            if limit is not None:
                self._limit_reached(limit)
            self._give_up(f"Codex failed: {detail}")
        return events


@record(frozen=False)
class Events:
    message: str = ""
    usage: Usage = Usage(1, 0, 0, 0, 0)
    completed: bool = False
    failure: str = ""


def read_events(stdout: str) -> Events:
    """What `codex exec --json` reported: the last agent message, the usage, how the turn ended."""
    found = Events()
    last_error = ""
    for line in stdout.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if not isinstance(event, dict):
            continue
        kind = event.get("type")
        raw_item = event.get("item")
        item: dict[str, Any] = raw_item if isinstance(raw_item, dict) else {}
        if kind == "item.completed" and item.get("type") == "agent_message":
            found.message = str(item.get("text") or "")
        elif kind == "turn.completed":
            found.completed = True
            found.usage = usage_of(event.get("usage"))
        elif kind == "turn.failed":
            raw_error = event.get("error")
            error: dict[str, Any] = raw_error if isinstance(raw_error, dict) else {}
            found.failure = cli_run.one_line(str(error.get("message") or "the turn failed"))
        elif kind == "error":
            last_error = cli_run.one_line(str(event.get("message") or ""))
    if not found.completed and not found.failure:
        found.failure = last_error
    return found


def usage_of(raw: Any) -> Usage:
    u = raw if isinstance(raw, dict) else {}

    def count(key: str) -> int:
        value = u.get(key)
        return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0

    cached = count("cached_input_tokens")
    return Usage(1, max(0, count("input_tokens") - cached), cached, 0, count("output_tokens"))


def refused(detail: str) -> bool:
    lowered = detail.lower()
    return any(sign in lowered for sign in ("401", "403", "unauthorized", "not logged in", "codex login",
                                            "could not be refreshed", "credential expired", "sign in again"))


_USAGE_WORDS = re.compile(r"hit your usage limit|usage limit (?:reached|exceeded)|quota exceeded", re.IGNORECASE)
_RATE_WORDS = re.compile(r"\b429\b|too many requests|rate.limit", re.IGNORECASE)
_AT = re.compile(r"try again at (.*)", re.IGNORECASE)
_IN = re.compile(r"try again in (.*)", re.IGNORECASE)


def limit_of(detail: str) -> Limit | None:
    """The usage limit or rate limit Codex reported, with when it lifts ("try again at 6:12 AM",
    at Codex's local time, or "try again in 2 days 3 hours"); None for any other failure."""
    usage = _USAGE_WORDS.search(detail) is not None
    if not usage and _RATE_WORDS.search(detail) is None:
        return None
    at, wait = _AT.search(detail), _IN.search(detail)
    until = resets.clock(at.group(1)) if at is not None else resets.span(wait.group(1)) if wait is not None else None
    return Limit("usage limit" if usage else "rate limit", detail, until)


def argv(settings: CodexSettings, schema: Path, instructions: Path) -> list[str]:
    """The `codex exec` command line for one structured answer (the prompt goes on stdin)."""
    line = [str(settings.cli), "exec", "--json", "--output-schema", str(schema), "--sandbox", "read-only",
            "--ignore-user-config", "--ignore-rules", "--ephemeral", "--skip-git-repo-check",
            "--cd", str(settings.workdir), "-c", f"model_instructions_file={json.dumps(str(instructions))}",
            "-c", 'approval_policy="never"', "-c", 'web_search="disabled"']
    for feature in SWITCHED_OFF:
        line += ["--disable", feature]
    if settings.model:
        line += ["--model", settings.model]
    if settings.base_url:
        line += ["-c", f"openai_base_url={json.dumps(settings.base_url)}"]
    return [*line, "-"]


def strict_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """`schema` as structured outputs in strict mode take it: objects closed, all properties
    required, the ones that were optional nullable (a null is dropped from the answer)."""
    out = {k: v for k, v in schema.items()}
    if out.get("type") == "object" and isinstance(out.get("properties"), dict):
        required = set(out.get("required") or ())
        props = {}
        for name, sub in out["properties"].items():
            sub = strict_schema(sub)
            if name not in required and isinstance(sub.get("type"), str):
                sub["type"] = [sub["type"], "null"]
            props[name] = sub
        out["properties"] = props
        out["required"] = list(props)
        out["additionalProperties"] = False
    if isinstance(out.get("items"), dict):
        out["items"] = strict_schema(out["items"])
    return out


def _write_once(folder: Path, stem: str, text: str) -> Path:
    """A file named by its content, so concurrent runs never rewrite each other's."""
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    path = folder / f"{stem}-{digest}.{'json' if stem == 'schema' else 'md'}"
    if not path.exists():
        tmp = path.with_name(f".{path.name}.{os.getpid()}")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
    return path


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip() and "WARNING: proceeding" not in line]
    return lines[-1] if lines else ""


# -- whether Codex is logged in ------------------------------------------------------------------


class CodexDistiller(ToolDistiller):
    """Satisfies `Distiller` and `Metered` through the user's Codex."""

    name = NAME
    defer_unusable = True

    def __init__(self, client: CodexClient) -> None:
        super().__init__(client, client.settings.model or CODEX_DEFAULT)
