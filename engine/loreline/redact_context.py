"""Secrets found by their context: a value under a secret-like name, auth headers, cookies.

Used by `loreline.redact` (read its docstring for the invariants). A candidate starts at a
keyword (`pass`, `pwd`, `secret`, `token`, `key`, `auth`, `cookie`) found by one literal scan
of the lower-cased bytes; the whole name around it decides whether it holds a secret
(`DB_PASSWORD` does, `max_tokens` and `password_length` do not), and the syntax after it
decides where the value is:

    env / .env / docker -e / --flag=   NAME=value          any non-placeholder value
    YAML at line start                  name: value         any non-placeholder value
    JSON, Python, JS, TOML, Go ...      "name": "value"     quoted literals; bare values only
                                        name = value        when they cannot be a reference
    query string                        ?name=value&
    flags, .netrc, Dockerfile ENV,      --name value, password value, ENV NAME value,
    `aws configure set`, prose          "the password is hunter2!"

A value is kept when it is a placeholder, a template or a reference (`${X}`, `$X`,
`{{ x }}`, `<x>`, `os.environ[...]`, `process.env.X`, calls, attribute paths), a type word,
a literal like `None`/`true`, a path, or already masked.
"""

from __future__ import annotations

import re
from functools import lru_cache

from . import redact_patterns as P

Span = tuple[int, int, str, int]
CONTEXT, VENDOR, GENERIC = 1, 2, 3

_SEGMENT_RE = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_NAME_END_RE = re.compile(rb"[a-z0-9_.\-]{0,64}")
_OP_RE = re.compile(r"""(?P<cq>\\?["'`])?\]?(?P<sp1>[ \t]{0,16})(?P<op>=>|:=|\?=|::|==|=|:|>|\()?(?P<sp2>[ \t]{0,16})""")
_SPACED_RE = re.compile(r"[ \t]{1,8}(?:(?P<verb>is|was|=)[ \t]{1,8}(?:set to[ \t]{1,8})?)?")
_LOOSE_RE = re.compile(r"""(?:[^\s"'`\\;]|\\u[0-9a-fA-F]{4}|\\(?![nrtbfu"'\\/])){1,4096}""")
_TIGHT_RE = re.compile(r"""(?:[^\s"'`\\;,&|<>(){}\[\]]|\\u[0-9a-fA-F]{4}|\\(?![nrtbfu"'\\/])){1,4096}""")
_QUERY_RE = re.compile(r"""[^&#\s"'<>\\]{1,4096}""")
_LINE_RE = re.compile(r"""(?:[^\r\n"'`\\]|\\(?![nrt"'\\])){1,4096}""")
_XML_RE = re.compile(r"[^<\n]{1,4096}")
_PROSE_RE = re.compile(r"`([^`\n]{1,256})`|([^\s`]{1,256})")
CRED_RE = re.compile(r"[A-Za-z0-9._~+/=-]{1,4096}")
_SCHEME_RE = re.compile(r"(?i)(basic|bearer|token|apikey|api-key|key|sso-key|jwt|otp|digest|negotiate|ntlm|"
                        r"aws4-hmac-sha256|hmac)[ \t]+")
_TUPLE_RE = re.compile(r"""\(\s{0,8}(["'])(?:[^"'\\\n]|\\.){0,128}\1\s{0,8},\s{0,8}(["'])"""
                       r"""(?P<pw>(?:[^"'\\\n]|\\.){1,256})\2""")
_QUOTED_RES = (
    ('\\"', re.compile(r'\\"((?:[^"\\]|\\[^"]){0,4096})\\"')),
    ('"', re.compile(r'"((?:[^"\\\n]|\\.){0,4096})"')),
    ("'", re.compile(r"'((?:[^'\\\n]|\\.){0,4096})'")),
    ("`", re.compile(r"`([^`\n]{0,4096})`")),
)
_COOKIE_ATTRS = frozenset("path domain expires max-age samesite secure httponly version comment priority".split())
_SESSIONY = ("sess", "sid", "token", "auth", "jwt", "key", "login", "remember", "csrf", "xsrf")
_STRING_PREFIXES = frozenset("fFrRbBuU")


