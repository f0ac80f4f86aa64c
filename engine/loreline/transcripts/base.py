"""Shared pieces of the transcript parsers: building turns and cleaning their text.

`TurnBuilder` accumulates turns while records stream past. Assistant content that arrives
as several lines of one message is merged into one turn; tool-call file paths without any
prose are held until the next assistant turn (or attached to the previous one at the end),
so no touch is lost. A tool call worth an action line (`actions`) is added as its own turn on
the call's line, closing the open assistant turn (the message's later text starts a new one);
its result fills it in when it arrives (`resolve`), and `finish` writes its text.

Invariant shared by every reader: text injected into a session by a harness or a hook —
above all Loreline's own `<loreline-memories>` block — never becomes (part of) a turn.
`strip_injected` removes such spans from any text a reader is about to keep and counts
each removal by reason; a text left empty is dropped.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Protocol, TypeGuard

from ..models import ACTION, ParseStats, Speaker, Turn
from .paths import is_path, tool_input_paths

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .actions import Call, Pending, Result

LORELINE_TAG = "<loreline-memories>"
#: (opening tag, closing tag, drop reason); a span without its closing tag runs to the end.
INJECTED_SPANS: tuple[tuple[str, str, str], ...] = (
    (LORELINE_TAG, "</loreline-memories>", "loreline-memories"),
    ("<system-reminder>", "</system-reminder>", "hook-context"),
)
IDE_OPEN = "<ide_"
IDE_REASON = "ide-context"
#: how Claude Code's IDE blocks name their file: (text before the path, text after it)
IDE_FILE_PHRASES = (("opened the file ", " in the IDE"), (" from ", ":\n"), ("closed the file ", " in the IDE"))
_UUID_TAIL = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.I)


class Drops(Protocol):
    """Anything that counts dropped things by reason (`ParseStats`, a reader's own tally)."""

    def drop(self, reason: str, n: int = 1) -> None: ...


class ReaderBase:
    """What every reader carries: the counters, the turns being built and the session's
    identity as far as the records tell it."""

    tool = ""

    def __init__(self, stats: ParseStats) -> None:
        self.stats = stats
        self.builder = TurnBuilder()
        self.session_id: str | None = None
        self.cwd: str | None = None
        self.started_at: str | None = None

    def finish(self) -> list[Turn]:
        return self.builder.finish(self.cwd)


class TurnBuilder:
    def __init__(self) -> None:
        self.turns: list[Turn] = []
        self._open: Turn | None = None
        self._loose_files: list[str] = []
        #: action turns being built: index in `turns` -> its call and outcome so far
        self._actions: dict[int, Pending] = {}
        #: tool call id -> index in `turns`, for the result that arrives later
        self._calls: dict[str, int] = {}
        #: calls shown only when the person refuses them: id -> (line, time stamp, the call, or its
        #: tool's name and input, classified only if it is refused)
        self._quiet: dict[str, tuple[int, str | None, Call | tuple[Any, Any]]] = {}
        #: the ids of quiet calls the person refused
        self._refused: set[str] = set()

    def add(self, speaker: Speaker, text: str, lineno: int, stamp: str | None, files: tuple[str, ...] = (),
            origin: str = "prompt") -> None:
        self._close()
        self.turns.append(Turn(speaker, text, lineno, lineno, stamp, _unique(files), origin))

    def add_action(self, call: Call | None, lineno: int, stamp: str | None, key: str | None = None) -> None:
        """Add a tool call worth an action line (`actions.call`) on its line; `key` is the call's
        id, by which its result is matched later. The open assistant turn ends here."""
        if call is None or (key is not None and (key in self._calls or key in self._quiet)):
            return
        if not call.origin:  # shown only if refused: it leaves the turns as they are until then
            if key is not None:
                self._quiet[key] = (lineno, stamp, call)
            return
        from .actions import Pending

        self._close()
        if key is not None:
            self._calls[key] = len(self.turns)
        self._actions[len(self.turns)] = Pending(call)
        self.turns.append(Turn(ACTION, "", lineno, lineno, stamp, (), call.origin))

    def add_quiet(self, name: Any, tool_input: Any, lineno: int, stamp: str | None, key: str | None) -> None:
        """Keep a tool call of a tool that does not act (not in `actions.ACTING_TOOLS`) aside,
        unclassified, in case the person refuses it."""
        if key is not None and key not in self._quiet and key not in self._calls:
            self._quiet[key] = (lineno, stamp, (name, tool_input))

    def resolve(self, key: str, result: Result) -> bool:
        """Fill in the outcome of the call with id `key`; False when no such call waits."""
        index = self._calls.get(key)
        if index is None:
            if key in self._quiet and result.denied:
                self._refused.add(key)
            return key in self._quiet
        from .actions import resolve

        resolve(self._actions[index], result)
        return True

    def quiet(self, key: str) -> bool:
        """Whether the call with id `key` is shown only if refused: whether it was is all its result
        can tell (`refused`), so a reader need not build a `Result` for it."""
        return key in self._quiet and key not in self._calls

    def refused(self, key: str) -> None:
        """The person refused the quiet call with id `key` (`resolve` with a denied result)."""
        self._refused.add(key)

    def reads(self, key: str) -> bool:
        """Whether the output of the call with id `key` is read: only a command's that ran gives
        its outcome line (an edit's result says only whether it failed; a call shown only if
        refused needs no more than that)."""
        index = self._calls.get(key)
        return index is not None and self._actions[index].call.origin == "ran"

    def waits_for(self, key: object) -> TypeGuard[str]:
        """Whether a call with id `key` was added (its result is worth reading)."""
        return isinstance(key, str) and (key in self._calls or key in self._quiet)

    def add_assistant(self, text: str, lineno: int, stamp: str | None, files: list[str], *, merge: bool,
                      extend: bool = True) -> None:
        """Add one line of assistant output; `merge` continues the open message. `extend=False`:
        a line without text does not stretch the open turn over itself (its tool calls are
        action turns on that line, which must not overlap it); its files still join."""
        if merge and not text and not extend:
            self.add_files(files)
            return
        if merge and self._open is not None:
            joined = "\n\n".join(t for t in (self._open.text, text) if t)
            self._open = Turn(
                "assistant", joined, self._open.line_start, lineno, self._open.timestamp,
                _unique(self._open.files + tuple(files)),
            )
            return
        if merge and not text:
            self._loose_files.extend(files)
            return
        self._close()
        if text:
            self._open = Turn("assistant", text, lineno, lineno, stamp, _unique(tuple(self._loose_files + files)))
            self._loose_files = []
        else:
            self._loose_files.extend(files)

    def add_files(self, files: list[str]) -> None:
        """Files touched by a tool call outside any message: they join the open assistant
        turn (its lines unchanged), else wait for the next one."""
        if self._open is not None:
            turn = self._open
            self._open = Turn(turn.speaker, turn.text, turn.line_start, turn.line_end, turn.timestamp,
                              _unique(turn.files + tuple(files)))
        else:
            self._loose_files.extend(files)

    def finish(self, cwd: str | None = None, *, results: bool = True) -> list[Turn]:
        """The turns, action turns written (`actions.settle`: paths relative to `cwd`; `results`
        False for a format that records no tool results)."""
        self._close()
        if self._loose_files:
            for index in range(len(self.turns) - 1, -1, -1):
                turn = self.turns[index]
                if turn.speaker == "assistant":
                    self.turns[index] = Turn(
                        turn.speaker, turn.text, turn.line_start, turn.line_end, turn.timestamp,
                        _unique(turn.files + tuple(self._loose_files)),
                    )
                    break
            self._loose_files = []
        self._place_refused()
        if self._actions:
            from .actions import settle

            self.turns = settle(self.turns, self._actions, cwd, results=results)
            self._actions, self._calls = {}, {}
        return self.turns

    def _place_refused(self) -> None:
        """Quiet calls the person refused become action turns, placed by their line."""
        from .actions import Call, Pending, call

        refused: list[tuple[int, str | None, Pending]] = []
        for key in self._refused:
            line, stamp, kept = self._quiet[key]
            found = kept if isinstance(kept, Call) else call(*kept)
            if found is not None:
                refused.append((line, stamp, Pending(found, denied=True)))
        refused.sort(key=lambda item: item[0])
        self._quiet, self._refused = {}, set()
        if not refused:
            return
        merged: list[Turn] = []
        actions: dict[int, Pending] = {}
        queue = list(refused)
        for index, turn in enumerate(self.turns):
            while queue and queue[0][0] < turn.line_start:
                self._refused_turn(queue.pop(0), merged, actions)
            if index in self._actions:
                actions[len(merged)] = self._actions[index]
            merged.append(turn)
        for item in queue:
            self._refused_turn(item, merged, actions)
        self.turns, self._actions = merged, actions

    @staticmethod
    def _refused_turn(item: tuple[int, str | None, Pending], merged: list[Turn], actions: dict[int, Pending]) -> None:
        line, stamp, state = item
        actions[len(merged)] = state
        merged.append(Turn(ACTION, "", line, line, stamp, (), "denied"))

    def _close(self) -> None:
        if self._open is not None:
            self.turns.append(self._open)
            self._open = None


def _unique(paths: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(paths))


def remove_spans(text: str, opening: str, closing: str) -> tuple[str, int]:
    """`text` without every `opening…closing` span (an unclosed one runs to the end)."""
    pieces: list[str] = []
    count = 0
    at = 0
    while True:
        start = text.find(opening, at)
        if start < 0:
            break
        count += 1
        pieces.append(text[at:start])
        end = text.find(closing, start + len(opening))
        if end < 0:
            at = len(text)
            break
        at = end + len(closing)
    if not count:
        return text, 0
    pieces.append(text[at:])
    return "".join(pieces), count


def strip_injected(text: str, stats: Drops) -> str:
    """`text` without injected spans (counted by reason), stripped of outer whitespace."""
    if "<" in text:
        for opening, closing, reason in INJECTED_SPANS:
            if opening in text:
                text, count = remove_spans(text, opening, closing)
                stats.drop(reason, count)
    return text.strip()


def take_ide_blocks(text: str, stats: Drops, files: list[str]) -> str:
    """`text` without the blocks an editor integration adds to a message (`<ide_opened_file>`,
    `<ide_selection>`, any `<ide_…>` block, with or without attributes; an unclosed one runs
    to the end only when it opens the text: elsewhere it is someone writing about the tag),
    each counted as `ide-context`; the file each block names joins `files`."""
    at = text.find(IDE_OPEN)
    while at >= 0:
        name_end = at + 1
        while name_end < len(text) and (text[name_end].isalnum() or text[name_end] == "_"):
            name_end += 1
        body = text.find(">", name_end)
        if body < 0 or (name_end < len(text) and text[name_end] not in "> \t\n"):
            at = text.find(IDE_OPEN, at + 1)
            continue
        closing = f"</{text[at + 1:name_end]}>"
        end = text.find(closing, body)
        if end < 0 and text[:at].strip():
            at = text.find(IDE_OPEN, at + 1)
            continue
        stop, resume = (len(text), len(text)) if end < 0 else (end, end + len(closing))
        path = ide_file(text[body + 1:stop])
        if path:
            files.append(path)
        stats.drop(IDE_REASON)
        text = text[:at] + text[resume:]
        at = text.find(IDE_OPEN, at)
    return text


def ide_file(body: str) -> str | None:
    """The file an IDE block names: `The user opened the file <path> in the IDE.` or
    `The user selected the lines <a> to <b> from <path>:`."""
    for before, after in IDE_FILE_PHRASES:
        at = body.find(before)
        if at < 0:
            continue
        start = at + len(before)
        end = body.find(after, start)
        path = (body[start:end] if end >= 0 else body[start:].split("\n", 1)[0]).strip().rstrip(":")
        return path if is_path(path) else None
    return None


def mentions(value: Any, needle: str) -> bool:
    """True when a string, or a list of strings or text blocks, contains `needle`."""
    if isinstance(value, str):
        return needle in value
    if isinstance(value, list):
        for item in value:
            text = item.get("text") if isinstance(item, dict) else item
            if isinstance(text, str) and needle in text:
                return True
    return False


def content_blocks(content: Any, stats: ParseStats, calls: dict[str, str] | None = None,
                   uses: list[tuple[dict[str, Any], list[str]]] | None = None) -> tuple[list[str], list[str]] | None:
    """The texts (stripped, non-empty) and tool-call file paths of a string or a list of content
    blocks; None when the content is malformed. Other blocks are counted as `block:<type>`
    (tool calls as `block:tool_use`): their inputs give paths, never text. `calls`, when
    given, receives each tool call's id → tool name; `uses` each tool call block with the paths
    its input names (worked out once: `actions.call` takes them)."""
    if isinstance(content, str):
        text = content.strip()
        return ([text] if text else []), []
    if not isinstance(content, list):
        stats.drop("bad-content")
        return None
    texts: list[str] = []
    files: list[str] = []
    for block in content:
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text":
            text = block.get("text")
            if not isinstance(text, str):
                stats.drop("bad-content")
            elif text.strip():
                texts.append(text.strip())
        elif kind == "tool_use":
            stats.drop("block:tool_use")
            name = block.get("name")
            paths = tool_input_paths(name, block.get("input"))
            files.extend(paths)
            if calls is not None and isinstance(block.get("id"), str) and isinstance(name, str):
                calls[block["id"]] = name
            if uses is not None:
                uses.append((block, paths))
        else:
            stats.drop(f"block:{kind}" if isinstance(kind, str) else "block:unknown")
    return texts, files


def block_texts(content: Any, stats: ParseStats) -> str | None:
    """The text of a string or a list of content blocks; None when the content is malformed."""
    parts = content_blocks(content, stats)
    return None if parts is None else "\n\n".join(parts[0])


def session_from_name(path: Path) -> str:
    """A session id from a file name: the UUID it ends with, else the name without suffix."""
    stem = path.name.removesuffix(".jsonl").removesuffix(".json")
    match = _UUID_TAIL.search(stem)
    return match.group(0) if match else stem
