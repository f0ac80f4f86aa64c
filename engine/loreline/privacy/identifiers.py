"""Paths, session ids and working directories as they are stored: they pass the same
redaction as text (a token in a folder name, `password=…` in a path), and lose control
characters, before they reach the database, a listing or a request.

`stored(value)` is called wherever such a value is written or looked up (the project key,
provenance, the ledger, replays, memory files), so a lookup and a write always agree. Light:
`redact` is imported only for a value that could hold a secret (a cheap test), because the
SessionStart hook computes a project key on every start.
"""

from __future__ import annotations

import functools
import re

_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_GLUED_RE: re.Pattern[str] | None = None  # built on first use: the hooks rarely need it
_LONG_MIXED_RE = re.compile(r"[A-Za-z0-9]{20,}")
_TOKEN_START_RE = re.compile(r"gh[pousr]_|github_pat_|gl[a-z]{1,5}-|sk-|[rs]k_live|xox[a-z]-|A[KS]IA|AIza|hf_|npm_|"
                             r"pypi-|dckr_pat_|eyJ|:[^/\\]")


@functools.lru_cache(maxsize=8192)
def stored(value: str) -> str:
    """`value` with control characters removed and any secret in it redacted (a session names
    the same files and ids over and over: the answers are kept)."""
    if _CONTROL_RE.search(value):
        value = _CONTROL_RE.sub("", value)
    if not _could_hold_secret(value):
        return value
    from .redact import redact

    return _glued_tokens(redact(value))


def _glued_tokens(value: str) -> str:
    """Tokens glued to a word by `-` or `_` (`work-ghp_…`, `session-AKIA….jsonl`): in text the
    redactor wants a boundary before a token; in a name, a separator is one."""
    from . import patterns as P

    global _GLUED_RE
    if _GLUED_RE is None:
        _GLUED_RE = re.compile("|".join(f"(?P<t{i}>{source.replace('(?P<s>', '(?:')})"
                                        for i, (_, source) in enumerate(P.TOKEN_FAMILIES)))
    pieces, last = [], 0
    for start in [m.start() for m in _TOKEN_START_RE.finditer(value)]:
        if start < last:
            continue
        found = _GLUED_RE.match(value, start)
        if found is None:
            continue
        family = P.TOKEN_FAMILIES[int((found.lastgroup or "t0")[1:])][0]
        pieces += [value[last:start], f"{P.MARKER_PREFIX}{family}]"]
        last = found.end()
    return "".join(pieces) + value[last:] if pieces else value


def _could_hold_secret(value: str) -> bool:
    """An operator or a userinfo `@`, a known token prefix, or a long letters-and-digits run:
    a plain project path (`/home/me/src/shop`, a pytest temp dir) has none of them."""
    if "=" in value or "@" in value or _TOKEN_START_RE.search(value):
        return True
    return any(any(c.isdigit() for c in run) and any(c.isalpha() for c in run)
               for run in _LONG_MIXED_RE.findall(value))
