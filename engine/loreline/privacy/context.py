"""Secrets found by their context: a value under a secret-like name, auth headers, cookies.

Used by `loreline.privacy.redact` (its docstring states the invariants). A candidate starts at a
keyword (`pass`, `pwd`, `secret`, `token`, `key`, `auth`, `cookie`) found by a literal scan of
the lower-cased bytes; `names.classify` decides from the whole name whether it holds a
secret, and the syntax after the name decides where the value is:

    env / .env / docker -e / --flag=   NAME=value          any value that is not a placeholder
    YAML at line start                  name: value         the same, when it ends the line
    JSON, Python, JS, TOML, Go, PHP     "name": "value"     quoted literals; a bare value only
                                        name = value        when it cannot be a reference
    query string                        ?name=value&
    no operator                         --name value, .netrc `password value`, `ENV NAME value`,
                                        `aws configure set name value`, SQL `PASSWORD 'x'`
    prose                               "the password is x1!", "API key: x1", "password for the
                                        admin panel: x1" (the value needs a digit)
    pairs                               `name: DB_PASSWORD` + `value: ...` (Kubernetes, ECS)
    short flags                         `mysql -px1`, `sshpass -p x1`, `docker login -p x1`

A value is left alone when it is a placeholder, a template or a reference (`${X}`, `$X`,
`{{ x }}`, `<x>`, `os.environ[...]`, `process.env.X`, calls, attribute paths), a type word, a
literal like `None`/`true`, a path, or already masked.

Linear time: hits are handled in text order and a hit inside a value already read is skipped,
so a value is read once however many keywords it contains. Only values whose end cannot move
when something inside them is redacted (quoted, loose, header lines) are skipped over, so a
second pass sees the same names: that keeps `redact` idempotent.
"""

from __future__ import annotations

import re

from ..records import record
from . import patterns as P
from .names import GENERIC_FAMILIES, classify

Span = tuple[int, int, str, int]
CONTEXT, VENDOR, GENERIC = 1, 2, 3

_NAME_END_RE = re.compile(rb"[a-z0-9_.\-]{0,64}")
_OP_RE = re.compile(r"""(?P<cq>\\?["'`])?\]?(?P<sp1>[ \t]{0,16})(?P<op>=>|:=|\?=|::|===|!==|==|!=|=|:|>|\()?(?P<sp2>[ \t]{0,16})""")
_PASSWORD_PROSE_RE = re.compile(r"""s?[ \t(][^\n:=\\"'`]{1,48}?(?<!\bis)(?<!\bwas):[ \t]{0,4}(?=\S)""")
_WORD_RE = re.compile(r"[A-Za-z]{1,24}")
_SEPARATOR_RE = re.compile(r"\n|\\n|;|\|\|?|&&")
_SPACED_RE = re.compile(r"[ \t]{1,8}(?:(?P<verb>is|was|=)[ \t]{1,8}(?:set to[ \t]{1,8})?)?")
_LOOSE_RE = re.compile(r"""(?:[^\s"'`\\;]|\\u[0-9a-fA-F]{4}|\\(?![nrtbfu"'\\/])){1,4096}""")
# an unquoted value runs to the end of its token (`Tr0ub4dor&3q` whole); closing brackets and
# separators it does not open are trimmed off its end (`f(password=x1)`, `{pw: x1},`)
_TIGHT_RE = re.compile(r"""(?:[^\s"'`\\;]|\\u[0-9a-fA-F]{4}|\\(?![nrtbfu"'\\/])){1,4096}""")
_CALL_RE = re.compile(r"[A-Za-z_][\w.]{0,200}[(\[]")
_PAIRS = {")": "(", "]": "[", "}": "{", ">": "<"}
_NEXT_LINE_QUOTE_RE = re.compile(r"(?:\r?\n|\\n)[ \t]{0,32}\\?[\"']")
_YOUR_RE = re.compile(r"your[a-z_()!-]{0,24}(?:token|key|secret|password|pat)|tokenhere|keyhere")
_MASKED_TAIL_RE = re.compile(r"(?:x{3,}|\*{3,}|\.{3,}|\u2026)\Z")
_TEMPLATE_WORD_RE = re.compile(r"[A-Z][A-Z]{2,}(?:_[A-Z]{2,}){1,5}")
_PART_SPLIT_RE = re.compile(r"[-_.:/]")
# words that say what goes there: `database-password`, `redis_password`, `admin-secret-key`
_SECRET_NOUNS = ("password", "passwd", "pass", "pwd", "secret", "token", "key", "apikey", "passphrase")
_DESCRIBED: list[re.Pattern[str]] = []  # compiled on first use
_DOTTED_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+")
_QUERY_RE = re.compile(r"""[^&#\s"'<>\\]{1,4096}""")
_LINE_RE = re.compile(r"""(?:[^\r\n"'`\\]|\\(?![nrt"'\\])){1,4096}""")
_LINE_REST_RE = re.compile(r"[^\r\n\\]{0,200}")
_XML_RE = re.compile(r"[^<\n]{1,4096}")
_PROSE_RE = re.compile(r"""`([^`\n]{1,256})`|([^\s`"'\\<>(){}\[\]]{1,256})""")
_ANNOTATION_RE = re.compile(r"(?:\[[^\]\n]{0,64}\])?[ \t]{0,8}=[ \t]{0,8}")
CRED_RE = re.compile(r"[A-Za-z0-9._~+/=_-]{1,4096}")
_OTHER_SCHEME_RE = re.compile(r"[A-Za-z][A-Za-z-]{1,30}[ \t]+(?=[A-Za-z0-9._~+/=_-]{8})")  # `Api-Token <cred>`
_SCHEME_RE = re.compile(r"(?i)(basic|bearer|token|apikey|api-key|key|sso-key|jwt|otp|digest|negotiate|ntlm|"
                        r"aws4-hmac-sha256|hmac)[ \t]+")
