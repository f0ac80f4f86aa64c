"""The value a command rule found: whether it can be a secret, and its span.

A value is not a secret when it is a flag, a redirection, a BuildKit mount spec, a path, a
placeholder (`context.placeholder`), a reference (`$X`, `${X}`, `$(cmd)`, `` `cmd` ``, `#{x}`,
`{{ x }}`, `%X%`, `$env:X`, `' + x + '`) or the all-capitals name of a value (`PASSWORD`);
where numbers cannot be secrets (a port, a user id), not a number or a port map either.
"""

from __future__ import annotations

from .context import placeholder
from .shellwords import Span, Word, lazy_patterns, unquote

PRIORITY = 1

pattern = lazy_patterns({
    "number": r"\d{1,5}(?:[-:]\d{1,5}){0,2}|[\d.]{7,15}:\d{1,5}(?::\d{1,5})?|[\d.:/\[\]-]{1,40}[.:/\[\]-][\d.:/\[\]-]{0,40}",
    "user_pw": r"""(?:[\w.-]{1,64}[/\\]{1,2})?[\w.@$-]{1,64}["']?(?P<sep>[:%])(?P<pw>[^\s'"]{1,128})""",
    "buildkit": r"(?:id|src|source|env|type|target|required|mode|uid|gid)=",
    "redirect": r"\d?[<>]|&|\|",
    "reference": r"\$[{(A-Za-z_$]|\\\$|`|#\{|\{\{|%[A-Za-z_]\w*%|\$env:|['\"] ?\+|\+ ?['\"]",
    # a file the tool reads the secret from, or a list of candidates (`-P rockyou.txt`, `dist/*`)
    "file": r"(?:file|env|fileb):.+|@[\w./~-]+|[\w./~-]+\.(?:txt|lst|list|dic|dict|wordlist|key|pem|pub)|\S*/\*\S*|stdin|-",
})


def value_word(text: str, word: Word, spans: list[Span], numbers: bool = True, user_pass: bool = False) -> None:
    """The value a flag was given: not a flag, a reference, a placeholder, a redirection, a
    path or a BuildKit spec; with `numbers`, not a number or a port map either."""
    start, end = unquote(text, word[0], word[1])
    value = text[start:end]
    if not value or value.startswith("-") or pattern("redirect").match(value) or pattern("buildkit").match(value):
        return
    if numbers and pattern("number").fullmatch(value):
        return
    if (value.startswith(("/", "~/", "./", "../")) and " " not in value) or pattern("file").fullmatch(value):
        return
    if user_pass and ":" in value:
        start = text.find(":", start) + 1
    add(text, start, end, spans)


def user_secret(text: str, word: Word, spans: list[Span]) -> None:
    """`user:secret` or `DOMAIN\\user%secret`: only the secret goes."""
    start, end = unquote(text, word[0], word[1])
    match = pattern("user_pw").fullmatch(text, start, end)
    if match is not None:
        add(text, match.start("pw"), match.end("pw"), spans)


def add(text: str, start: int, end: int, spans: list[Span], unquoted: bool = False) -> None:
    """Record text[start:end] as a secret unless it is a placeholder or a reference."""
    if unquoted:
        start, end = unquote(text, start, end)
    value = text[start:end]
    if end <= start or placeholder(value) or value.startswith(("%", "<", "[")) or pattern("reference").search(value):
        return
    if value.isalpha() and value.isupper():
        return  # `PASSWORD`, `APIKEY`: the name of a value, written where it goes
    spans.append((start, end, "password" if len(value) < 24 else "secret", PRIORITY))


__all__ = ["PRIORITY", "pattern", "value_word", "user_secret", "add"]
