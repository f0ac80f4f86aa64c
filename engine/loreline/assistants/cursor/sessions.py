"""Cursor agent transcripts (`~/.cursor/projects/<slug>/agent-transcripts/<uuid>/<uuid>.jsonl`,
or flat `agent-transcripts/<uuid>.jsonl`).

Each line holds only `role` and `message` (`{"content": [blocks] | str}`): no timestamps,
ids, working directory or tool results. A user's words sit inside `<user_query>…</user_query>`;
everything around them (`<user_info>`, `<attached_files>`, rules, …) is context Cursor
added and is dropped as `cursor-context`. Assistant lines are `text` and `tool_use`
blocks; consecutive assistant lines are one agent response and become one turn. Text that
is only a `[REDACTED]` placeholder is dropped (`redacted`).

A tool call worth an action line (`transcripts.actions`: `Shell`, `StrReplace`, `Write`,
`Delete`, `EditNotebook`) becomes an action turn on its line, ending the open agent turn (the
response's later text starts a new one). Cursor records no tool results: a command's line
has no outcome, an edit is taken as made, and a refusal cannot be seen.

The working directory is left unknown (`cwd` None): the project folder's name is a lossy
encoding of the path (`/`, `.`, `_`, spaces all became `-`) and the reader never decodes
it. `cwd_from_slug` is the last resort a caller may use when nothing better is known: it
returns a folder only when exactly one existing folder on this machine encodes to the slug.
The session id is the file's UUID.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from ...models import ParseStats, Turn
from ...transcripts import actions
from ...transcripts.base import ReaderBase, block_texts, content_blocks, remove_spans, strip_injected
from ...transcripts.paths import is_path

QUERY_OPEN, QUERY_CLOSE = "<user_query>", "</user_query>"
#: blocks Cursor puts around a request when no `<user_query>` marks the request itself
CONTEXT_TAGS = ("user_info", "attached_files", "rules", "project_layout", "git_status", "system_reminder",
                "open_and_recently_viewed_files", "additional_data", "cursor_commands", "agent_skills",
                "terminal_selection")
#: the editor's attachments (`<code_selection path="…" lines="…">`, `<file_contents path="…">`)
ATTACHED_OPEN, ATTACHED_CLOSE = "<attached_files>", "</attached_files>"
_PATH_ATTRIBUTE = re.compile(r'\bpath="([^"\n]+)"')
REDACTED = "[REDACTED]"
SLUG_JOINERS = ("/", "-", ".", "_", " ")
MAX_SLUG_PROBES = 256


def looks_like(record: dict[str, Any]) -> bool:
    """A `{"role", "message": {…}}` line with no `type` (Claude Code lines always have one)."""
    return isinstance(record.get("role"), str) and isinstance(record.get("message"), dict) and "type" not in record


class CursorReader(ReaderBase):
    tool = "cursor"

    def __init__(self, stats: ParseStats) -> None:
        super().__init__(stats)
        self._after_assistant = False

    def feed(self, lineno: int, record: dict[str, Any]) -> None:
        role = record.get("role")
        message = record.get("message")
        if not isinstance(message, dict):
            self.stats.drop("bad-message")
            return
        if role == "user":
            self._user(lineno, message.get("content"))
        elif role == "assistant":
            self._assistant(lineno, message.get("content"))
        else:
            self.stats.drop(f"role:{role}" if isinstance(role, str) else "role:unknown")

    def _user(self, lineno: int, content: Any) -> None:
        text = block_texts(content, self.stats)
        if not text:
            return
        files = attached_files(text) if ATTACHED_OPEN in text else []
        text = strip_injected(user_query(text, self.stats), self.stats)
        if text:
            self._after_assistant = False
            self.builder.add("user", text, lineno, None, tuple(files))

    def _assistant(self, lineno: int, content: Any) -> None:
        uses: list[tuple[dict[str, Any], list[str]]] = []
        parts = content_blocks(content, self.stats, uses=uses)
        if parts is None:
            return
        texts, files = parts
        kept = [t for t in texts if t != REDACTED]
        if len(kept) < len(texts):
            self.stats.drop("redacted", len(texts) - len(kept))
        text = strip_injected("\n\n".join(kept), self.stats) if kept else ""
        calls = [actions.call(use.get("name"), use.get("input"), paths) for use, paths in uses]
        calls = [found for found in calls if found is not None and found.origin]  # no results: nothing is refused
        self.builder.add_assistant(text, lineno, None, files, merge=self._after_assistant, extend=not calls)
        for found in calls:
            self.builder.add_action(found, lineno, None)
        self._after_assistant = True

    def finish(self) -> list[Turn]:
        return self.builder.finish(self.cwd, results=False)


def user_query(text: str, stats: ParseStats) -> str:
    """The request inside `<user_query>` tags, else the text without Cursor's context blocks."""
    start = text.find(QUERY_OPEN)
    if start >= 0:
        parts: list[str] = []
        while start >= 0:
            end = text.find(QUERY_CLOSE, start)
            stop = end if end >= 0 else len(text)
            parts.append(text[start + len(QUERY_OPEN):stop].strip())
            start = text.find(QUERY_OPEN, stop)
        if text[: text.find(QUERY_OPEN)].strip():
            stats.drop("cursor-context")
        return "\n\n".join(p for p in parts if p)
    for tag in CONTEXT_TAGS:
        if f"<{tag}>" in text:
            text, count = remove_spans(text, f"<{tag}>", f"</{tag}>")
            stats.drop("cursor-context", count)
    return text.strip()