_TUPLE_RE = re.compile(r"""\(\s{0,8}(["'])(?:[^"'\\\n]|\\.){0,128}\1\s{0,8},\s{0,8}(["'])"""
                       r"""(?P<pw>(?:[^"'\\\n]|\\.){1,256})\2""")
_NAME_KEY_RE = re.compile(r"""(?i)name\\?["']?[ \t]{0,4}[:=][ \t]{0,4}\\?["']?\Z""")
_VALUE_KEY_RE = re.compile(r"""(?:\\?["'])?[ \t]{0,8}(?:,[ \t]{0,8}|(?:\r?\n|\\n)[ \t]{0,16}(?:-[ \t]+)?)"""
                           r"""\\?["']?value\\?["']?[ \t]{0,4}[:=][ \t]{0,4}""")
_QUOTED_RES = (
    ('\\"', re.compile(r'\\"((?:[^"\\]|\\[^"]){0,4096})\\"')),
    ('"', re.compile(r'"((?:[^"\\\n]|\\.){0,4096})"')),
    ("'", re.compile(r"'((?:[^'\\\n]|\\.){0,4096})'")),
    ("`", re.compile(r"`([^`\n]{0,4096})`")),
)
_QUOTES = tuple(opener for opener, _ in _QUOTED_RES)
_LOOSE_STYLES = frozenset(["env", "yaml", "flag", "loose"])
_COOKIE_ATTRS = frozenset("path domain expires max-age samesite secure httponly version comment priority".split())
_SESSIONY = ("sess", "sid", "token", "auth", "jwt", "key", "login", "remember", "csrf", "xsrf")
_SKIPPED_SCHEMES = ("digest", "negotiate", "ntlm", "aws4-hmac-sha256", "hmac")


@record(frozen=False)
class _Scan:
    text: str
    spans: list[Span]
    reach: int = 0  # values up to here have been read

    def add(self, start: int, end: int, family: str, prio: int) -> None:
        if family == "key" and not key_shaped(self.text[start:end]):
            return  # a bare `key` names too many things; only a generated-looking value counts
        self.spans.append((start, end, family, prio))

    def read(self, end: int) -> None:
        self.reach = max(self.reach, end)


