"""The `gemini` distiller: a Gemini model through the user's own Gemini CLI login.

`GeminiClient.call_tool(tool, system, user)` satisfies `ToolCaller`, so the distill prompt,
the `record_memories` contract, evidence validation and the belief judge are the same as for
the other backends. Each call is one `gemini -p … -o json` run, driven directly:
- the answer is the reply text, which must be that tool's input as one JSON object (one
  fenced ```json block is unwrapped, nothing else is repaired); it is held to the tool's input
  schema (`distill.schema`), since Gemini CLI has no structured output of its own. An answer
  outside it is asked for once more by the distiller, then the chunk is deferred;
- the instructions replace Gemini CLI's system prompt (`GEMINI_SYSTEM_MD`, a file written for
  the run), with the schema and the rule to answer with JSON only; the transcript is the
  prompt, on stdin;
- the run is sealed off from the person's Gemini CLI: it runs in a home of its own
  (`GEMINI_CLI_HOME`, a private folder made for the run and removed after it), whose
  settings.json holds only the auth type, no tools (`tools.core: []`), hooks off, no MCP
  server, no extension (`-e none`), no context file (GEMINI.md is never read), no telemetry,
  `general.maxAttempts` from `distill.max_retries` (an administrator's system settings, as for
  every run of the CLI, still apply). A Google login's cached credentials are
  linked into it, never copied; an API key comes from the environment. So no hook of theirs
  fires and nothing of the run (its session file, its history, an error report: `TMPDIR` is the
  run's folder too) is left where discovery or `gemini --resume` would find it.
  `LORELINE_OFF=1` is in its environment, the working directory is an empty one of Loreline's
  (the CLI lists its files to the model);
- bounds: the run is cut (with its children) after `DEADLINE_FACTOR`× `distill.timeout_seconds`.
  A refused login (401/403, "API key not valid", no auth method) raises AuthError (one line; the
  import stops); a quota or rate limit (429, "Resource has been exhausted", "Quota exceeded",
  with "retry in 16h13m5s" when it says when) raises UsageLimitError, which starts the
  backend's cooldown; any other failure raises RateLimitedError: the session is deferred, never
  lost, and every later call of the same client fails fast;
- the tokens the result's `stats` report (prompt, cached, candidates and thoughts, over every
  model the run used) are counted by the attached `UsageMeter` before the answer is used.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
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
from . import folder
from .default_model import GEMINI_DEFAULT

NAME = "gemini"
DEADLINE_FACTOR = 3.0
ANSWER_RULE = ("\n\nWhere these instructions say to call {tool}, reply instead with exactly that input as one JSON "
               "object, and nothing else: no prose, no code fence. It must match this JSON schema:\n{schema}")
PROMPT = "Reply now with that one JSON object."
_FENCED = re.compile(r"^\s*```(?:json)?\s*\n(.*)\n\s*```\s*$", re.DOTALL)


@record
class GeminiSettings:
    cli: Path
    workdir: Path
    #: the login's auth type, which the run's own settings.json names (`login.login()`)
    auth: str = "gemini-api-key"
    model: str = GEMINI_DEFAULT
    timeout_seconds: float = 90.0
    max_retries: int = 4

    @classmethod
    def from_config(cls, cfg: Config, cli: Path, workdir: Path, auth: str) -> GeminiSettings:
        return cls(cli=cli, workdir=workdir, auth=auth, model=cfg.get_str("distill.gemini_model").strip()
                   or GEMINI_DEFAULT, timeout_seconds=cfg.get_float("distill.timeout_seconds"),
                   max_retries=cfg.get_int("distill.max_retries"))


class GeminiClient(MeteredCaller):
    """Answers from `gemini -p` under the user's Gemini CLI login; satisfies `ToolCaller`."""

    SERVICE = "Gemini CLI"

    def __init__(self, settings: GeminiSettings, *, meter: UsageMeter | None = None) -> None:
        super().__init__(meter)
        self.settings = settings

    def __repr__(self) -> str:
        return f"GeminiClient(model={self.settings.model!r}, cli={str(self.settings.cli)!r})"

    def _answer(self, tool: Mapping[str, Any], system: str, user: str, max_tokens: int) -> tuple[Any, Usage]:
        result = self._run(tool, system, user)
        return result, usage_of(result)

    def _accept(self, answer: Any, tool: Mapping[str, Any]) -> dict[str, Any]:
        return structured(str(answer.get("response") or ""), tool)

    def _max_output_tokens(self) -> int:
        return 0  # Gemini CLI sets its own output limit

    def _run(self, tool: Mapping[str, Any], system: str, user: str) -> dict[str, Any]:
        s = self.settings
        cwd, runs = s.workdir / "gemini-cwd", s.workdir / "gemini-runs"  # the CLI shows its cwd's files: none
        for folder_ in (cwd, runs):
            folder_.mkdir(parents=True, exist_ok=True, mode=0o700)
        run_home = Path(tempfile.mkdtemp(prefix="gemini-run-", dir=runs))
        try:
            env = sealed_home(run_home, s, system + ANSWER_RULE.format(
                tool=tool["name"], schema=json.dumps(tool["input_schema"], separators=(",", ":"))))
            try:
                done = cli_run.run(argv(s), user, cwd=cwd, env=env, deadline=s.timeout_seconds * DEADLINE_FACTOR)
            except (cli_run.TimedOut, cli_run.NotStarted) as err:
                self._give_up(str(err))
        finally:
            shutil.rmtree(run_home, ignore_errors=True)
        result = last_json(done.stdout) or last_json(done.stderr)
        if result is not None and isinstance(result.get("response"), str) and "error" not in result:
            return result
        found = result.get("error") if result is not None else None
        error: dict[str, Any] = found if isinstance(found, dict) else {}
        detail = cli_run.one_line(str(error.get("message") or _last_line(done.stderr) or
                                      f"exit status {done.returncode}"))
        code = error.get("code") if isinstance(error.get("code"), int) else None
        if code in (401, 403) or refused(detail):
            raise AuthError("Gemini CLI's login was refused or has expired: run `gemini` and sign in again (or fix "
                            "GEMINI_API_KEY), or pick another backend with --backend") from None
        limit = limit_of(detail, code)
        if limit is not None:
            self._limit_reached(limit)
        self._give_up(f"Gemini CLI failed: {detail}")


