"""A settings file in JSON, read and written back in its own layout.

`read` gives the file's text (for its layout) and its object; `rewritten` writes back an
object that lost some entries and gained others by cutting them out of the text and adding
them after their neighbours, laid out like them, every other character as it was (what
connect and disconnect do); `dump`, used when that cannot be done, writes an object back laid
out like that text: keys keep their order and the indentation width (spaces or tabs),
line endings and final newline are kept, but spacing inside a line, number spellings (`1e3`)
and escapes (`\\u00e9`) come out in Python's canonical form, and a key repeated in one object
keeps its last value. Every connector that edits a JSON settings file uses these.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from ..errors import ConfigError


def load(path: Path) -> dict[str, Any]:
    return read(path)[1]


def read(path: Path) -> tuple[str, dict[str, Any]]:
    """The file's text (for its layout) and its JSON object; ("", {}) when absent or empty."""
    try:
        with path.open(encoding="utf-8", newline="") as handle:  # line endings as they are
            text = handle.read()
    except FileNotFoundError:
        return "", {}
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError(f"cannot read {path}: {getattr(err, 'strerror', None) or err}") from None
    if not text.strip():
        return text, {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise ConfigError(f"{path} is not valid JSON (line {err.lineno}, column {err.colno}: {err.msg}); "
                          "fix it or move it aside, then connect again. Nothing was changed.") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path} must hold a JSON object; nothing was changed")
    return text, data


def dump(data: dict[str, Any], original: str = "") -> str:
    """`data` as JSON laid out like `original`: its indentation (width, or tabs), line endings
    and final newline; a single-line file stays on one line; a new file gets two spaces."""
    indent: int | str | None = 2
    found = re.search(r"\n([ \t]+)\S", original)
    if found:
        indent = found.group(1) if "\t" in found.group(1) else len(found.group(1))
    elif original.strip():
        indent = None if "\n" not in original.strip() else 2
    text = json.dumps(data, indent=indent, ensure_ascii=False)
    if original.endswith("\n") or not original.strip():
        text += "\n"
    return text.replace("\n", "\r\n") if "\r\n" in original else text


# -- taking entries out without touching the rest of the text ------------------------------------


def rewritten(data: dict[str, Any], original: str) -> str:
    """The text of a file whose object lost some entries and gained others (a connect or a
    disconnect): the original text with just those entries (and the separators that went with
    them) cut out or added, every other character as it was; laid out anew by `dump` only when
    that cannot be done (or the file is new)."""
    return (without(original, data) if original.strip() else None) or dump(data, original)


class _Node:
    """A JSON value's place in the text: `start`/`end`, and for an object or array its members
    (`key` None for an array item) with the span from the key (or item) to the value's end."""

    __slots__ = ("start", "end", "members")

    def __init__(self, start: int, end: int, members: list[tuple[str | None, int, _Node]] | None = None) -> None:
        self.start, self.end, self.members = start, end, members


_SPACE = " \t\r\n"
_DECODER = json.JSONDecoder()


def _skip(text: str, at: int) -> int:
    while at < len(text) and text[at] in _SPACE:
        at += 1
    return at


def _value(text: str, at: int) -> _Node:
    at = _skip(text, at)
    opener = text[at:at + 1]
    if opener not in ("{", "["):
        _, end = _DECODER.raw_decode(text, at)
        return _Node(at, end)
    members: list[tuple[str | None, int, _Node]] = []
    closer = "}" if opener == "{" else "]"
    here = _skip(text, at + 1)
    while text[here] != closer:
        start = here
        key = None
        if opener == "{":
            key, here = _DECODER.raw_decode(text, here)
            here = _skip(text, here) + 1  # the colon
        node = _value(text, here)
        members.append((key, start, node))
        here = _skip(text, node.end)
        if text[here] == ",":
            here = _skip(text, here + 1)
    return _Node(at, here + 1, members)


def without(text: str, data: Any) -> str | None:
    """`text` turned into `data` by cutting out members and items and adding new ones, every
    other character left as it was: `data` must be the text's JSON with some object members and
    array items taken out and others added after the ones kept (what connect and disconnect do).
    None when it is not (something else changed), or the text cannot be read so."""
    try:
        root = _value(text, 0)
        edits: list[tuple[int, int, str]] = []
        if not _edits(text, root, json.loads(text), data, edits):
            return None
    except (ValueError, IndexError):
        return None
    for start, end, insert in sorted(edits, reverse=True):
        text = text[:start] + insert + text[end:]
    try:
        same = json.dumps(json.loads(text)) == json.dumps(data)
    except ValueError:
        return None
    return text if same else None