def scan_names(text: str, low: bytes, spans: list[Span]) -> set[str]:
    """Append the value spans of secret-like names (and headers, cookies) in `text`.

    Returns flags for the caller: `pem` when a `... KEY-----` line was seen, `putty` for a
    PuTTY key file; both fall out of the scan for `key`, which saves a pass.
    """
    flags: set[str] = set()
    hits: list[int] = []
    short_flags: list[int] = []
    for regex in P.KEYWORD_RES:
        match = regex.search(low)  # `search` in a loop: cheaper than `finditer` when nothing is found
        while match is not None:
            start, after = match.start(), match.end()
            match = regex.search(low, after)
            if low[start] == 0x6B:  # the `k` scanner: token, cookie, key or a flag
                if low[after - 5:after] == b"-----":
                    flags.add("pem")
                    continue
                if low[start:after] == b"key-file-":
                    if low.startswith(b"putty-user-", start - 11):
                        flags.add("putty")
                    continue
                if low[start + 1] == 0x69:
                    start -= 3  # coo|kie
                elif low[start + 2] == 0x6E and low[start - 2:start] == b"to":
                    start -= 2  # to|ken
            elif after == start + 1:  # a bare `-p`: a short flag, not a name
                short_flags.append(start)
                continue
            elif low[start] == 0x63:  # se|cret
                start -= 2
            hits.append(start)
    if short_flags:
        _short_flags(text, sorted(short_flags), spans)
    if hits:
        scan = _Scan(text, spans)
        last_name = -1
        for keyword in sorted(hits):
            if keyword >= scan.reach:
                last_name = _hit(scan, low, keyword, last_name)
    return flags


def _hit(scan: _Scan, low: bytes, keyword: int, last_name: int) -> int:
    """Look at the name around `keyword`; returns where that name starts."""
    text = scan.text
    start = keyword - P.NAME_CHARS_REV.match(low[max(0, keyword - 64):keyword][::-1]).end()  # type: ignore[union-attr]
    if start == last_name or (start >= 10 and text.startswith(P.MARKER_PREFIX, start - 10)):
        return start  # the same name twice, or the family name inside one of our markers
    if start and (text[start - 1] == "$" or text.endswith("${", 0, start)):
        return start  # `$PASSWORD`, `${API_KEY}`: a reference to a value, not a name given one
    if text.endswith("://", 0, start):
        return start  # a URL's user (`https://__token__:...@`): the URL scan reads its password
    end = _NAME_END_RE.match(low, keyword).end()  # type: ignore[union-attr]
    while end > keyword and low[end - 1] in b".-":
        end -= 1
    family = classify(text[start:end]) or _prose_name(text, start, end)
    if family is not None:
        _assignment(scan, start, end, family)
    return start


def _prose_name(text: str, start: int, end: int) -> str | None:
    """A two-word name in prose: "API key", "secret key", "bot token"."""
    if start < 2 or text[start - 1] != " " or text[start:end].lower() not in ("key", "token", "secret"):
        return None
    word = start - 1
    while word > 0 and start - word < 16 and text[word - 1].isalpha():
        word -= 1
    qualifier = text[word:start - 1]
    return classify(f"{qualifier}_{text[start:end]}") if qualifier.lower() in P.PROSE_QUALIFIERS else None


# --- what follows the name ------------------------------------------------------------------


def _assignment(scan: _Scan, start: int, end: int, family: str) -> None:
    text = scan.text
    name = text[start:end]
    match = _OP_RE.match(text, end)
    op, index = match.group("op"), match.end()  # type: ignore[union-attr]
    before = text[start - 1] if start else ""
    if family == "authorization":
        if op in (":", "="):
            _header(scan, index)
    elif family == "cookie":
        if op in (":", "=") or (op is None and name.startswith("-")):
            _cookies(scan, index, "set" in name.lower())
    elif (op == "(" or (op == "=" and text.startswith("(", index))) and name.lower().endswith("auth"):
        _auth_tuple(scan, index - (op == "("))
    elif op is None and match.group("cq") and text.startswith(",", index):  # type: ignore[union-attr]
        if not _named_value(scan, start, end, family):  # `"name": "X", "value": …` comes first
            _argument_pair(scan, index, family)
    elif op is None or op == "(":
        if not _named_value(scan, start, end, family):
            _spaced(scan, start, end, name, family)
    elif op == ">":
        if before == "<":
            _xml(scan, index, family)
    elif op != "::":
        if before in ("?", "&"):
            _query(scan, index, family)
        else:
            style = _style(text, start, name, op, match.group("sp1") + match.group("sp2"), match.group("cq"))  # type: ignore[union-attr]
            _value(scan, index, style, family, name.strip("-_.").isupper())