def sealed_home(run_home: Path, settings: GeminiSettings, instructions: str) -> dict[str, str]:
    """Make the run's private Gemini CLI home; the environment that points the CLI at it."""
    private = run_home / ".gemini"
    private.mkdir(mode=0o700)
    (run_home / "tmp").mkdir(mode=0o700)
    (private / "settings.json").write_text(json.dumps(sealed_settings(settings.auth, settings.max_retries)),
                                           encoding="utf-8")
    for name in folder.GOOGLE_LOGIN_FILES:  # linked, never copied: a refreshed token lands in theirs
        theirs = folder.home() / name
        if theirs.is_file():
            os.symlink(theirs, private / name)
    system = run_home / "system.md"
    system.write_text(instructions, encoding="utf-8")
    return {"GEMINI_CLI_HOME": str(run_home), "GEMINI_SYSTEM_MD": str(system), "TMPDIR": str(run_home / "tmp"),
            "NO_COLOR": "1"}


def sealed_settings(auth: str, max_retries: int) -> dict[str, Any]:
    """The run's settings.json: the login's auth type and nothing of the person's."""
    return {"security": {"auth": {"selectedType": auth}}, "tools": {"core": []}, "hooksConfig": {"enabled": False},
            "hooks": {}, "mcpServers": {}, "context": {"fileName": ["LORELINE-NO-CONTEXT.md"]},
            "skills": {"enabled": False}, "telemetry": {"enabled": False},
            "privacy": {"usageStatisticsEnabled": False},
            "general": {"maxAttempts": max(1, max_retries + 1), "enableAutoUpdate": False,
                        "enableAutoUpdateNotification": False, "checkpointing": {"enabled": False}}}


