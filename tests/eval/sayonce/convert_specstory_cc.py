"""Convert SpecStory Markdown exports into Claude Code session JSONL, tool calls included.

    python tests/eval/sayonce/convert_specstory_cc.py OUT_DIR CWD FILE.md...

Each export becomes `OUT_DIR/<export name>.jsonl` (see `out_name`) with one Claude Code line per message
(`type`, `message.role`, `message.content`, `uuid`, `parentUuid`, `sessionId`, `timestamp`,
`cwd`), in the order of the export, so every label can cite a physical line:

- a person's message (`_**User**_`, `_**User (time)**_`) is one `user` line whose content is
  their words, verbatim (whitespace at the ends and the closing `---` trimmed);
- the assistant's prose is an `assistant` line with one text block, cut at `ASSISTANT_MAX`
  characters (marked `[…]`); thinking (`<think>…</think>`) is left out;
- the assistant's tool calls, where the export shows them, are `assistant` lines with one
  `tool_use` block (name mapped to Claude Code's: `run_in_terminal` → `Bash {"command"}`,
  `read_file` → `Read {"file_path"}`, `replace_string_in_file` → `Edit {"file_path"}`,
  `create_file` → `Write {"file_path"}`, …; inputs cut at `INPUT_MAX` characters), followed
  by a `user` line with the `tool_result` (cut at `RESULT_MAX`) when the export shows one.
  Three export shapes are read: SpecStory Markdown v2 (`<tool-use data-tool-name=…>` with an
  **Input:** list), Cursor's older exports (`<details><summary>Searched codebase …`,
  `Read file: …`, a terminal command as a `bash` block followed by its output block, edits as
  `diff` blocks), and Copilot's older exports (no tool calls shown; prose only);
- timestamps are the message's own where the export gives one (`_**User (2025-10-16
  13:36:37Z)**_`, UTC), otherwise the export's start time (from its file name, UTC, else its
  title) plus one second per line; the session id
  is the export's (`Session <uuid>`) or a UUID derived from the file name;
- credentials are replaced by fakes of the same shape (`SCRUB`), personal e-mail addresses by
  placeholders (`PERSONAL`).
"""

from __future__ import annotations

import json
import re
import sys
import uuid
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

