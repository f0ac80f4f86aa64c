"""Gemini CLI sessions: `~/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl`.

Each line is one of:
- the session's metadata (`sessionId`, `projectHash`, `startTime`, `lastUpdated`, `kind`:
  `main` or `subagent`); a resumed session writes it again;
- `{"$set": {...}}`: an update of the metadata; `$set.messages` replaces the whole message
  list (the CLI writes it when a session starts and again, in full, when it is resumed);
- one message `{id, timestamp, type, content, ...}`. A message is appended again, in full,
  whenever it changes (a reply gains its tool calls), so one `id` can appear on several lines:
  the last line holding it wins, and the turn's provenance points at that line.

Message `type`: `user` (a prompt, or a tool's answer as `functionResponse` parts: not the
person's words), `gemini` (the reply: `content` text or parts, `toolCalls` whose arguments
name the files touched, `thoughts` reasoning summaries: skipped like other reasoning), and
`info`, `error`, `warning` (the CLI's own notes: skipped). The first message of a session is
the CLI's `<session_context>` preamble, and context a hook adds arrives wrapped in
`<hook_context>`: neither is the person's words, so both are dropped (counted).

A tool call worth an action line (`transcripts.actions`: `run_shell_command`, `write_file`,
`replace`, any call the person cancels) becomes an action turn on its message's line, after the
message's text; a `toolCalls` entry carries its own `status` (`success`, `error`, `cancelled`:
the person refused it) and `result` (`Exit Code: N` in its output). A `functionCall` part
without a `toolCalls` entry is filled in by the `functionResponse` with its id.

The session lines do not name the working folder: `project_root` reads it from the
`.project_root` file the CLI keeps beside `chats/`.

Incremental reads: the whole file is read every time (sessions are small), and a message is
kept only when it first appeared at or after the line the import resumes from, so a message
re-listed by a resume or re-appended by an update is never imported twice.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...models import ParseStats, Turn
from ...transcripts import actions, outcomes
from ...transcripts.base import ReaderBase, remove_spans, strip_injected
from ...transcripts.paths import tool_input_paths

SESSION_CONTEXT = ("<session_context>", "</session_context>")
HOOK_CONTEXT = ("<hook_context>", "</hook_context>")
SKIPPED_TYPES = ("info", "error", "warning")
REPLY = "gemini"
#: the file beside `chats/` that names the project's folder (newer CLIs)
PROJECT_ROOT = ".project_root"


def looks_like(record: dict[str, Any]) -> bool:
    """The metadata line (`sessionId` + `projectHash`) or a `$set` update line."""
    if isinstance(record.get("$set"), dict):
        return True
    return isinstance(record.get("sessionId"), str) and "projectHash" in record


class GeminiReader(ReaderBase):
    tool = "gemini"

    def __init__(self, stats: ParseStats, since_line: int = 0) -> None:
        super().__init__(stats)
        self.since_line = since_line
        #: id -> (first line, last line, message); insertion order is the session's order
        self._messages: dict[str, tuple[int, int, dict[str, Any]]] = {}
        self.kind: str | None = None

    def feed(self, lineno: int, record: dict[str, Any]) -> None:
        update = record.get("$set")
        if isinstance(update, dict):
            self._meta(update)
            listed = update.get("messages")
            if isinstance(listed, list):
                for message in listed:
                    self._message(lineno, message)
            return
        if "type" not in record and "id" not in record:
            self._meta(record)
            return
        self._message(lineno, record)

    def _meta(self, record: dict[str, Any]) -> None:
        if isinstance(record.get("sessionId"), str) and self.session_id is None:
            self.session_id = record["sessionId"]
        if isinstance(record.get("startTime"), str) and self.started_at is None:
            self.started_at = record["startTime"]
        if isinstance(record.get("kind"), str):
            self.kind = record["kind"]

    def _message(self, lineno: int, message: Any) -> None:
        if not isinstance(message, dict) or not isinstance(message.get("id"), str):
            self.stats.drop("bad-message")
            return
        key = message["id"].removesuffix("_response")  # a resume lists a tool answer under `<id>_response`
        if key != message["id"] and key in self._messages:
            return
        if key in self._messages:  # the latest text, at its line; the time it was first written
            first, _, earlier = self._messages[key]
            if isinstance(earlier.get("timestamp"), str):
                message = {**message, "timestamp": earlier["timestamp"]}
            self._messages[key] = (first, lineno, message)
        else:
            self._messages[key] = (lineno, lineno, message)

    def finish(self) -> list[Turn]:
        for first, last, message in self._messages.values():
            if first < self.since_line:
                self.stats.drop("already-read")
                continue
            kind = message.get("type")
            if kind == "user":
                self._user(last, message)
            elif kind == REPLY:
                self._reply(last, message)
            else:
                self.stats.drop(f"type:{kind}" if isinstance(kind, str) else "type:unknown")
        return super().finish()

    def _user(self, lineno: int, message: dict[str, Any]) -> None:
        text = _text(message.get("content"))
        if text is None:
            self.stats.drop("tool-result")
            self._responses(message.get("content"))
            return
        for opening, closing in (SESSION_CONTEXT, HOOK_CONTEXT):
            if opening in text:
                text, count = remove_spans(text, opening, closing)
                self.stats.drop("hook-context" if opening == HOOK_CONTEXT[0] else "session-context", count)
        text = strip_injected(text, self.stats)
        if text:
            self.builder.add("user", text, lineno, _stamp(message))

    def _reply(self, lineno: int, message: dict[str, Any]) -> None:
        if message.get("thoughts"):
            self.stats.drop("thinking")
        files: list[str] = []
        calls: list[dict[str, Any]] = [c for c in message.get("toolCalls") or () if isinstance(c, dict)]
        content = message.get("content")
        for part in content if isinstance(content, list) else []:
            call = part.get("functionCall") if isinstance(part, dict) else None
            if isinstance(call, dict) and not any(c.get("id") == call.get("id") for c in calls if call.get("id")):
                calls.append(call)
        for call in calls:
            files.extend(tool_input_paths(call.get("name"), call.get("args")))
        text = strip_injected(_text(message.get("content")) or "", self.stats)
        self.builder.add_assistant(text, lineno, _stamp(message), files, merge=False)
        for call in calls:
            key = call.get("id") if isinstance(call.get("id"), str) else None
            self.builder.add_action(actions.call(call.get("name"), call.get("args")), lineno, _stamp(message), key)
            if key is not None and "status" in call:
                self.builder.resolve(key, call_result(call))

    def _responses(self, content: Any) -> None:
        """Fill in the calls a tool's answer (`functionResponse` parts) answers."""
        for part in content if isinstance(content, list) else []:
            answer = part.get("functionResponse") if isinstance(part, dict) else None
            if isinstance(answer, dict) and self.builder.waits_for(answer.get("id")):
                self.builder.resolve(answer["id"], _answer(answer, None))