def argv(settings: GeminiSettings) -> list[str]:
    """The `gemini` command line for one answer (the transcript goes on stdin, before `-p`)."""
    return [str(settings.cli), "-p", PROMPT, "--output-format", "json", "--model", settings.model,
            "--extensions", "none", "--skip-trust"]


def last_json(text: str) -> dict[str, Any] | None:
    """The last JSON object printed at the start of a line (the CLI's result or error), or None."""
    decoder = json.JSONDecoder()
    starts = [m.start() for m in re.finditer(r"(?m)^\{", text)]
    for start in reversed(starts):
        try:
            found, _ = decoder.raw_decode(text, start)
        except ValueError:
            continue
        if isinstance(found, dict):
            return found
    return None


def structured(text: str, tool: Mapping[str, Any]) -> dict[str, Any]:
    """The tool input the reply text holds, held to the tool's schema."""
    from ...distill.schema import problems

    name = str(tool["name"])
    fenced = _FENCED.match(text)
    try:
        value = json.loads(fenced.group(1) if fenced else text)
    except ValueError:
        raise ModelOutputError(f"Gemini's answer is not a {name} JSON object") from None
    if not isinstance(value, dict):
        raise ModelOutputError(f"Gemini's answer is not a {name} JSON object")
    found = problems(value, tool.get("input_schema", {}))
    if found:
        raise ModelOutputError(f"Gemini's {name} answer breaks its schema: {found[0]}")
    return value


def usage_of(result: Mapping[str, Any]) -> Usage:
    """The tokens the result's stats report, over every model the run used, as one call."""
    stats = result.get("stats")
    models = stats.get("models") if isinstance(stats, dict) else None
    prompt = cached = output = 0
    for model in models.values() if isinstance(models, dict) else []:
        tokens = model.get("tokens") if isinstance(model, dict) else None
        if not isinstance(tokens, dict):
            continue
        prompt += _count(tokens, "prompt")
        cached += _count(tokens, "cached")
        output += _count(tokens, "candidates") + _count(tokens, "thoughts")
    return Usage(1, max(0, prompt - cached), cached, 0, output)


def _count(tokens: Mapping[str, Any], key: str) -> int:
    value = tokens.get(key)
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0


def refused(detail: str) -> bool:
    lowered = detail.lower()
    return any(sign in lowered for sign in ("api key not valid", "unauthenticated", "permission_denied",
                                            "please set an auth method", "failed to login", "invalid_grant",
                                            "environment variable not found"))


_QUOTA_WORDS = re.compile(r"quota (?:exceeded|exhausted)|exhausted your|daily limit|TerminalQuotaError", re.IGNORECASE)
_RATE_WORDS = re.compile(r"resource has been exhausted|resource_exhausted|too many requests|rate.limit|\b429\b",
                         re.IGNORECASE)
_RETRY_IN = re.compile(r"retry in ([0-9hms. ]+)", re.IGNORECASE)
_HMS = re.compile(r"(\d+(?:\.\d+)?)([hms])")


def limit_of(detail: str, code: int | None = None) -> Limit | None:
    """The quota or rate limit Gemini CLI reported, with when it lifts ("Please retry in 16h13m5s",
    "retry in 34.5s"); None for any other failure."""
    usage = _QUOTA_WORDS.search(detail) is not None
    if not usage and code != 429 and _RATE_WORDS.search(detail) is None:
        return None
    wait = _RETRY_IN.search(detail)
    words = " ".join(f"{n} {u}" for n, u in _HMS.findall(wait.group(1))) if wait else ""
    return Limit("usage limit" if usage else "rate limit", detail, resets.span(words) if words else None)


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip() and not line.startswith("    at ")]
    return lines[-1] if lines else ""


class GeminiDistiller(ToolDistiller):
    """Satisfies `Distiller` and `Metered` through the user's Gemini CLI."""

    name = NAME
    defer_unusable = True

    def __init__(self, client: GeminiClient) -> None:
        super().__init__(client, client.settings.model)