ASSISTANT_MAX = 3000
INPUT_MAX = 400
RESULT_MAX = 400
NAME_MAX = 80
_MARKER = re.compile(r"^_\*\*(User|Assistant|Agent)(?: \(([^)]*)\))?\*\*_\s*$")
_STAMP = re.compile(r"(\d{4}-\d\d-\d\d)[ T](\d\d):(\d\d)(?::(\d\d))?")
_NAME_TIME = re.compile(r"(\d{4}-\d\d-\d\d)_(\d\d)-(\d\d)(?:-(\d\d))?")
_SESSION = re.compile(r"Session ([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})")
_THINK = re.compile(r"<think>.*?</think>", re.S)
_TOOL_USE = re.compile(r'<tool-use data-tool-type="[^"]*" data-tool-name="([^"]*)">(.*?)</tool-use>', re.S)
_DETAILS = re.compile(r"<details>\s*<summary>(.*?)</summary>(.*?)</details>", re.S)
_FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```\s*$", re.S | re.M)
#: tool names as Claude Code writes them, and the input key that names the tool's subject
RENAME = {
    "run_in_terminal": ("Bash", "command"), "read_file": ("Read", "file_path"),
    "replace_string_in_file": ("Edit", "file_path"), "multi_replace_string_in_file": ("MultiEdit", "file_path"),
    "insert_edit_into_file": ("Edit", "file_path"), "apply_patch": ("Edit", "file_path"),
    "edit_file": ("Edit", "file_path"), "create_file": ("Write", "file_path"), "write": ("Write", "file_path"),
    "grep_search": ("Grep", "pattern"), "file_search": ("Glob", "pattern"), "list_dir": ("LS", "path"),
    "semantic_search": ("Grep", "pattern"), "manage_todo_list": ("TodoWrite", "todos"),
    "fetch_webpage": ("WebFetch", "url"), "get_errors": ("Read", "file_path"),
}
_INPUT_KEYS = {"filePath": "file_path", "path": "file_path", "command": "command", "query": "pattern",
               "url": "url", "urls": "url", "dirPath": "path"}
#: credentials left in the exports, replaced by fakes of the same shape
SCRUB = (
    (re.compile(r"sk-proj-[A-Za-z0-9_-]{20,}"), "sk-proj-FAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKE"),
    (re.compile(r"sk-ant-[A-Za-z0-9_-]{20,}"), "sk-ant-api03-FAKEFAKEFAKEFAKEFAKEFAKEFAKE"),
    (re.compile(r"(?<![A-Za-z0-9])sk-[A-Za-z0-9]{32,}"), "sk-FAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKE"),
    (re.compile(r"lsv2_(?:pt|sk)_[A-Za-z0-9_]{20,}"), "lsv2_pt_FAKEFAKEFAKEFAKEFAKEFAKEFAKE_fake0000"),
    (re.compile(r"AIza[0-9A-Za-z_-]{35}"), "AIzaSyFAKEFAKEFAKEFAKEFAKEFAKEFAKE00000"),
    (re.compile(r"gh[pousr]_[A-Za-z0-9]{30,}"), "ghp_FAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKE"),
    (re.compile(r"github_pat_[A-Za-z0-9_]{30,}"), "github_pat_FAKEFAKEFAKEFAKEFAKEFAKEFAKE"),
    (re.compile(r"xox[abpr]-[A-Za-z0-9-]{20,}"), "xoxb-0000000000-FAKEFAKEFAKEFAKE"),
    (re.compile(r"AKIA[0-9A-Z]{16}"), "AKIAFAKEFAKEFAKEFAKE"),
    (re.compile(r"\b\d{8,10}:AA[A-Za-z0-9_-]{30,}"), "1234567890:AAFAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKE"),
    (re.compile(r"eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"),
     "eyJhbGciOiJIUzI1NiJ9.eyJyb2xlIjoiZmFrZSJ9.FAKEFAKEFAKEFAKEFAKEFAKE"),
    (re.compile(r"sb_(secret|publishable)_[A-Za-z0-9_-]{20,}"), r"sb_\1_FAKEFAKEFAKEFAKEFAKEFAKE"),
    (re.compile(r"(postgres(?:ql)?://[^:/\s]+:)[^@\s]{3,}@"), r"\1FAKEPASSWORD@"),
    (re.compile(r"(mongodb(?:\+srv)?://[^:/\s]+:)[^@\s]{3,}@"), r"\1FAKEPASSWORD@"),
    (re.compile(r"vercel_[A-Za-z0-9]{20,}|(?<=VERCEL_TOKEN=)[A-Za-z0-9]{20,}"), "FAKEVERCELTOKENFAKEFAKEFAKE"),
    (re.compile(r"phc_[A-Za-z0-9]{30,}"), "phc_FAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKEFAK"),
    (re.compile(r"((?:Password|PASSWORD|Pwd)=)[^;\s\"']{6,}"), r"\1FAKEPASSWORD"),
    (re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?-----END [A-Z ]*PRIVATE KEY-----", re.S),
     "-----BEGIN PRIVATE KEY-----\nFAKE\n-----END PRIVATE KEY-----"),
)


#: personal e-mail addresses shown in the exports (commit authors), replaced by placeholders
PERSONAL = (
    (re.compile(r"eugene@dobry\.me"), "author@example.com"),
    (re.compile(r"michael\.paulukonis@gmail\.com"), "author@example.com"),
)


def scrub(text: str) -> str:
    for pattern, fake in SCRUB + PERSONAL:
        text = pattern.sub(fake, text)
    return text


def cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit].rstrip() + " […]"


class Writer:
    """Builds the session's lines: ids, parent links and timestamps."""

    def __init__(self, session: str, cwd: str, start: datetime) -> None:
        self.session, self.cwd = session, cwd
        self.lines: list[dict[str, Any]] = []
        self.parent: str | None = None
        self.clock = start - timedelta(seconds=1)
        self.calls = 0

    def at(self, when: datetime | None) -> None:
        """A message's own time: later lines count on from it (never going back)."""
        if when is not None and when > self.clock:
            self.clock = when - timedelta(seconds=1)

    def add(self, role: str, content: Any) -> None:
        self.clock += timedelta(seconds=1)
        line_id = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{self.session}:{len(self.lines)}"))
        message: dict[str, Any] = {"role": role, "content": content}
        if role == "assistant":
            message = {"id": "msg_" + line_id.replace("-", "")[:24], "type": "message", "role": role,
                       "model": "unknown", "content": content}
        self.lines.append({"parentUuid": self.parent, "isSidechain": False, "type": role, "message": message,
                           "uuid": line_id, "timestamp": self.clock.strftime("%Y-%m-%dT%H:%M:%S.000Z"),
                           "sessionId": self.session, "cwd": self.cwd, "userType": "external"})
        self.parent = line_id

    def text(self, role: str, text: str) -> None:
        text = scrub(text).strip()
        if not text.strip("`").strip():
            return
        if role == "assistant":
            self.add(role, [{"type": "text", "text": cut(text, ASSISTANT_MAX)}])
        else:
            self.add(role, text)

    def tool(self, name: str, tool_input: dict[str, Any], result: str | None) -> None:
        self.calls += 1
        call = "toolu_" + uuid.uuid5(uuid.NAMESPACE_URL, f"{self.session}:call:{self.calls}").hex[:24]
        clean = {k: cut(scrub(v), INPUT_MAX) if isinstance(v, str) else v for k, v in tool_input.items()}
        self.add("assistant", [{"type": "tool_use", "id": call, "name": name, "input": clean}])
        if result is not None and result.strip():
            self.add("user", [{"type": "tool_result", "tool_use_id": call,
                               "content": cut(scrub(result.strip()), RESULT_MAX)}])