def call_result(call: dict[str, Any]) -> actions.Result:
    """What a `toolCalls` entry says of itself: its status and its result's output."""
    status = call.get("status")
    if status == "cancelled":
        return actions.Result(denied=True)
    results = call.get("result")
    answer = next((r.get("functionResponse") for r in results if isinstance(r, dict)
                   and isinstance(r.get("functionResponse"), dict)), None) if isinstance(results, list) else None
    if answer is None:
        display = call.get("resultDisplay")
        return actions.Result(display if isinstance(display, str) else "", failed=status == "error")
    return _answer(answer, status)


def _answer(answer: dict[str, Any], status: Any) -> actions.Result:
    response = answer.get("response")
    response = response if isinstance(response, dict) else {}
    output, error = response.get("output"), response.get("error")
    text = output if isinstance(output, str) else error if isinstance(error, str) else ""
    return actions.Result(text, failed=status == "error" or (status is None and isinstance(error, str)),
                          exit_code=outcomes.exit_code_in(text))


def _text(content: Any) -> str | None:
    """A message's words: a string, or the `text` of its parts (None when it has none, as a
    tool's answer or a bare tool call)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return None
    texts = [part["text"] for part in content if isinstance(part, dict) and isinstance(part.get("text"), str)]
    return "\n\n".join(texts) if texts else None


def _stamp(message: dict[str, Any]) -> str | None:
    stamp = message.get("timestamp")
    return stamp if isinstance(stamp, str) else None


def project_root(path: Path) -> str | None:
    """The working folder of the session file at `path` (the session lines do not name it):
    `<project>/.project_root` beside its `chats/` folder; None when absent or unreadable."""
    try:
        text = (path.parent.parent / PROJECT_ROOT).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return text if text.startswith("/") or (len(text) > 2 and text[1] == ":") else None
