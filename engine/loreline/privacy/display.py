"""Stored text made safe to print: control characters shown, never obeyed.

`printable(text)` is what every surface that shows stored text calls (the CLI's renderers,
`loreline transcript`, the SessionStart block; the language server's serializer can call it
too): C0 and C1 control characters (ESC, BEL, NUL, the CSI/OSC introducers that move the
cursor or write to the clipboard), DEL, line and paragraph separators and bidi overrides come
out as visible escapes (`\\x1b`, `\\u202e`), so a terminal or an editor renders them as text.
Newlines and tabs are kept when `multiline`, else shown as `\\n` / `\\t`. Text with nothing to
escape is returned as is. Standard library only: the hooks import it.
"""

from __future__ import annotations

import re

_ALWAYS = "\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069"
_SOURCES = (f"[{_ALWAYS}\\t\\n\\r]",  # one line
            f"[{_ALWAYS}\\r]")  # multiline: a bare CR could hide the line before it
_COMPILED: dict[bool, re.Pattern[str]] = {}  # compiled on first use: not every command prints stored text
_NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}


def printable(text: str, multiline: bool = False) -> str:
    """`text` with every control character written as a visible escape."""
    regex = _COMPILED.get(multiline)
    if regex is None:
        regex = _COMPILED[multiline] = re.compile(_SOURCES[multiline])
    if regex.search(text) is None:
        return text
    return regex.sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
