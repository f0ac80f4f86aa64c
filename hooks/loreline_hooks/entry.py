"""`loreline-hook EVENT`: what Claude Code (and Codex, Gemini CLI) run on session events.

    SessionStart   print the project's memory block (hookSpecificOutput.additionalContext)
    UserPromptSubmit  print the few memories relevant to the prompt, if any (`recall`)
    BeforeAgent    Gemini CLI's name for the same moment (its payload carries `prompt` too)
    PreToolUse     print the memories tied to the command or file the tool call is about to
                   run or touch, once per session (`moment`); BeforeTool is Gemini CLI's name
    Stop           record the turn (one spool file)
    PreCompact     record, then start a detached `loreline worker --drain` if none runs
    SessionEnd     the same
    codex-notify   Codex's `notify` program: the JSON is the last argument, not stdin;
                   record, then start a worker (Codex has no end-of-session event)

Invariants:
- Exit status 0 and nothing on stderr, whatever happens (bad or huge input, missing fields
  of older clients, a full disk, a broken config): the assistant is never blocked. Failures
  go to a small error log in the state dir.
- `LORELINE_OFF=1` reads only the input, records the session as paused (one small file
  the first time, `loreline.capture.paused`, so no later import learns from it) and prints
  nothing; an excluded or not-included project returns after reading only the input and
  the config.
- While a backend cools down after its login or API reported a usage limit or rate limit
  (`loreline.capture.cooldown`), the next SessionStart adds one line for the person (the hook
  output's `systemMessage`, never the model's context): what said so and when it lifts; once
  per cooldown.
- Stdin is read up to `MAX_INPUT` bytes; the rest is discarded unread into memory. Only the
  fields in `capture.RECORD_FIELDS` are kept, each bounded; the assistant message is cut to
  `capture.MAX_MESSAGE_BYTES`. Redaction happens in the worker before anything is stored.

What differs between the assistants' payloads is in `payloads`, loaded only by the events
that need it.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time

from loreline import capture

from . import spool

MAX_INPUT = 1 << 20
MAX_DISCARD = 64 << 20
RECORDED = ("Stop", "PreCompact", "SessionEnd", "codex-notify")
STARTS_WORKER = ("PreCompact", "SessionEnd", "codex-notify")
PROMPT_EVENTS = ("UserPromptSubmit", "BeforeAgent")
TOOL_EVENTS = ("PreToolUse", "BeforeTool")
EXTRA_KEYS = ("source", "reason", "trigger", "turn_id")
_SANE_ID = re.compile(r"^[A-Za-z0-9._:-]{1,256}$")
_SALVAGE = re.compile(r'"(session_id|transcript_path|cwd|hook_event_name)"\s*:\s*"((?:[^"\\]|\\.){1,4096})"')

TYPE_CHECKING = False  # importing typing costs the hook milliseconds
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    event = args[0] if args else "?"
    try:
        _run(args)
    except BaseException as err:  # the hook must never fail the assistant
        spool.log_error(event, err)
    return 0


def _run(args: list[str]) -> None:
    event, payload = _input(args)
    if capture.opted_out():
        if payload is not None and event is not None:
            _pause(event, payload)
        return
    if payload is None or event is None:
        return
    settings = capture.load_settings_cached()
    cwd = _text(payload.get("cwd")) or os.environ.get("CLAUDE_PROJECT_DIR") or os.getcwd()
    if not capture.captured(settings, cwd):
        return
    if event == "SessionStart":
        _session_start(cwd, settings.session_start_chars, _text(payload.get("session_id"), 256),
                       _text(payload.get("source"), 40))
        if capture.prompt_recall(settings) == "meaning":
            _warm_up()
    elif event in PROMPT_EVENTS:
        if event == "BeforeAgent":
            from .payloads import prompt_words

            payload = prompt_words(payload)
        _prompt(payload, cwd, capture.prompt_recall(settings))
    elif event in TOOL_EVENTS:
        _tool(payload, cwd, event)
    elif event in RECORDED:
        _record(event, payload, cwd, settings)


def _input(args: list[str]) -> tuple[str | None, dict[str, Any] | None]:
    """The event name and its payload (from the last argument for Codex, else stdin)."""
    if args and (args[0] == "codex-notify" or args[-1].lstrip().startswith("{")):
        from . import payloads

        raw = args[-1] if args[-1] != payloads.NOTIFY else ""
        notify = _parse(raw.encode("utf-8", "replace")[:MAX_INPUT])
        return payloads.NOTIFY, (payloads.fields(notify) if notify is not None else None)
    payload = _parse(_read_stdin())
    if payload is None:
        return None, None
    event = args[0] if args else _text(payload.get("hook_event_name"))
    return event, payload


def _read_stdin() -> bytes:
    stream = sys.stdin
    if stream is None or stream.isatty():
        return b""
    data = stream.buffer.read(MAX_INPUT + 1)
    if len(data) <= MAX_INPUT:
        return data
    for _ in range(MAX_DISCARD // MAX_INPUT):  # let the writer finish; keep nothing
        if not stream.buffer.read(MAX_INPUT):
            break
    return data[:MAX_INPUT]


def _parse(raw: bytes) -> dict[str, Any] | None:
    """The JSON object in `raw`; for cut or broken input, the identity fields found in it."""
    if not raw.strip():
        return None
    try:
        value = json.loads(raw)
    except ValueError:
        return _salvage(raw)
    return value if isinstance(value, dict) else None


def _salvage(raw: bytes) -> dict[str, Any] | None:
    found: dict[str, Any] = {}
    for match in _SALVAGE.finditer(raw.decode("utf-8", "replace")):
        try:
            found.setdefault(match.group(1), json.loads(f'"{match.group(2)}"'))
        except ValueError:
            continue
    if not _SANE_ID.match(str(found.get("session_id", ""))):
        return None
    found["_salvaged"] = True
    return found


def _pause(event: str, payload: dict[str, Any]) -> None:
    """Record a session run under `LORELINE_OFF=1` as paused (its id and transcript only)."""
    session_id = _text(payload.get("session_id"), 256)
    if not session_id:
        return
    from loreline.capture import paused

    from .payloads import tool_of

    path = _text(payload.get("transcript_path"))
    paused.record(session_id, tool_of(event, path), os.path.expanduser(path) if path else None,
                  capture.utc_stamp(time.time()))


def _session_start(cwd: str, limit: int, session_id: str | None, source: str | None) -> None:
    from . import context

    try:
        text = context.output(cwd, limit, session_id, source)
    except Exception as err:  # a missing, busy or damaged store: inject nothing
        spool.log_error("SessionStart", err)
        if context.is_damage(err):  # one line for the person (never the model's context)
            _print(json.dumps({"systemMessage": context.DAMAGED}, ensure_ascii=False))
        return
    _print(_with_notice(text))


def _with_notice(text: str | None) -> str | None:
    """The SessionStart output with the cooldown's line for the person, when there is one to tell."""
    from loreline.capture import cooldown

    try:
        notice = cooldown.notice()
    except Exception as err:  # a broken state file must not cost the session its memories
        spool.log_error("SessionStart", err)
        return text
    if notice is None:
        return text
    output = json.loads(text) if text else {}
    output["systemMessage"] = notice
    return json.dumps(output, ensure_ascii=False)


