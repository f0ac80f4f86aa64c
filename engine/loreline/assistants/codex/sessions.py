"""OpenAI Codex CLI rollouts, in the three shapes Codex has written.

* Envelope JSONL (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-…-<uuid>.jsonl`, ≥ 0.3x): one
  `{"timestamp","type","payload"}` per line — `session_meta` (id, cwd), `turn_context`,
  `response_item` (the model-visible log), `event_msg` (the UI log), `compacted`,
  `world_state`, `token_usage_record`, … Unknown types are skipped.
* Pre-envelope JSONL (mid-2025): a bare `{"id","timestamp","instructions"}` header,
  `{"record_type":"state"}` markers and bare ResponseItems.
* The TypeScript CLI's single JSON document (`sessions/rollout-<date>-<uuid>.json`,
  `{"session":{…},"items":[…]}`): read whole (it is one document), capped at
  `MAX_DOCUMENT_BYTES`; each item's "line" is its 1-based position in `items`.

Codex logs the same words twice: user and assistant text appear as `response_item`
messages and again as `event_msg` (`user_message`/`agent_message`, or `item_completed`
UserMessage/AgentMessage in newer builds). Both streams are read; at the end exactly one
is kept — the `response_item` stream whenever the file has any message item, else the
event stream — and the other's texts are counted as `duplicate-stream`. Line numbers are
physical lines of the rollout. When the event stream has user messages, the two are paired:
a `response_item` user message that no `event_msg` user message matches (same text, spaces
aside) is context Codex injected, not a prompt, and is dropped as `injected-context`.

Never a turn: developer/system messages (`role:developer`, where hook context such as a
SessionStart note arrives), injected user messages (`environment-context`, `agents-md`,
`interrupt`, `shell-command`, …), the IDE wrapper around a request (`ide-context`: only the
text after `## My request for Codex:` is kept), Loreline's own `<loreline-memories>`
block, reasoning, tool output, compaction summaries (`compacted`) and the summariser's own
answer (`compaction-output`). Tool calls are read for the files they touch (structured
arguments, `apply_patch` headers, simple read commands in shell calls), and a call worth an
action line (`transcripts.actions`: `shell`, `shell_command`, `exec_command`,
`local_shell_call`, `apply_patch`) becomes an action turn in both streams; its outcome comes
from the `function_call_output` / `custom_tool_call_output` with its `call_id` (the exit code
in the output's metadata or framing; `exec command rejected by user` and `patch rejected by
user` are the person's refusals) or from the `exec_command_end` / `patch_apply_end` event,
whichever comes first.
"""

from __future__ import annotations

import os
import re
import shlex
from typing import IO, Any

import orjson

from ...models import ParseStats, Turn
from ...transcripts import actions
from ...transcripts.base import IDE_REASON, LORELINE_TAG, TurnBuilder, mentions, strip_injected
from ...transcripts.paths import is_path, tool_input_paths
from .calls import arguments, call_action, event_result, output_result, patch_paths

ENVELOPE_TYPES = frozenset({"session_meta", "response_item", "event_msg", "turn_context", "compacted",
                            "world_state", "inter_agent_communication", "token_usage_record"})
ITEM_TYPES = frozenset({"message", "reasoning", "function_call", "function_call_output", "custom_tool_call",
                        "custom_tool_call_output", "local_shell_call", "web_search_call", "ghost_snapshot",
                        "compaction", "tool_search_call", "tool_search_output"})