def scan_names(text: str, low: bytes, spans: list[Span]) -> set[str]:
    """Append the value spans of secret-like names (and headers, cookies) in `text`.

    Returns flags for the caller: `pem` when a `... KEY-----` line was seen, `putty` for a
    PuTTY key file (both are found while looking for `key`, which saves a scan).
    """
    seen: set[int] = set()
    flags: set[str] = set()
    for needle in P.NEEDLES:
        size = len(needle)
        index = low.find(needle)
        while index != -1:
            if needle == b"key" and low.startswith((b"key-----", b"key block-----"), index):
                flags.add("pem")
            elif needle == b"key" and low.startswith(b"-user-key-file-", index - 5):
                flags.add("putty")
            elif P.KEYWORD_TAIL.match(low, index + size):
                _hit(text, low, index, seen, spans)
            index = low.find(needle, index + size)
    return flags


def _hit(text: str, low: bytes, keyword: int, seen: set[int], spans: list[Span]) -> None:
    name_start = keyword - P.NAME_CHARS_REV.match(low[max(0, keyword - 64):keyword][::-1]).end()  # type: ignore[union-attr]
    if name_start in seen:
        return
    seen.add(name_start)
    name_end = _NAME_END_RE.match(low, keyword).end()  # type: ignore[union-attr]
    while name_end > keyword and low[name_end - 1] in b".-":
        name_end -= 1
    if name_start >= 10 and text.startswith(P.MARKER_PREFIX, name_start - 10):
        return  # the family name inside one of our markers
    name = text[name_start:name_end]
    kind = classify(name)
    if kind is not None:
        _assignment(text, name_start, name_end, name, kind, spans)


# --- names ----------------------------------------------------------------------------------


@lru_cache(maxsize=8192)
def classify(name: str) -> str | None:
    """The family a value under `name` belongs to, `authorization`/`cookie`, or None."""
    bare = name.strip("-_.$@")
    flat = re.sub(r"[_.\-]", "", bare.lower())
    if not flat or flat in P.NAME_DENY:
        return None
    segments = [s.lower() for s in _SEGMENT_RE.findall(bare)]
    if flat.endswith("authorization"):
        return "authorization"
    if "cookie" in segments or flat.endswith("cookie"):
        return "cookie"
    special = _special_name(name, flat)
    if special:
        return special
    index, kind = _secret_segment(segments, bare.isupper())
    if kind is None:
        return None
    if index + 1 < len(segments) and segments[index + 1] in P.AFTER_DENY:
        return None
    if index > 0 and segments[index - 1] in P.BEFORE_DENY:
        return None
    return _family(segments, kind, flat)


def _special_name(name: str, flat: str) -> str | None:
    if flat == "privatekeyid":
        return "gcp-service-account"
    if flat.endswith("secretaccesskey"):
        return "aws-secret-key"
    if flat in ("accountkey", "sharedaccesskey", "azurestoragekey", "azurestorageaccountkey"):
        return "azure-storage-key"
    if name.startswith("_auth") or name in ("_password", "//_authToken"):
        return "npm-token"
    return None


_PASSWORD_SEGMENTS = frozenset("password passwd passphrase pwd pass pw passwort contrasena mdp".split())
_COMPOUND_KEYS = frozenset(
    "apikey accesskey secretkey privatekey accountkey masterkey signingkey encryptionkey clientkey "
    "authkey sharedaccesskey subscriptionkey licensekey appkey sessionkey".split()
)


def _secret_segment(segments: list[str], upper: bool) -> tuple[int, str | None]:
    """The last segment that makes the name secret, and what kind of secret."""
    for index in range(len(segments) - 1, -1, -1):
        seg = segments[index]
        if seg in _PASSWORD_SEGMENTS or "password" in seg or "passwd" in seg or seg.endswith("pwd"):
            return index, "password"
        if "secret" in seg and seg not in ("secrets", "secretary"):
            return index, "secret"
        if "token" in seg and seg != "tokens" and not seg.startswith("tokeniz"):
            return index, "token"
        if seg in _COMPOUND_KEYS:
            return index, "key"
        if seg == "key":
            before = segments[index - 1] if index else ""
            if before in P.KEY_QUALIFIERS or (upper and before and before not in P.BEFORE_DENY):
                return index, "key"
        if seg == "auth":
            return index, "auth"
        if seg in ("credential", "credentials", "creds"):
            return index, "credentials"
    return -1, None