def _warm_up() -> None:
    """Start the warm recall process for this session's prompts (after the block is printed)."""
    from . import warm

    try:
        warm.start()
    except Exception as err:  # no process: prompts are answered by words
        spool.log_error("SessionStart", err)


def _prompt(payload: dict[str, Any], cwd: str, how: str) -> None:
    from . import recall

    try:
        text = recall.output(payload, cwd, how)
    except Exception as err:  # a missing, busy or damaged store: add nothing to the prompt
        spool.log_error("UserPromptSubmit", err)
        return
    _print(text)


def _tool(payload: dict[str, Any], cwd: str, event: str) -> None:
    from . import moment

    try:
        text = moment.output(payload, cwd, event)
    except Exception as err:  # a missing, busy or damaged store: add nothing to the tool call
        spool.log_error(event, err)
        return
    _print(text)


def _print(text: str | None) -> None:
    if text:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()


def _record(event: str, payload: dict[str, Any], cwd: str, settings: capture.Settings) -> None:
    record = build_record(event, payload, cwd)
    if record is None:
        return
    if spool.write(record, settings) is not None and event in STARTS_WORKER:
        from . import launch

        launch.start_worker()


def build_record(event: str, payload: dict[str, Any], cwd: str) -> dict[str, Any] | None:
    """The bounded spool record of one event; None without a session id."""
    from .payloads import tool_of

    session_id = _text(payload.get("session_id"), 256)
    if not session_id:
        return None
    path = _text(payload.get("transcript_path"))
    message, cut = _message(payload.get("last_assistant_message"))
    nested = payload.get("extra")
    extra: dict[str, Any] = nested if isinstance(nested, dict) else payload
    return {
        "v": capture.RECORD_VERSION, "event": event, "tool": tool_of(event, path),
        "session_id": session_id, "transcript_path": os.path.expanduser(path) if path else None,
        "cwd": cwd, "received_at": capture.utc_stamp(time.time()),
        "last_assistant_message": message, "message_truncated": cut or bool(payload.get("_salvaged")),
        "extra": {k: _text(extra.get(k), 200) for k in EXTRA_KEYS if _text(extra.get(k), 200)},
    }


def _message(value: Any) -> tuple[str | None, bool]:
    if not isinstance(value, str) or not value.strip():
        return None, False
    data = value.encode("utf-8", "replace")
    if len(data) <= capture.MAX_MESSAGE_BYTES:
        return value, False
    return data[: capture.MAX_MESSAGE_BYTES].decode("utf-8", "ignore"), True


def _text(value: Any, limit: int = capture.MAX_FIELD_CHARS) -> str | None:
    if not isinstance(value, str):
        return None
    value = value.strip()
    return value if value and len(value) <= limit and "\x00" not in value else None


if __name__ == "__main__":
    sys.exit(main())