def stamp_of(text: str | None) -> datetime | None:
    found = _STAMP.search(text or "")
    if not found:
        return None
    day, hour, minute, second = found.groups()
    return datetime.fromisoformat(f"{day}T{hour}:{minute}:{second or '00'}")


def v2_input(body: str) -> dict[str, str]:
    """The `**Input:**` list of a SpecStory v2 tool block: `- key: `value`` or `- key:` + a fence."""
    out: dict[str, str] = {}
    part = body.split("**Input:**", 1)[1] if "**Input:**" in body else ""
    part = part.split("**Output:**", 1)[0]
    rows = re.split(r"^- (\w+):", part, flags=re.M)
    for key, value in zip(rows[1::2], rows[2::2]):
        value = value.strip()
        fence = _FENCE.search(value)
        if value.startswith("`") and value.count("`") >= 2 and not value.startswith("```"):
            value = value[1:value.rfind("`")]
        elif fence:
            value = fence.group(2)
        out[key] = value.strip()
    return out


def v2_tool(name: str, body: str) -> tuple[str, dict[str, str], str | None]:
    raw = v2_input(body)
    new, main = RENAME.get(name, (name, ""))
    tool_input: dict[str, str] = {}
    for key, value in raw.items():
        tool_input[_INPUT_KEYS.get(key, key)] = value
    if main == "file_path" and "file_path" not in tool_input:
        for key in ("filePath", "path", "uri"):
            if key in raw:
                tool_input["file_path"] = raw[key]
    if new == "Write" and "content" in tool_input:
        tool_input["content"] = cut(tool_input["content"], INPUT_MAX)
    result = None
    if "**Output:**" in body:
        fence = _FENCE.search(body.split("**Output:**", 1)[1])
        result = fence.group(2) if fence else body.split("**Output:**", 1)[1]
    return new, tool_input, result


def cursor_details(summary: str, body: str) -> tuple[str, dict[str, str], str] | None:
    """A Cursor `<details>` tool block: searches, listings, web searches."""
    summary = summary.split("•")[0].strip()
    rules = ((r'^Searched codebase "(.*)"', "Grep", "pattern"), (r'^Grep search for "(.*)"', "Grep", "pattern"),
             (r'^Searched web "(.*)"', "WebSearch", "query"), (r"^Listed directory (.*)", "LS", "path"),
             (r"^Listed current directory", "LS", "path"), (r'^Searched files? "(.*)"', "Glob", "pattern"))
    for pattern, name, key in rules:
        found = re.match(pattern, summary)
        if found:
            value = found.group(1) if found.groups() else "."
            return name, {key: value.strip()}, body.strip()
    return None