CALL_TYPES = frozenset({"function_call", "custom_tool_call", "local_shell_call"})
OUTPUT_TYPES = frozenset({"function_call_output", "custom_tool_call_output", "tool_search_output"})
ROLES = frozenset({"user", "assistant", "developer", "system"})
TEXT_TYPES = frozenset({"input_text", "output_text", "text", "Text"})
REQUEST_MARKER = "## My request for Codex:"
IDE_HEADER = "# Context from my IDE setup:"
INJECTED_USER: tuple[tuple[str, str], ...] = (
    ("<environment_context>", "environment-context"),
    ("<user_instructions>", "agents-md"),
    ("# AGENTS.md instructions", "agents-md"),
    ("<INSTRUCTIONS>", "agents-md"),
    ("<turn_aborted>", "interrupt"),
    ("<user_shell_command>", "shell-command"),
    ("<subagent_notification>", "subagent"),
    ("<skills_instructions>", "developer-context"),
    ("<permissions instructions>", "developer-context"),
)
_INJECTED_STARTS = tuple(prefix for prefix, _ in INJECTED_USER)
EVENT_KINDS = {"environment_context": "environment-context", "user_instructions": "agents-md"}
READ_PROGRAMS = frozenset({"cat", "sed", "nl", "head", "tail", "less", "more", "bat", "wc"})
MAX_SCRIPT_CHARS = 4096
#: shell words (quoted parts, escapes and plain characters glued together) and operators
_TOKEN = re.compile(r"""(?:'[^']*'|"(?:[^"\\]|\\.)*"|\\.|[^\s'"\\&|;<>])+|[&|;<>]+""")
_PIECE = re.compile(r"""'([^']*)'|"((?:[^"\\]|\\.)*)"|\\(.)|([^'"\\]+)""")
_OPERATORS = frozenset("&|;<>")
_READ_COMMAND = re.compile(r"(?:^|[\s;&|/(])(?:%s)\s" % "|".join(sorted(READ_PROGRAMS)))
MAX_DOCUMENT_BYTES = 64 * 1024 * 1024


def looks_like(record: dict[str, Any]) -> bool:
    """True for an envelope line, or a pre-envelope header, state marker or bare item."""
    kind = record.get("type")
    if "payload" in record:
        return isinstance(kind, str) and (kind in ENVELOPE_TYPES or isinstance(record.get("payload"), dict))
    if record.get("record_type") == "state":
        return True
    if "sessionId" in record or "uuid" in record:
        return False
    if kind is None:
        return "id" in record and "timestamp" in record and "instructions" in record and "role" not in record
    if kind == "message":
        return str(record.get("role")) in ROLES and isinstance(record.get("content"), list)
    return isinstance(kind, str) and kind in ITEM_TYPES


class _Stream:
    """One of the two copies of the conversation, with the reasons of its own drops."""

    def __init__(self) -> None:
        self.builder = TurnBuilder()
        self.dropped: dict[str, int] = {}
        self.kept = 0
        #: the user texts this stream kept, whitespace-normalised, for pairing the two streams
        self.user_texts: list[str] = []

    def drop(self, reason: str, n: int = 1) -> None:
        self.dropped[reason] = self.dropped.get(reason, 0) + n