def _style(text: str, start: int, name: str, op: str, spaces: str, close_quote: str | None) -> str:
    before = text[start - 1] if start else ""
    if name.startswith("-"):
        return "flag"
    if op == "=" and not spaces and before not in ("(", ","):
        return "env"
    if op == ":" and close_quote is None and _line_prefix(text, start).strip(" \t-\"") == "":
        return "yaml"
    return "code"


def _prio(family: str) -> int:
    return GENERIC if family in GENERIC_FAMILIES else VENDOR


def _value(scan: _Scan, index: int, style: str, family: str, upper: bool = False) -> None:
    text = scan.text
    if style == "code" and (wrapped := _NEXT_LINE_QUOTE_RE.match(text, index)):
        # `apiKey =\n    "…"`: a literal continued on the next line (its quote maybe JSON-escaped)
        index = wrapped.end() - 1 - (text[wrapped.end() - 2] == "\\")
    if index >= len(text) or text[index] in "\r\n" or text.startswith(("\\n", "\\r"), index):
        return
    if text[index] in "fFrRbBuU" and text[index + 1:index + 2] in ('"', "'"):
        index += 1  # f"...", r'...'
    bounds = value_bounds(text, index, style)
    if bounds is None:
        return
    start, end, quoted = bounds
    if quoted or style in _LOOSE_STYLES:
        # where such a value ends does not change when something inside it is redacted, so
        # skipping the names inside it gives the same result on a second pass (idempotence)
        scan.read(end)
    if style == "env" and not quoted and not upper:
        # a lower-case `name=value` may be a keyword argument: `f(user, password=pw)`
        while end > start and text[end - 1] in ",)]}":
            end -= 1
        if P.IDENTIFIER.fullmatch(text[start:end]):
            return
    content = text[start:end]
    if _quoted_ok(content, family) if quoted else _bare_ok(text, start, end, content, family, style):
        scan.add(start, end, family, _prio(family))
        scan.read(end)
    elif not quoted and style in ("code", "yaml") and content.lower() in P.STOP_VALUES:
        after = _ANNOTATION_RE.match(text, end)  # a type annotation: `password: str = "x"`
        if after:
            _value(scan, after.end(), "code", family)


def value_bounds(text: str, index: int, style: str) -> tuple[int, int, bool] | None:
    """(start, end, quoted) of the value at `index`; quotes are outside the span."""
    for opener, regex in _QUOTED_RES:
        if text.startswith(opener, index):
            match = regex.match(text, index)
            return (match.start(1), match.end(1), True) if match else None
    regex = _LOOSE_RE if style in _LOOSE_STYLES else _TIGHT_RE
    match = regex.match(text, index)
    if match is None:
        return None
    end = _trim_unopened(text, match.start(), match.end()) if regex is _TIGHT_RE else match.end()
    return (match.start(), end, False) if end > match.start() else None


def _trim_unopened(text: str, start: int, end: int) -> int:
    """Drop trailing `,` `&` `|` and closing brackets the value itself does not open."""
    while end > start:
        last = text[end - 1]
        opener = _PAIRS.get(last)
        if last in ",&|" or (opener is not None and text.count(opener, start, end) < text.count(last, start, end)):
            end -= 1
        else:
            return end
    return end


def _quoted_ok(content: str, family: str) -> bool:
    stripped = content.strip()
    if not stripped or placeholder(stripped) or _path_like(stripped):
        return False
    if stripped.startswith(("http://", "https://")):
        return False
    return family == "password" or not any(c.isspace() for c in stripped)


def _bare_ok(text: str, start: int, end: int, content: str, family: str, style: str) -> bool:
    if placeholder(content) or content.startswith(("http://", "https://")) or _path_like(content):
        return False
    if text[end:end + 1] in ("(", "[") or _CALL_RE.match(content):
        return False
    if style == "yaml":
        rest = _LINE_REST_RE.match(text, end).group().strip()  # type: ignore[union-attr]
        return rest == "" or rest.startswith("#") or (rest in (",", ";") and not P.IDENTIFIER.fullmatch(content))
    if style in ("env", "flag", "loose"):
        return True
    if P.IDENTIFIER.fullmatch(content):
        return False
    if content.replace(".", "").isdigit():
        return family == "password" and len(content) >= 4
    return len(content) >= 6