def _edits(text: str, node: _Node, old: Any, new: Any, edits: list[tuple[int, int, str]]) -> bool:
    """Add the edits that turn `old` (at `node`) into `new`; False when they cannot."""
    if old == new and json.dumps(old) == json.dumps(new):
        return True
    if node.members is None or type(old) is not type(new) or not isinstance(old, (dict, list)):
        return False
    if isinstance(old, dict):
        keys = [key for key, _, _ in node.members]
        if keys != list(old) or [k for k in new if k in old] != [k for k in old if k in new]:
            return False
        kept = [key in new for key in keys]
        pairs = [(old[key], new.get(key)) for key in keys]
        added = [(key, value) for key, value in new.items() if key not in old]
        if added and any(k not in old for k in list(new)[:len([k for k in new if k in old])]):
            return False  # a new member between old ones: only appending keeps the order
    else:
        found = _kept_items(old, new)
        if found is None:
            return False
        kept, count = found
        it = iter(new)
        pairs = [(item, next(it) if keep else None) for item, keep in zip(old, kept, strict=True)]
        added = [(None, value) for value in new[count:]]
    for (_, _, child), keep, (was, now) in zip(node.members, kept, pairs, strict=True):
        if keep and not _edits(text, child, was, now, edits):
            return False
    if not any(kept) and node.members:
        edits.append((node.start + 1, node.end - 1, _block(text, node, added, first=True) if added else ""))
        return True
    edits.extend((start, end, "") for start, end in _spans(node, kept))
    if added:
        at = node.members[-1][2].end if node.members else node.start + 1
        edits.append((at, at, _block(text, node, added, first=not node.members)))
    return True


def _kept_items(old: list[Any], new: list[Any]) -> tuple[list[bool], int] | None:
    """Which items of `old` stay, in order, each equal to the next of `new` or changed into it
    only by removals and additions (a list or an object of the same kind), and how many items of
    `new` they make; the rest of `new` is added after them. None when `new` is not that."""
    kept: list[bool] = []
    matched = 0
    for index, item in enumerate(old):
        if matched < len(new) and (item == new[matched] or (
                type(item) is type(new[matched]) and isinstance(item, (dict, list)) and item not in new
                and new[matched] not in old[index + 1:])):
            kept.append(True)
            matched += 1
        else:
            kept.append(False)
    return kept, matched


def _block(text: str, node: _Node, added: list[tuple[str | None, Any]], *, first: bool) -> str:
    """The text of members (or items) added to the container at `node`, laid out like its
    neighbours: one per line at their indentation, or on the container's one line."""
    inside = text[node.start:node.end]
    newline = "\r\n" if "\r\n" in text else "\n"
    pieces = [(json.dumps(key, ensure_ascii=False) + ": " if key is not None else "", value) for key, value in added]
    if "\n" not in inside and (node.members or "\n" not in text):
        body = ", ".join(label + json.dumps(value, ensure_ascii=False) for label, value in pieces)
        return body if first else ", " + body
    unit = _unit(text)
    outer = _indent_at(text, node.start)
    inner = _indent_at(text, node.members[0][1]) if node.members else outer + (
        unit if isinstance(unit, str) else " " * unit)
    rendered = [label + json.dumps(value, indent=unit, ensure_ascii=False).replace("\n", newline + inner)
                for label, value in pieces]
    body = ("," + newline + inner).join(rendered)
    if first:
        return newline + inner + body + newline + outer
    return "," + newline + inner + body


def _unit(text: str) -> int | str:
    found = re.search(r"\n([ \t]+)\S", text)
    if not found:
        return 2
    return found.group(1) if "\t" in found.group(1) else len(found.group(1))


def _indent_at(text: str, at: int) -> str:
    """The whitespace that starts the line `at` is on."""
    line = text.rfind("\n", 0, at) + 1
    return re.match(r"[ \t]*", text[line:at]).group(0)  # type: ignore[union-attr]
def _spans(node: _Node, kept: list[bool]) -> list[tuple[int, int]]:
    """The text to cut for the members not kept, with the separators that go with them: up to the
    next member when a kept one follows, else from the end of the last kept one before."""
    assert node.members is not None
    cuts: list[tuple[int, int]] = []
    starts = [start for _, start, _ in node.members]
    ends = [child.end for _, _, child in node.members]
    last_kept = max((i for i, keep in enumerate(kept) if keep), default=None)
    for index, keep in enumerate(kept):
        if keep:
            continue
        if last_kept is not None and index < last_kept:
            cuts.append((starts[index], starts[index + 1]))
        elif last_kept is not None:
            cuts.append((ends[last_kept] if index == last_kept + 1 else ends[index - 1], ends[index]))
        else:
            cuts.append((starts[index], starts[index + 1] if index + 1 < len(starts) else ends[index]))
    return cuts