class CodexReader:
    """Turns Codex rollout records (any of the three shapes) into turns."""

    tool = "codex"

    def __init__(self, stats: ParseStats) -> None:
        self.stats = stats
        self.session_id: str | None = None
        self.cwd: str | None = None
        self.started_at: str | None = None
        self._items = _Stream()
        self._events = _Stream()
        self._saw_items = False

    def feed(self, lineno: int, record: dict[str, Any]) -> None:
        stamp = record.get("timestamp")
        stamp = stamp if isinstance(stamp, str) else None
        if self.started_at is None and stamp:
            self.started_at = stamp
        payload = record.get("payload")
        kind = record.get("type")
        if isinstance(payload, dict) and isinstance(kind, str):
            self._envelope(lineno, kind, payload, record, stamp)
        else:
            self._bare(lineno, record, stamp)

    def finish(self) -> list[Turn]:
        chosen, other = (self._items, self._events) if self._saw_items else (self._events, self._items)
        for reason, n in chosen.dropped.items():
            self.stats.drop(reason, n)
        self._items.builder.finish(self.cwd)
        self._events.builder.finish(self.cwd)
        turns = chosen.builder.turns
        if chosen is self._items and self._events.user_texts:
            turns = self._paired(turns)
        if other.kept:
            self.stats.drop("duplicate-stream", other.kept)
        return turns

    def _paired(self, turns: list[Turn]) -> list[Turn]:
        """The item stream's turns without user messages the UI log never showed: a
        `response_item` user message with no matching `event_msg` user message is context
        Codex injected (AGENTS.md, environment, …), not something the person typed."""
        typed: dict[str, int] = {}
        for text in self._events.user_texts:
            typed[text] = typed.get(text, 0) + 1
        kept: list[Turn] = []
        for turn in turns:
            if turn.speaker == "user":
                key = _normal(turn.text)
                if not typed.get(key):
                    self.stats.drop("injected-context")
                    continue
                typed[key] -= 1
            kept.append(turn)
        return kept

    def meta(self, payload: dict[str, Any]) -> None:
        """Session identity from the first `session_meta` (or a legacy header / TS `session`)."""
        if self.session_id is None and isinstance(payload.get("id"), str) and payload["id"]:
            self.session_id = payload["id"]
            if isinstance(payload.get("timestamp"), str):
                self.started_at = payload["timestamp"]
        if self.cwd is None and isinstance(payload.get("cwd"), str) and payload["cwd"]:
            self.cwd = payload["cwd"]
        if self.started_at is None and isinstance(payload.get("timestamp"), str):
            self.started_at = payload["timestamp"]

    # -- record shapes -----------------------------------------------------------

    def _envelope(self, lineno: int, kind: str, payload: dict[str, Any], record: dict[str, Any],
                  stamp: str | None) -> None:
        if kind == "response_item":
            metadata = record.get("metadata")
            if isinstance(metadata, dict) and metadata.get("compaction_output") is True:
                self.stats.drop("compaction-output")
            else:
                self._item(lineno, payload, stamp)
        elif kind == "event_msg":
            self._event(lineno, payload, stamp)
        elif kind == "session_meta":
            self.meta(payload)
            self.stats.drop("line-type:session_meta")
        elif kind == "turn_context":
            if self.cwd is None and isinstance(payload.get("cwd"), str) and payload["cwd"]:
                self.cwd = payload["cwd"]
            self.stats.drop("line-type:turn_context")
        else:
            self.stats.drop("compacted" if kind == "compacted" else f"line-type:{kind}")

    def _bare(self, lineno: int, record: dict[str, Any], stamp: str | None) -> None:
        kind = record.get("type")
        if record.get("record_type") == "state":
            self.stats.drop("line-type:state")
        elif kind is None and "id" in record and "instructions" in record:
            self.meta(record)
            self.stats.drop("line-type:session_meta")
        elif isinstance(kind, str) and kind in ITEM_TYPES:
            self._item(lineno, record, stamp)
        else:
            self.stats.drop(f"line-type:{kind}" if isinstance(kind, str) else "line-type:unknown")

    def _item(self, lineno: int, item: dict[str, Any], stamp: str | None) -> None:
        kind = item.get("type")
        if not isinstance(kind, str):
            self.stats.drop("item:unknown")
        elif kind == "message":
            self._saw_items = True
            self._message(self._items, lineno, item.get("role"), item.get("content"), stamp)
        elif kind in CALL_TYPES:
            self.stats.drop("tool-call")
            files = call_paths(item)
            if files:
                self._items.builder.add_files(files)
                self._events.builder.add_files(files)
            self._action(lineno, item, stamp)
        elif kind in OUTPUT_TYPES:
            self.stats.drop("tool-output")
            key = item.get("call_id")
            if self._items.builder.waits_for(key):
                self._resolve(key, output_result(item.get("output")))
        elif kind == "reasoning":
            self.stats.drop("reasoning")
        else:
            self.stats.drop(f"item:{kind}")

    def _event(self, lineno: int, payload: dict[str, Any], stamp: str | None) -> None:
        kind = payload.get("type")
        if kind == "user_message":
            self._event_user(lineno, payload, stamp)
        elif kind == "agent_message":
            self._message(self._events, lineno, "assistant", payload.get("message"), stamp)
        elif kind == "item_completed" and isinstance(payload.get("item"), dict):
            item = payload["item"]
            role = {"UserMessage": "user", "AgentMessage": "assistant"}.get(str(item.get("type")))
            if role is None:
                self.stats.drop("event:item_completed")
            else:
                self._message(self._events, lineno, role, item.get("content"), stamp)
        else:
            self.stats.drop(f"event:{kind}" if isinstance(kind, str) else "event:unknown")
            if kind in ("exec_command_end", "patch_apply_end") and self._items.builder.waits_for(payload.get("call_id")):
                self._resolve(payload["call_id"], event_result(payload))

    def _action(self, lineno: int, item: dict[str, Any], stamp: str | None) -> None:
        found = call_action(item)
        key = item.get("call_id", item.get("id"))
        key = key if isinstance(key, str) else None
        for stream in (self._items, self._events):
            stream.builder.add_action(found, lineno, stamp, key)

    def _resolve(self, key: str, result: actions.Result) -> None:
        for stream in (self._items, self._events):
            stream.builder.resolve(key, result)

    def _event_user(self, lineno: int, payload: dict[str, Any], stamp: str | None) -> None:
        kind = payload.get("kind")
        if isinstance(kind, str) and kind != "plain":
            self._events.drop(EVENT_KINDS.get(kind, f"kind:{kind}"))
            return
        images = payload.get("images")
        if isinstance(images, list) and images:
            self._events.drop("block:input_image", len(images))
        self._message(self._events, lineno, "user", payload.get("message"), stamp)

    # -- messages ----------------------------------------------------------------

    def _message(self, stream: _Stream, lineno: int, role: Any, content: Any, stamp: str | None) -> None:
        if role not in ("user", "assistant"):
            reason = f"role:{role}" if isinstance(role, str) else "role:unknown"
            self.stats.drop("loreline-memories" if mentions(content, LORELINE_TAG) else reason)
            return
        pieces = _content_texts(content, stream)
        if pieces is None:
            return
        texts: list[str] = []
        files: list[str] = []
        for piece in pieces:
            text = strip_injected(piece, stream)
            if text and role == "user":
                text = user_request(text, stream, files)
            if text:
                texts.append(text)
        if not texts:
            return
        stream.kept += 1
        if role == "user":
            text = "\n\n".join(texts)
            stream.user_texts.append(_normal(text))
            stream.builder.add("user", text, lineno, stamp, tuple(files))
        else:
            stream.builder.add_assistant("\n\n".join(texts), lineno, stamp, [], merge=False)