def _query(scan: _Scan, index: int, family: str) -> None:
    value = _QUERY_RE.match(scan.text, index)
    if value:
        scan.read(value.end())
        if not placeholder(value.group()):
            scan.add(value.start(), value.end(), "password" if family == "password" else "query-token", CONTEXT)


def _argument_pair(scan: _Scan, index: int, family: str) -> None:
    """`headers.put("X-Api-Key", "…")`, `Context.Add("AccountKey", "…")`: a name passed next to
    its value. Only a literal counts, and (not for passwords) only one that looks generated."""
    value = index + 1
    while value < len(scan.text) and scan.text[value] in " \t":
        value += 1
    bounds = value_bounds(scan.text, value, "code")
    if bounds is None or not bounds[2]:
        return
    content = scan.text[bounds[0]:bounds[1]]
    if _quoted_ok(content, family) and (family == "password" or key_shaped(content)):
        scan.add(bounds[0], bounds[1], family, _prio(family))
        scan.read(bounds[1])


def _named_value(scan: _Scan, start: int, end: int, family: str) -> bool:
    """`name: DB_PASSWORD` / `value: ...` pairs (Kubernetes env, ECS task definitions)."""
    if not _NAME_KEY_RE.search(scan.text[max(0, start - 16):start]):
        return False
    match = _VALUE_KEY_RE.match(scan.text, end)
    if match is None:
        return False
    _value(scan, match.end(), "yaml" if "\n" in match.group() or "\\n" in match.group() else "code", family)
    return True


def _spaced(scan: _Scan, start: int, end: int, name: str, family: str) -> None:
    """Forms without an operator: flags, .netrc, Dockerfile ENV, `aws configure set`, prose."""
    text = scan.text
    match = _SPACED_RE.match(text, end)
    if match is None:
        return
    if match.group("verb"):
        _prose(scan, match.end(), family)
        return
    prefix = _line_prefix(text, start).strip()
    before = text[max(0, start - 200):start].lower()
    bare = name.lower().strip("-")
    allowed = (
        name.startswith("-")
        or prefix in ("ENV", "ARG")
        or prefix.endswith("configure set")
        or (bare in ("password", "passwd")
            and ("machine " in before or "login " in before or text.startswith(_QUOTES, match.end())))
    )
    if not allowed and (colon := _PASSWORD_PROSE_RE.match(text, end)) and " -" not in colon.group():
        first_word = _WORD_RE.match(text, end + 1)
        if first_word is None or first_word.group().lower() not in P.AFTER_DENY:
            # "password for the admin panel: Hunter2!"; "the key for staging: <key-shaped>"
            _prose(scan, colon.end(), family, family != "password")
        return
    if not allowed or text.startswith("-", match.end()):
        return
    bounds = value_bounds(text, match.end(), "loose")
    if bounds is None:
        return
    scan.read(bounds[1])
    value = text[bounds[0]:bounds[1]]
    if value and not placeholder(value) and not _path_like(value):
        scan.add(bounds[0], bounds[1], family, GENERIC)


def _prose(scan: _Scan, index: int, family: str, shaped: bool = False) -> None:
    """"the password is hunter2!": a value with a digit, after `is`/`was` (`shaped`: key-shaped)."""
    match = _PROSE_RE.match(scan.text, index)
    if match is None:
        return
    group = 1 if match.group(1) is not None else 2
    start, end = match.span(group)
    while end > start and scan.text[end - 1] in ".,;:?)]\"'":
        end -= 1
    value = scan.text[start:end]
    if len(value) < 6 or placeholder(value) or not any(c.isdigit() for c in value) or "://" in value:
        return
    if shaped and not key_shaped(value):
        return
    if family == "password" or any(c.isalpha() for c in value):
        scan.add(start, end, family, GENERIC)
        scan.read(end)


def _short_flags(text: str, flags: list[int], spans: list[Span]) -> None:
    """`mysql -pHunter2`, `sshpass -p 'Hunter2'`, `docker login -u me -p Hunter2`.

    The command is the first word of the shell command the flag is in (after `sudo` and
    `NAME=value` words); each command is looked at once, so this stays linear.
    """
    segment, command, last = 0, None, 0
    for index in flags:
        separator = _last_separator(text, last, index)  # the gaps between flags: linear overall
        if separator != -1:
            segment, command = separator, None
        last = index
        if command is None:
            command = _command(text, segment, index)
        if not command:
            continue
        value = index + 1
        if text[value] in " \t":
            if command.startswith(("mysql", "mariadb")):
                continue  # `mysql -p app` asks for the password; `app` is the database
            while text[value] in " \t":
                value += 1
        bounds = value_bounds(text, value, "loose")
        if bounds and bounds[1] > bounds[0] and not placeholder(text[bounds[0]:bounds[1]]):
            spans.append((bounds[0], bounds[1], "password", GENERIC))


