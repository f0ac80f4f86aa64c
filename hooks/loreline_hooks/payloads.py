"""What the hook knows about each assistant's payloads: the one module of the hook part that
names them (the engine's `loreline.assistants` is too heavy to import on every turn).

- Claude Code sends its hook payloads on stdin; it is the assistant a payload is taken for
  when nothing says otherwise.
- Gemini CLI sends the same shape; its prompt event is `BeforeAgent`, whose `prompt` carries the
  context earlier hooks added (`prompt_words` leaves it out), and its transcripts are
  `…/chats/session-*.jsonl`.
- A tool call about to run (Claude Code's and Codex's PreToolUse, Gemini CLI's BeforeTool)
  carries `tool_name` and `tool_input`: a shell tool's `command` (Claude Code's Bash, Codex's
  shell, Gemini CLI's run_shell_command; Codex may send its argv as a list), a file tool's
  `file_path` (Claude Code, Gemini CLI), `notebook_path`, `absolute_path` (Gemini CLI's
  read_file) or `path` (a search's folder). `tool_call` reads them all the same way.
- Codex's `notify` program gets `{type: "agent-turn-complete", thread-id, turn-id, cwd, client,
  input-messages[], last-assistant-message}` as the last command-line argument (`NOTIFY`).
  The thread id is the session id and the suffix of the rollout file's name
  (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<thread-id>.jsonl`). The hook looks only in
  today's and yesterday's folders (cheap); when the rollout is older the record carries no path
  and the worker searches the whole tree.
"""

from __future__ import annotations

import os
import re
import time

#: the event name Codex's `notify` program runs the hook with
NOTIFY = "codex-notify"
TURN_COMPLETE = "agent-turn-complete"
HOOK_CONTEXT = ("<hook_context>", "</hook_context>")
_THREAD_ID = re.compile(r"^[0-9A-Za-z][0-9A-Za-z-]{7,63}$")

TYPE_CHECKING = False  # importing typing costs the hook milliseconds
if TYPE_CHECKING:
    from typing import Any


def codex_home() -> str:
    return os.path.expanduser(os.environ.get("CODEX_HOME", "").strip() or "~/.codex")


def tool_of(event: str, path: str | None) -> str:
    """The assistant that sent the event, from the event and its transcript's file name."""
    name = os.path.basename(path) if path else ""
    if event == NOTIFY or name.startswith("rollout-"):
        return "codex"
    if name.startswith("session-") and os.path.basename(os.path.dirname(path or "")) == "chats":
        return "gemini"
    return "claude-code"


def prompt_words(payload: dict[str, Any]) -> dict[str, Any]:
    """Gemini CLI's BeforeAgent `prompt` is the whole request: the context hooks added earlier
    (SessionStart's block, as `<hook_context>…</hook_context>`) comes before the person's
    words. Only their words choose memories."""
    prompt = payload.get("prompt")
    if not isinstance(prompt, str) or HOOK_CONTEXT[0] not in prompt:
        return payload
    kept, at = [], 0
    while (start := prompt.find(HOOK_CONTEXT[0], at)) >= 0:
        kept.append(prompt[at:start])
        end = prompt.find(HOOK_CONTEXT[1], start)
        at = len(prompt) if end < 0 else end + len(HOOK_CONTEXT[1])
    kept.append(prompt[at:])
    return {**payload, "prompt": "".join(kept).strip()}


PATH_KEYS = ("file_path", "notebook_path", "absolute_path", "path")
MAX_TOOL_TEXT = 4000


def tool_call(payload: dict[str, Any]) -> tuple[str | None, list[str]]:
    """(the shell command a tool call runs, the files it names) from a PreToolUse or BeforeTool
    payload; (None, []) for anything else."""
    given = payload.get("tool_input")
    if not isinstance(given, dict):
        return None, []
    command = given.get("command")
    if isinstance(command, list) and all(isinstance(w, str) for w in command):
        import shlex

        command = " ".join(command[2:]) if command[:2] in (["bash", "-lc"], ["bash", "-c"], ["sh", "-c"]) \
            else shlex.join(command)
    paths = [v for k in PATH_KEYS if isinstance(v := given.get(k), str) and 0 < len(v) <= MAX_TOOL_TEXT]
    return (command[:MAX_TOOL_TEXT] if isinstance(command, str) and command.strip() else None), paths


def fields(payload: dict[str, Any]) -> dict[str, Any] | None:
    """The spool fields of a Codex notify payload; None for other notification types."""
    if payload.get("type") != TURN_COMPLETE:
        return None
    thread = payload.get("thread-id")
    if not isinstance(thread, str) or not _THREAD_ID.match(thread):
        return None
    return {
        "session_id": thread,
        "cwd": payload.get("cwd"),
        "transcript_path": find_rollout(thread),
        "last_assistant_message": payload.get("last-assistant-message"),
        "extra": {"turn_id": payload.get("turn-id"), "client": payload.get("client")},
    }


def find_rollout(thread: str, now: float | None = None) -> str | None:
    """The rollout file of `thread` if it was started today or yesterday (local time)."""
    root = os.path.join(codex_home(), "sessions")
    suffix = f"-{thread}.jsonl"
    stamp = time.time() if now is None else now
    for seconds in (stamp, stamp - 86_400):
        day = time.localtime(seconds)
        folder = os.path.join(root, f"{day.tm_year:04d}", f"{day.tm_mon:02d}", f"{day.tm_mday:02d}")
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for name in names:
            if name.startswith("rollout-") and name.endswith(suffix):
                return os.path.join(folder, name)
    return None