def _normal(text: str) -> str:
    return " ".join(text.split())


def _content_texts(content: Any, stream: _Stream) -> list[str] | None:
    """The text pieces of a message's content (a string or a list of items)."""
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        stream.drop("bad-content")
        return None
    out: list[str] = []
    for part in content:
        kind = part.get("type") if isinstance(part, dict) else None
        text = part.get("text") if isinstance(part, dict) else None
        if isinstance(kind, str) and kind in TEXT_TYPES and isinstance(text, str):
            out.append(text)
        else:
            stream.drop(f"block:{kind}" if isinstance(kind, str) else "block:unknown")
    return out


def user_request(text: str, stream: _Stream, files: list[str]) -> str:
    """A user text without injected context: '' for an injected message, the request
    alone for an IDE-wrapped one (whose active file joins `files`)."""
    head = text.lstrip()
    if head.startswith(IDE_HEADER):
        stream.drop(IDE_REASON)
        active = _after(head, "## Active file:")
        if active and is_path(active):
            files.append(active)
        at = head.find(REQUEST_MARKER)
        return head[at + len(REQUEST_MARKER):].strip() if at >= 0 else ""
    if head.startswith(_INJECTED_STARTS):
        for prefix, reason in INJECTED_USER:
            if head.startswith(prefix):
                stream.drop(reason)
                break
        return ""
    return text.strip()


def _after(text: str, label: str) -> str:
    at = text.find(label)
    if at < 0:
        return ""
    end = text.find("\n", at)
    return text[at + len(label): end if end >= 0 else len(text)].strip()


# -- files touched by tool calls ---------------------------------------------------


def call_paths(item: dict[str, Any]) -> list[str]:
    """Files a Codex tool call reads or edits, as far as its arguments say."""
    name = item.get("name")
    if item.get("type") == "custom_tool_call":
        patch = item.get("input")
        return patch_paths(patch) if isinstance(patch, str) else []
    if item.get("type") == "local_shell_call":
        action = item.get("action")
        args: Any = action if isinstance(action, dict) else {}
    else:
        args = arguments(item.get("arguments"))
    if not isinstance(args, dict):
        return []
    if name == "apply_patch" and isinstance(args.get("input"), str):
        return patch_paths(args["input"])
    found = tool_input_paths(name, args)
    command = args.get("command", args.get("cmd"))
    workdir = args.get("workdir") if isinstance(args.get("workdir"), str) else None
    found.extend(command_paths(command, workdir))
    return found