def _last_separator(text: str, lo: int, hi: int) -> int:
    """Where the last shell command separator in text[lo:hi] ends."""
    end = -1
    for match in _SEPARATOR_RE.finditer(text, lo, hi):
        end = match.end()
    return end


def _command(text: str, start: int, index: int) -> str:
    """The command a flag at `index` belongs to, if it is one whose `-p` takes a password."""
    words = text[start:index].split()
    while words and (words[0] in ("$", "sudo", "time", "exec") or "=" in words[0] or words[0].endswith(":")):
        words.pop(0)  # a prompt, env assignments, a JSON key (`{"command": "mysql …`)
    if words:
        words[0] = words[0].lstrip("{[\"'\\")
    line = " ".join(words[:2]).lower()
    return next((name for name in P.SHORT_FLAG_COMMANDS if line.startswith(name)), "")


def _line_value(text: str, index: int) -> tuple[int, int] | None:
    """A header-like value: quoted, or the rest of the line."""
    if text.startswith(_QUOTES, index):
        bounds = value_bounds(text, index, "code")
        return (bounds[0], bounds[1]) if bounds else None
    match = _LINE_RE.match(text, index)
    return match.span() if match else None


def _header(scan: _Scan, index: int) -> None:
    """`Authorization: Bearer <token>` / `Basic <base64>` / `token <token>`."""
    text = scan.text
    bounds = _line_value(text, index)
    if bounds is None:
        return
    start, end = bounds
    scan.read(end)
    if text.find(P.MARKER_PREFIX, start, end) != -1:
        return  # already redacted: the scheme word before a marker is not a credential
    scheme = _SCHEME_RE.match(text, start, end) or _OTHER_SCHEME_RE.match(text, start, end)
    word = scheme.group().split()[0].lower() if scheme else ""
    if word in _SKIPPED_SCHEMES:
        return
    cred = CRED_RE.match(text, scheme.end() if scheme else start, end)
    if cred and text[cred.end():cred.end() + 1] in ("<", "{"):
        return  # `Bearer sk-app-<key_id>.<secret>`: a template
    if cred and len(cred.group()) >= 8 and not placeholder(cred.group()):
        scan.add(cred.start(), cred.end(), "basic-auth" if word == "basic" else "bearer-token", CONTEXT)


def _cookies(scan: _Scan, index: int, set_cookie: bool) -> None:
    """Each session-like value of a `Cookie:` header; the first pair of a `Set-Cookie:`."""
    text = scan.text
    bounds = _line_value(text, index)
    if bounds is None:
        return
    pos, end = bounds
    scan.read(end)
    while pos < end:
        stop = text.find(";", pos, end)
        stop = end if stop == -1 else stop
        eq = text.find("=", pos, stop)
        if eq > pos:
            cookie = text[pos:eq].strip().lower()
            v_start = eq + 1
            while v_start < stop and text[v_start] == " ":
                v_start += 1
            value = text[v_start:stop].rstrip()
            if cookie not in _COOKIE_ATTRS and value and not placeholder(value) and (
                    len(value) >= 8 or any(s in cookie for s in _SESSIONY)):
                scan.add(v_start, v_start + len(value), "cookie", CONTEXT)
        if set_cookie:
            return
        pos = stop + 1


def _auth_tuple(scan: _Scan, index: int) -> None:
    """`auth=("user", "pass")`, `HTTPBasicAuth("user", "pass")`."""
    match = _TUPLE_RE.match(scan.text, index)
    if match:
        scan.read(match.end())
        if not placeholder(match.group("pw")):
            scan.add(match.start("pw"), match.end("pw"), "basic-auth", CONTEXT)