def cursor_segment(writer: Writer, segment: str) -> None:
    """One `---`-separated part of a Cursor assistant turn: tool blocks, terminal runs, reads, prose."""
    rest = segment
    for found in list(_DETAILS.finditer(segment)):
        call = cursor_details(found.group(1), found.group(2))
        if call is not None:
            writer.tool(call[0], call[1], call[2])
            rest = rest.replace(found.group(0), "")
    lines = rest.strip().splitlines()
    prose: list[str] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        read = re.match(r"^Read file: (.+)$", line)
        if read:
            writer.tool("Read", {"file_path": read.group(1).strip()}, None)
            index += 1
            continue
        prose.append(line)
        index += 1
    text = "\n".join(prose).strip()
    fences = list(_FENCE.finditer(text))
    outside = _FENCE.sub("", text).strip()
    if fences and not outside:
        first = fences[0]
        if first.group(1).strip() in ("bash", "sh", "shell", "zsh"):
            result = fences[1].group(2) if len(fences) > 1 else None
            writer.tool("Bash", {"command": first.group(2).strip()}, result)
            return
        if first.group(1).strip() == "diff" or ":" in first.group(1):
            path = first.group(1).split(":", 1)[1] if ":" in first.group(1) else ""
            edit = {"file_path": path} if path else {}
            edit["new_string"] = "\n".join(f.group(2) for f in fences)
            writer.tool("Edit", edit, None)
            return
    writer.text("assistant", text)


def assistant(writer: Writer, body: str) -> None:
    body = _THINK.sub("", body)
    if "<tool-use " in body:
        position = 0
        for found in _TOOL_USE.finditer(body):
            writer.text("assistant", body[position:found.start()].strip().strip("-").strip())
            writer.tool(*v2_tool(found.group(1), found.group(2)))
            position = found.end()
        writer.text("assistant", body[position:].strip().strip("-").strip())
        return
    for segment in re.split(r"^---\s*$", body, flags=re.M):
        if segment.strip():
            cursor_segment(writer, segment)


def convert(path: Path, cwd: str) -> list[dict[str, Any]]:
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    session = _SESSION.search(text)
    named = _NAME_TIME.match(path.name)
    start = (datetime.fromisoformat(f"{named.group(1)}T{named.group(2)}:{named.group(3)}:{named.group(4) or '00'}")
             if named else next((s for s in (stamp_of(line) for line in lines[:8] if line.startswith("#")) if s), None))
    writer = Writer(session.group(1) if session else str(uuid.uuid5(uuid.NAMESPACE_URL, path.name)), cwd,
                    start or datetime(2000, 1, 1))
    role: str | None = None
    body: list[str] = []

    def flush() -> None:
        if role is None:
            return
        content = "\n".join(body).strip()
        if content.endswith("---"):
            content = content[:-3].rstrip()
        if role == "User":
            writer.text("user", content)
        else:
            assistant(writer, content)

    for line in lines:
        marker = _MARKER.match(line)
        if marker:
            flush()
            role, body = marker.group(1), []
            when = stamp_of(marker.group(2))
            writer.at(when)
        elif role is not None:
            body.append(line)
    flush()
    return writer.lines


def out_name(path: Path) -> str:
    """The export's name with characters other than letters, digits, `.`, `_` and `-` made `-`,
    cut at `NAME_MAX` characters."""
    return re.sub(r"-{2,}", "-", re.sub(r"[^A-Za-z0-9._-]", "-", path.stem))[:NAME_MAX].rstrip("-")


def main(argv: list[str]) -> int:
    out_dir, cwd, files = Path(argv[0]), argv[1], [Path(a) for a in argv[2:]]
    out_dir.mkdir(parents=True, exist_ok=True)
    for path in files:
        rows = convert(path, cwd)
        (out_dir / (out_name(path) + ".jsonl")).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                                                     encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