def _family(segments: list[str], kind: str, flat: str) -> str:
    if kind == "password":
        return "password"
    for seg in segments:
        family = P.VENDOR_FAMILIES.get(seg)
        if family is None:
            continue
        if seg == "aws":
            return "aws-session-token" if "session" in segments else "aws-secret-key"
        if seg == "azure":
            return "azure-client-secret" if kind == "secret" else "azure-key"
        if seg == "google" and kind == "secret":
            return "google-oauth-secret"
        return family
    if "privatekey" in flat:
        return "private-key"
    return {"secret": "secret", "token": "token", "auth": "auth-token",
            "credentials": "credentials"}.get(kind, "api-key")


# --- assignments ----------------------------------------------------------------------------


def _assignment(text: str, start: int, end: int, name: str, kind: str, spans: list[Span]) -> None:
    match = _OP_RE.match(text, end)
    if match is None:
        return
    op, index = match.group("op"), match.end()
    before = text[start - 1] if start else ""
    if kind == "authorization":
        if op in (":", "="):
            _header(text, index, spans)
        return
    if kind == "cookie":
        if op in (":", "=") or (op is None and name.startswith("-")):
            _cookies(text, index, "set" in name.lower(), spans)
        return
    if op is None:
        if not _named_value(text, start, end, kind, spans):
            _spaced(text, start, end, name, kind, spans)
        return
    if op == "(" or (op == "=" and text.startswith("(", index)):
        if kind == "auth" or name.lower().endswith("auth"):
            _auth_tuple(text, index - (op == "("), spans)
        return
    if op == "::" or (op == ">" and before != "<"):
        return
    family = classify(name) or "secret"
    prio = GENERIC if family in ("password", "secret", "token", "api-key", "auth-token", "credentials") else VENDOR
    if op == ">":
        _xml(text, index, family, prio, spans)
    elif before in ("?", "&"):
        value = _QUERY_RE.match(text, index)
        if value and not placeholder(value.group()):
            spans.append((value.start(), value.end(), "password" if kind == "password" else "query-token", CONTEXT))
    else:
        style = _style(text, start, name, op, match, before)
        _value_span(text, index, style, kind, family, prio, spans, name.strip("-_.").isupper())


def _style(text: str, start: int, name: str, op: str, match: re.Match[str], before: str) -> str:
    if name.startswith("-"):
        return "flag"
    if op == "=" and not match.group("sp1") and not match.group("sp2") and before not in ("(", ","):
        return "env"
    if op == ":" and match.group("cq") is None and _line_prefix(text, start).strip(" \t-\"") == "":
        return "yaml"
    return "code"


def _value_span(text: str, index: int, style: str, kind: str, family: str, prio: int,
                spans: list[Span], upper: bool = False) -> None:
    if index >= len(text) or text[index] in "\r\n" or text.startswith(("\\n", "\\r"), index):
        return
    if text[index] in _STRING_PREFIXES and text[index + 1:index + 2] in ('"', "'"):
        index += 1
    quoted = value_bounds(text, index, style)
    if quoted is None:
        return
    start, end, is_quoted = quoted
    if style == "env" and not is_quoted and not upper:
        # a lower-case `name=value` may be a keyword argument: `f(user, password=pw)`
        while end > start and text[end - 1] in ",)]}":
            end -= 1
        if P.IDENTIFIER.fullmatch(text[start:end]):
            return
    content = text[start:end]
    ok = _quoted_ok(content, kind) if is_quoted else _bare_ok(text, start, end, content, kind, style)
    if ok:
        spans.append((start, end, family, prio))
    elif not is_quoted and style in ("code", "yaml") and content.lower() in P.STOP_VALUES:
        # a type annotation: `password: str = "hunter2"`
        after = re.compile(r"(?:\[[^\]\n]{0,64}\])?[ \t]{0,8}=[ \t]{0,8}").match(text, end)
        if after and after.group().strip().endswith("="):
            _value_span(text, after.end(), "code", kind, family, prio, spans)