def _xml(scan: _Scan, index: int, family: str) -> None:
    """`<password>value</password>`."""
    match = _XML_RE.match(scan.text, index)
    if match and scan.text.startswith("</", match.end()):
        scan.read(match.end())
        value = match.group().strip()
        if value and not placeholder(value):
            scan.add(match.start(), match.end(), family, _prio(family))


# --- values ---------------------------------------------------------------------------------


def placeholder(value: str) -> bool:
    """A value that is a placeholder, a template, a reference, a literal or already masked."""
    low = value.lower().strip()
    if not low or low in P.STOP_VALUES:
        return True
    if P.REFERENCE_START.match(value.strip()):
        return True
    if any(part in low for part in P.PLACEHOLDER_PARTS):
        return True
    if low[0] + low[-1] in ("[]", "<>") or not any(c.isalnum() for c in low):
        return True  # `[PASSWORD]`, `<user:password>`, `,.:-!`
    if len(set(low)) <= (1 if len(low) < 6 else 2):
        return True  # `yyy`, `aaaaaaaa`, `11111111`
    if value.strip().isalpha() and value.strip().isupper() and len(low) <= 24:
        return True  # `PASSWORD`, `APIKEY`, `MYTOKEN`: the name of the value, not the value
    if _TEMPLATE_WORD_RE.fullmatch(value.strip()):
        return True  # `ACCESS_TOKEN`, `YOUR_API_KEY`: the name of the value, not the value
    if len(low) >= 16 and len(set(low)) <= 6 and max(low.count(c) for c in set(low)) * 2 > len(low):
        return True  # `glc_1111111111111111111111=`: one character over and over
    if _YOUR_RE.search(low) or P.PLACEHOLDER_RE.search(low) or _described_abroad(low):
        return True  # `ghp_YourPersonalAccessTokenHere`, `yourapikey`
    if low.endswith(_SECRET_NOUNS) and _described(low):
        return True  # `database-password`: words naming the secret, not the secret
    masked = _MASKED_TAIL_RE.search(low)  # `sk-ant-xxx`, `ghp_...`: a prefix, then the mask
    if masked is not None and 0 < masked.start() <= 12 and low[masked.start() - 1] in "-_":
        return True
    return all(c in "*xX.\u2022\u00b7#?-_ " for c in value)


def _described_abroad(low: str) -> bool:
    """Words in a script without letter case (`你的密码`, `パスワード`): a description, not a password."""
    return not any(c.isascii() and c.isalnum() for c in low) and any(ord(c) >= 0x2E80 for c in low)


def _described(low: str) -> bool:
    """Lower-case words joined by `-`/`_`, the last one naming a secret (`redis_password`)."""
    if not _DESCRIBED:
        _DESCRIBED.append(re.compile(r"[a-z]+(?:[-_][a-z]+)*[-_](?:" + "|".join(_SECRET_NOUNS) + ")"))
    return _DESCRIBED[0].fullmatch(low) is not None


def key_shaped(value: str) -> bool:
    """A value that looks generated: 16+ characters, no spaces, letters and digits, varied."""
    if len(value) < 16 or len(value) > 4096 or any(c.isspace() for c in value) or "://" in value:
        return False
    if not any(c.isdigit() for c in value) or not any(c.isalpha() for c in value):
        return False
    parts = _PART_SPLIT_RE.split(value)
    if len(parts) >= 3 and max(len(part) for part in parts) < 16:
        return False  # `cmp2-qat-1208358310`, `id-Gost28147-89-None`: a structured name
    return len(set(value)) >= 10 and not _path_like(value) and not _DOTTED_RE.fullmatch(value)


def _path_like(value: str) -> bool:
    return bool(P.PATH_LIKE.fullmatch(value)) and not looks_random(value)


def looks_random(value: str) -> bool:
    """Mixed case and digits, long enough: a generated secret rather than a word or a path."""
    return (len(value) >= 12 and any(c.isdigit() for c in value)
            and any(c.islower() for c in value) and any(c.isupper() for c in value))


def _line_prefix(text: str, index: int) -> str:
    """The text from the start of the line (a real or a JSON-escaped newline) to `index`."""
    lo = max(0, index - 256)
    newline = text.rfind("\n", lo, index)
    escaped = text.rfind("\\n", lo, index)
    start = max(newline + 1 if newline != -1 else lo, escaped + 2 if escaped != -1 else lo)
    return text[start:index]