def command_paths(command: Any, workdir: str | None) -> list[str]:
    """Files read by simple commands (`cat`, `sed -n`, `nl`, …) or patched via `apply_patch`."""
    if isinstance(command, list):
        if len(command) == 3 and command[1] in ("-lc", "-c") and isinstance(command[0], str) \
                and command[0].endswith(("bash", "sh")):
            command = command[2]
        elif len(command) > 1 and command[0] == "apply_patch":
            command = command[1]
        else:
            try:
                command = shlex.join(command)
            except TypeError:
                return []
    if not isinstance(command, str):
        return []
    if "*** Begin Patch" in command:
        return patch_paths(command)
    if len(command) > MAX_SCRIPT_CHARS:
        return []
    return _script_reads(command, workdir)


def _script_reads(script: str, workdir: str | None) -> list[str]:
    if _READ_COMMAND.search(script) is None:
        return []
    found: list[str] = []
    base = workdir if workdir and workdir[0] == "/" else None
    segment: list[str] = []
    for word in _TOKEN.findall(script + ";"):
        if word[0] in _OPERATORS:
            base = _segment(segment, base, found)
            segment = []
        else:
            segment.append(_unquote(word))
    return found


def _unquote(word: str) -> str:
    """A shell word without its quotes and backslash escapes (one group of `_PIECE` matches)."""
    if "'" not in word and '"' not in word and "\\" not in word:
        return word
    return "".join("".join(groups) for groups in _PIECE.findall(word))


def _segment(words: list[str], base: str | None, found: list[str]) -> str | None:
    """Collect the files one simple command reads; returns the folder after it (`cd`)."""
    if not words:
        return base
    program = words[0].rsplit("/", 1)[-1]
    if program == "cd" and len(words) == 2:
        target = words[1]
        return target if os.path.isabs(target) else (os.path.join(base, target) if base else base)
    if program not in READ_PROGRAMS:
        return base
    operands = [w for w in words[1:] if not w.startswith("-")]
    if program == "sed" and "-e" not in words and operands:
        operands = operands[1:]
    for word in operands:
        if _names_a_file(word):
            found.append(os.path.normpath(os.path.join(base, word)) if base and not os.path.isabs(word) else word)
    return base


def _names_a_file(word: str) -> bool:
    """A command operand that can name a file: not a number, a glob, a variable or a folder."""
    return (not word.endswith("/") and not any(c in word for c in "*?[$`") and is_path(word)
            and any(c.isalpha() for c in word))


# -- the TypeScript CLI's single JSON document ------------------------------------


def feed_document(handle: IO[bytes], size: int, reader: CodexReader, stats: ParseStats) -> int:
    """Feed a `{"session":…,"items":[…]}` document to `reader`; returns the item count."""
    if size > MAX_DOCUMENT_BYTES:
        stats.bad_lines += 1
        stats.drop("oversized-document")
        return 0
    try:
        document = orjson.loads(handle.read(MAX_DOCUMENT_BYTES + 1))
    except orjson.JSONDecodeError:
        stats.bad_lines += 1
        stats.drop("invalid-json")
        return 0
    if not isinstance(document, dict):
        stats.bad_lines += 1
        stats.drop("not-an-object")
        return 0
    if isinstance(document.get("session"), dict):
        reader.meta(document["session"])
    items = document.get("items")
    items = items if isinstance(items, list) else []
    for index, item in enumerate(items, start=1):
        stats.lines += 1
        if isinstance(item, dict):
            reader.feed(index, item)
        else:
            stats.drop("not-an-object")
    return len(items)


def is_document(head: bytes) -> bool:
    """True when the first bytes of a `.json` file open a TS-CLI session document."""
    return head.lstrip()[:1] == b"{" and b'"session"' in head