def attached_files(text: str) -> list[str]:
    """The files named by the editor's `<attached_files>` blocks (kept as metadata; the
    blocks themselves are dropped with the rest of Cursor's context)."""
    found: list[str] = []
    start = text.find(ATTACHED_OPEN)
    while start >= 0:
        end = text.find(ATTACHED_CLOSE, start)
        stop = len(text) if end < 0 else end
        found.extend(p for p in _PATH_ATTRIBUTE.findall(text, start, stop) if is_path(p))
        start = text.find(ATTACHED_OPEN, stop)
    return found


def cwd_from_slug(transcript: Path) -> str | None:
    """The one existing folder whose Cursor slug is this transcript's project folder name.

    `…/projects/<slug>/agent-transcripts/…`: each `-` of the slug was `/`, `-`, `.`, `_` or a
    space. Names are rebuilt folder by folder against what each folder really contains, within
    `MAX_SLUG_PROBES` folder listings; None when no folder or more than one folder matches,
    or the search is cut short.
    """
    parts = transcript.parts
    if "agent-transcripts" not in parts or parts.index("agent-transcripts") < 1:
        return None
    words = parts[parts.index("agent-transcripts") - 1].split("-")
    found: list[str] = []
    listings: dict[str, list[str]] = {}
    _explore("/", words[0], words[1:], found, listings)
    return found[0] if len(found) == 1 and len(listings) <= MAX_SLUG_PROBES else None


def _explore(parent: str, name: str, rest: list[str], found: list[str], listings: dict[str, list[str]]) -> None:
    """Extend `name` (being built inside the existing folder `parent`) with the slug's next words."""
    if len(listings) > MAX_SLUG_PROBES or len(found) > 1:
        return
    entries = _listing(parent, listings)
    if not any(entry.startswith(name) for entry in entries):
        return
    here = os.path.join(parent, name)
    if name in entries and os.path.isdir(here):
        if not rest:
            found.append(here)
            return
        _explore(here, rest[0], rest[1:], found, listings)
    for joiner in SLUG_JOINERS[1:]:
        if rest:
            _explore(parent, name + joiner + rest[0], rest[1:], found, listings)


def _listing(folder: str, listings: dict[str, list[str]]) -> list[str]:
    if folder not in listings:
        try:
            listings[folder] = os.listdir(folder)
        except OSError:
            listings[folder] = []
    return listings[folder]
