"""Write synthetic sessions in Claude Code's real transcript shape.

Used to make the demo's bundled sessions, the evaluation set, benchmark trees and test
cases. The shapes follow what Claude Code 2.x writes: an envelope per line (`uuid`,
`parentUuid`, `sessionId`, `cwd`, `timestamp`, …), one assistant content block per line
sharing `message.id`, tool results as user lines, and the usual non-message lines.
"""

from __future__ import annotations

import json
import uuid as uuidlib
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any


ToolResult = str | list[dict[str, Any]]


@dataclass
class ClaudeSession:
    cwd: str
    session_id: str = field(default_factory=lambda: str(uuidlib.uuid4()))
    start: datetime = field(default_factory=lambda: datetime(2026, 11, 2, 9, 0, tzinfo=UTC))
    version: str = "2.1.38"
    branch: str = "main"
    records: list[dict[str, Any]] = field(default_factory=list)
    #: a subagent's sidecar file: every line is `isSidechain` and carries `agentId`
    sidechain: bool = False
    agent_id: str | None = None
    _clock: int = 0
    _parent: str | None = None
    _seq: int = 0
    _tools: int = 0

    @property
    def next_line(self) -> int:
        """The 1-based line number the next record will get."""
        return len(self.records) + 1

    def _stamp(self, seconds: int = 7) -> str:
        self._clock += seconds
        return (self.start + timedelta(seconds=self._clock)).isoformat().replace("+00:00", "Z")

    def _uuid(self) -> str:
        self._seq += 1
        return str(uuidlib.uuid5(uuidlib.NAMESPACE_URL, f"{self._key}/{self._seq}"))

    @property
    def _key(self) -> str:
        """What makes ids unique: a subagent shares its parent's session id."""
        return self.session_id if self.agent_id is None else f"{self.session_id}/{self.agent_id}"

    def _tool_id(self) -> str:
        self._tools += 1
        return "toolu_" + uuidlib.uuid5(uuidlib.NAMESPACE_OID, f"{self._key}/tool/{self._tools}").hex[:24]

    def _envelope(self, kind: str, **extra: Any) -> dict[str, Any]:
        uid = self._uuid()
        record = {
            "parentUuid": self._parent, "isSidechain": self.sidechain, "userType": "external", "cwd": self.cwd,
            "sessionId": self.session_id, "version": self.version, "gitBranch": self.branch,
            "type": kind, "uuid": uid, "timestamp": self._stamp(),
        }
        if self.agent_id is not None:
            record["agentId"] = self.agent_id
        record.update(extra)
        self._parent = uid
        return record

    def user(self, text: str, **extra: Any) -> int:
        """A person's prompt; returns its line number."""
        line = self.next_line
        self.records.append(self._envelope("user", message={"role": "user", "content": text}, **extra))
        return line

    def user_blocks(self, blocks: list[dict[str, Any]], **extra: Any) -> int:
        """A prompt made of content blocks (text next to a pasted image); returns its line number."""
        line = self.next_line
        self.records.append(self._envelope("user", message={"role": "user", "content": blocks}, **extra))
        return line

    def assistant(self, *texts: str, thinking: str | None = None,
                  tools: list[tuple[str, dict[str, Any], ToolResult]] = ()) -> tuple[int, int]:  # type: ignore[assignment]
        """One API message written block per line, then its tool results; returns its line span.

        A tool result is text, or a list of content blocks (an image a tool read)."""
        first = self.next_line
        msg_id = f"msg_{uuidlib.uuid5(uuidlib.NAMESPACE_OID, self._key + str(first)).hex[:24]}"
        blocks: list[dict[str, Any]] = []
        if thinking is not None:
            blocks.append({"type": "thinking", "thinking": thinking, "signature": "EuYBCkQYAiJA" + "x" * 40})
        blocks.extend({"type": "text", "text": t} for t in texts)
        ids = []
        for name, tool_input, _ in tools:
            ids.append(self._tool_id())
            blocks.append({"type": "tool_use", "id": ids[-1], "name": name, "input": tool_input})
        for block in blocks:
            self.records.append(self._envelope("assistant", requestId="req_" + msg_id[4:], message={
                "id": msg_id, "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                "content": [block], "stop_reason": None, "stop_sequence": None,
                "usage": {"input_tokens": 1200, "output_tokens": 80, "cache_read_input_tokens": 9000},
            }))
        last = self.next_line - 1
        for tool_id, (_, _, result) in zip(ids, tools):
            outcome: dict[str, Any] = (
                {"stdout": result, "stderr": "", "interrupted": False, "isImage": False} if isinstance(result, str)
                else {"status": "completed", "content": result})
            self.records.append(self._envelope("user", message={"role": "user", "content": [
                {"tool_use_id": tool_id, "type": "tool_result", "content": result}]}, toolUseResult=outcome))
        return first, last

    def raw(self, record: dict[str, Any]) -> int:
        line = self.next_line
        self.records.append(record)
        return line

    def line(self, kind: str, **fields: Any) -> int:
        """Any other enveloped line (`system`, `attachment`, `progress` …) with its fields."""
        return self.raw(self._envelope(kind, **fields))

    def snapshot(self) -> int:
        return self.raw({"type": "file-history-snapshot", "messageId": self._uuid(), "isSnapshotUpdate": False,
                         "snapshot": {"messageId": self._uuid(), "trackedFileBackups": {}, "timestamp": self._stamp(0)}})

    def progress(self, command: str = "echo ok") -> int:
        return self.raw(self._envelope("progress", data={"type": "hook_progress", "hookEvent": "PostToolUse",
                                                          "hookName": "PostToolUse:Bash", "command": command},
                                       toolUseID="toolu_x", parentToolUseID="toolu_x"))

    def slash(self, name: str, output: str) -> int:
        line = self.user(f"<command-name>/{name}</command-name>\n<command-message>{name}</command-message>\n"
                         "<command-args></command-args>")
        self.user(f"<local-command-stdout>{output}</local-command-stdout>")
        return line

    def interrupt(self) -> int:
        return self.raw(self._envelope("user", message={"role": "user", "content": [
            {"type": "text", "text": "[Request interrupted by user]"}]}))

    def compaction(self, summary: str) -> int:
        self.raw(self._envelope("system", subtype="compact_boundary", content="Conversation compacted",
                                level="info", compactMetadata={"trigger": "auto", "preTokens": 150000}))
        return self.raw(self._envelope("user", isCompactSummary=True, isVisibleInTranscriptOnly=True, message={
            "role": "user", "content": "This session is being continued from a previous conversation that ran "
                                       "out of context. The summary below covers the earlier portion.\n\n" + summary}))

    def hook_context(self, text: str) -> int:
        return self.raw(self._envelope("attachment", attachment={
            "type": "hook_additional_context", "content": [text], "hookName": "SessionStart",
            "toolUseID": "SessionStart", "hookEvent": "SessionStart"}))

    def text(self) -> str:
        return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in self.records)

    def write(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.text(), encoding="utf-8")
        return path


def project_slug(cwd: str) -> str:
    """Claude Code's folder name for a working directory."""
    return "".join(c if c.isascii() and c.isalnum() else "-" for c in cwd)