def value_bounds(text: str, index: int, style: str) -> tuple[int, int, bool] | None:
    """(start, end, quoted) of the value at `index`; quotes are outside the span."""
    for opener, regex in _QUOTED_RES:
        if text.startswith(opener, index):
            match = regex.match(text, index)
            return (match.start(1), match.end(1), True) if match else None
    regex = _LOOSE_RE if style in ("env", "yaml", "flag", "loose") else _TIGHT_RE
    match = regex.match(text, index)
    return (match.start(), match.end(), False) if match else None


def _quoted_ok(content: str, kind: str) -> bool:
    stripped = content.strip()
    if not stripped or placeholder(stripped) or _path_like(stripped):
        return False
    if stripped.startswith(("http://", "https://")):
        return False
    return kind == "password" or not any(c.isspace() for c in stripped)


def _bare_ok(text: str, start: int, end: int, content: str, kind: str, style: str) -> bool:
    if placeholder(content) or content.startswith(("http://", "https://")) or _path_like(content):
        return False
    if text[end:end + 1] in ("(", "["):
        return False
    if style == "yaml":
        rest = _LINE_REST_RE.match(text, end)
        return bool(rest) and (rest.group().strip() == "" or rest.group().lstrip().startswith("#"))  # type: ignore[union-attr]
    if style in ("env", "flag", "loose"):
        return True
    if P.IDENTIFIER.fullmatch(content):
        return False
    if content.replace(".", "").isdigit():
        return kind == "password" and len(content) >= 4
    return len(content) >= 6


_LINE_REST_RE = re.compile(r"[^\r\n\\]{0,200}")


_NAME_KEY_RE = re.compile(r"""(?i)name\\?["']?[ \t]{0,4}[:=][ \t]{0,4}\\?["']?\Z""")
_VALUE_KEY_RE = re.compile(
    r"""(?:\\?["'])?[ \t]{0,8}(?:,[ \t]{0,8}|(?:\r?\n|\\n)[ \t]{0,16}(?:-[ \t]+)?)\\?["']?value\\?["']?[ \t]{0,4}[:=][ \t]{0,4}"""
)


def _named_value(text: str, start: int, end: int, kind: str, spans: list[Span]) -> bool:
    """`name: DB_PASSWORD` / `value: ...` pairs (Kubernetes env, ECS task definitions)."""
    if not _NAME_KEY_RE.search(text[max(0, start - 16):start]):
        return False
    match = _VALUE_KEY_RE.match(text, end)
    if match is None:
        return False
    family = classify(text[start:end]) or "secret"
    _value_span(text, match.end(), "yaml" if "\n" in match.group() or "\\n" in match.group() else "code",
                kind, family, GENERIC, spans)
    return True


def _spaced(text: str, start: int, end: int, name: str, kind: str, spans: list[Span]) -> None:
    """Forms without an operator: flags, .netrc, Dockerfile ENV, `aws configure set`, prose."""
    match = _SPACED_RE.match(text, end)
    if match is None:
        return
    family = classify(name) or "secret"
    if match.group("verb"):
        _prose(text, match.end(), kind, family, spans)
        return
    prefix = _line_prefix(text, start).strip()
    before = text[max(0, start - 200):start].lower()
    bare = name.lower().strip("-")
    quoted = text.startswith(("'", '"', "\\\""), match.end())
    allowed = (
        name.startswith("-")
        or prefix in ("ENV", "ARG")
        or prefix.endswith("configure set")
        or (bare in ("password", "passwd") and ("machine " in before or "login " in before or quoted))
    )
    if not allowed or text.startswith("-", match.end()):
        return
    bounds = value_bounds(text, match.end(), "loose")
    if bounds and bounds[1] > bounds[0] and not placeholder(text[bounds[0]:bounds[1]]) \
            and not _path_like(text[bounds[0]:bounds[1]]):
        spans.append((bounds[0], bounds[1], family, GENERIC))


def _prose(text: str, index: int, kind: str, family: str, spans: list[Span]) -> None:
    match = _PROSE_RE.match(text, index)
    if match is None:
        return
    group = 1 if match.group(1) is not None else 2
    start, end = match.span(group)
    while end > start and text[end - 1] in ".,;:!?)]\"'":
        end -= 1
    value = text[start:end]
    if len(value) < 6 or placeholder(value) or not any(c.isdigit() for c in value):
        return
    if not any(c.isalpha() for c in value) and kind != "password":
        return
    spans.append((start, end, family, GENERIC))


def _header(text: str, index: int, spans: list[Span]) -> None:
    quoted = next((q for q, _ in _QUOTED_RES if text.startswith(q, index)), None)
    if quoted is not None:
        bounds = value_bounds(text, index, "code")
        if bounds is None:
            return
        start, end = bounds[0], bounds[1]
    else:
        match = _LINE_RE.match(text, index)
        if match is None:
            return
        start, end = match.span()
    scheme = _SCHEME_RE.match(text, start, end)
    word = scheme.group(1).lower() if scheme else ""
    if word in ("digest", "negotiate", "ntlm", "aws4-hmac-sha256", "hmac"):
        return
    cred = CRED_RE.match(text, scheme.end() if scheme else start, end)
    if cred is None or len(cred.group()) < 8 or placeholder(cred.group()):
        return
    spans.append((cred.start(), cred.end(), "basic-auth" if word == "basic" else "bearer-token", CONTEXT))


def _cookies(text: str, index: int, set_cookie: bool, spans: list[Span]) -> None:
    bounds = value_bounds(text, index, "code") if text.startswith(("\\\"", '"', "'"), index) else None
    if bounds is None:
        match = _LINE_RE.match(text, index)
        if match is None:
            return
        start, end = match.span()
    else:
        start, end = bounds[0], bounds[1]
    pos = start
    first = True
    while pos < end:
        stop = text.find(";", pos, end)
        stop = end if stop == -1 else stop
        pair = text[pos:stop]
        eq = pair.find("=")
        if eq > 0:
            cname, value = pair[:eq].strip(), pair[eq + 1:].strip()
            v_start = pos + eq + 1 + (len(pair[eq + 1:]) - len(pair[eq + 1:].lstrip()))
            if cname.lower() not in _COOKIE_ATTRS and value and not placeholder(value) and (
                    len(value) >= 8 or any(s in cname.lower() for s in _SESSIONY)):
                spans.append((v_start, v_start + len(value), "cookie", CONTEXT))
        if set_cookie and first:
            return
        first = False
        pos = stop + 1


def _auth_tuple(text: str, index: int, spans: list[Span]) -> None:
    match = _TUPLE_RE.match(text, index)
    if match and not placeholder(match.group("pw")):
        spans.append((match.start("pw"), match.end("pw"), "basic-auth", CONTEXT))


def _xml(text: str, index: int, family: str, prio: int, spans: list[Span]) -> None:
    match = _XML_RE.match(text, index)
    if match and text.startswith("</", match.end()):
        value = match.group()
        if value.strip() and not placeholder(value.strip()):
            spans.append((match.start(), match.end(), family, prio))


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
    return all(c in "*xX.\u2022\u00b7#?-_ " for c in value)


def _path_like(value: str) -> bool:
    return bool(P.PATH_LIKE.fullmatch(value)) and not looks_random(value)


def looks_random(value: str) -> bool:
    """Mixed case and digits, long enough: a generated secret rather than a word or a path."""
    return (len(value) >= 12 and any(c.isdigit() for c in value)
            and any(c.islower() for c in value) and any(c.isupper() for c in value))


def _line_prefix(text: str, index: int) -> str:
    """The text from the start of the line (a real or a JSON-escaped newline) to `index`."""
    newline = text.rfind("\n", 0, index)
    escaped = text.rfind("\\n", 0, index)
    start = max(newline + 1, escaped + 2 if escaped != -1 else 0)
    return text[start:index]
