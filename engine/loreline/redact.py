"""Secret redaction: every kept text passes through `redact` before it is stored or sent.

Invariants:

* **What is never stored.** A secret the redactor recognises is replaced by a typed marker
  `[REDACTED:<family>]` (`[REDACTED:aws-access-key]`, `[REDACTED:password]` ...). Only the
  secret goes: an assignment keeps its name and operator (`DB_PASSWORD=[REDACTED:password]`),
  a credentialed URL keeps scheme, user and host (`postgres://app:[REDACTED:db-credentials]@db`),
  a header keeps its scheme word (`Authorization: Bearer [REDACTED:bearer-token]`), a webhook
  keeps its host. Private-key blocks are replaced whole, BEGIN and END lines included.
* **Idempotent.** `redact(redact(x)) == redact(x)`. Markers, and values already masked by
  someone else (`****`, `xxxx`, `sk-...abcd`, `[REDACTED]`, `<redacted>`), are placeholders and
  are left as they are.
* **Look-alikes survive byte for byte.** Git SHAs, UUIDs, digests and lockfile integrity
  hashes, public keys and certificates, `${VAR}` / `$VAR` / `os.environ[...]` /
  `process.env.X` / `getenv(...)` references, type annotations (`password: str`), placeholders
  (`YOUR_API_KEY`, `<your-token>`, anything containing `EXAMPLE`, `changeme`) and prose that
  mentions a password without giving one.
* **JSON stays JSON.** Text is often a JSON document or a JSON-escaped string (tool inputs):
  a value ends at an escaped quote or an escape like `\\n`, a span never splits an escape
  sequence, and markers contain no quote or backslash. Valid JSON in, valid JSON out.
* **Linear time.** Every quantifier is bounded and every scan is anchored on a literal or a
  cheap gate, so adversarial inputs cost time proportional to their length.

Best effort by design: misses cost far more than false positives, so when in doubt a value
under a secret-like name is redacted. The corpus in `tests/corpus/redaction/` measures both.

How it stays fast (most text has no secret): prefixed tokens are only looked for around runs
of at least 16 token characters that start with a known prefix (found with one translate and
a sampled search, no regex over the whole text); secret-like names are found with one literal
scan per keyword over the lower-cased bytes; URLs, bearer tokens and private keys each sit
behind a literal check.
"""

from __future__ import annotations

import re
from collections import Counter
from math import log2

from . import redact_patterns as P
from .redact_context import CRED_RE, looks_random, placeholder, scan_names, value_bounds

Span = tuple[int, int, str, int]  # start, end, family, priority (lower wins a merge)
_TOKEN, _CONTEXT, _VENDOR, _GENERIC = 0, 1, 2, 3

_TOKEN_CHARS = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_~-"
_RUN_TABLE = bytes(0x61 if c in _TOKEN_CHARS else 0x20 for c in range(256))
_RUN = b"a" * P.RUN_MIN


def redact(text: str) -> str:
    """`text` with every recognised secret replaced by `[REDACTED:<family>]`."""
    return redact_counts(text)[0]


def redact_counts(text: str) -> tuple[str, dict[str, int]]:
    """The redacted text and how many secrets of each family were replaced."""
    spans = _find(text)
    if not spans:
        return text, {}
    pieces: list[str] = []
    counts: Counter[str] = Counter()
    last = 0
    for start, end, family, _ in spans:
        pieces.append(text[last:start])
        pieces.append(f"{P.MARKER_PREFIX}{family}]")
        counts[family] += 1
        last = end
    pieces.append(text[last:])
    return "".join(pieces), dict(counts)


def contains_secret(text: str) -> bool:
    """Whether `redact` would change anything."""
    return bool(_find(text))


def _find(text: str) -> list[Span]:
    if len(text) < 6:
        return []
    raw = text.encode("ascii") if text.isascii() else text.encode("ascii", "replace")
    spans: list[Span] = []
    _scan_tokens(text, raw, spans)
    low = raw.lower()
    found = scan_names(text, low, spans)
    if "pem" in found:
        _scan_pem(text, spans)
    if "putty" in found:
        _scan_putty(text, spans)
    if b"://" in raw:
        _scan_urls(text, raw, low, spans)
    return _merge(text, spans) if spans else spans


# --- prefixed tokens -----------------------------------------------------------------------


def _scan_tokens(text: str, raw: bytes, spans: list[Span]) -> None:
    """Find runs of 20+ token characters; scan the few that could be a token."""
    marks = raw.translate(_RUN_TABLE)
    size = len(marks)
    windows: list[tuple[int, int]] = []
    start = marks.find(_RUN)
    while start != -1:
        end = marks.find(b" ", start + P.RUN_MIN)
        end = size if end == -1 else end
        if _run_flagged(text, start, end, spans):
            lo, hi = max(0, start - 100), min(size, end + 64)
            if windows and lo <= windows[-1][1]:
                windows[-1] = (windows[-1][0], hi)
            else:
                windows.append((lo, hi))
        start = marks.find(_RUN, end)
    for lo, hi in windows:
        for match in P.TOKEN_RE.finditer(text, lo, hi):
            if match.end() == hi and hi < size:  # the window cut it short: match it whole
                match = P.TOKEN_RE.match(text, match.start()) or match
            _token_match(text, match, spans)


def _run_flagged(text: str, start: int, end: int, spans: list[Span]) -> bool:
    """Whether a long run could hold a prefixed token (cheap checks first; most runs fail)."""
    if text[start:start + 2] in P.RUN_PREFIX2 and text.startswith(P.RUN_PREFIXES, start):
        return True
    before = text[start - 1] if start else ""
    if before == "\\":  # a token right after a JSON escape such as \n
        return text.startswith(P.RUN_PREFIXES, start + 1)
    if before in ".:/" and (text.endswith(P.RUN_PRECEDERS, max(0, start - 6), start)
                            or (before == ":" and text.startswith("AA", start))
                            or (before == "/" and text.find("hooks", max(0, start - 100), start) != -1)):
        return True
    if before == " " and text[max(0, start - 7):start - 1].lower() == "bearer":
        cred = CRED_RE.match(text, start)
        if cred and looks_random(cred.group()) and not placeholder(cred.group()):
            spans.append((start, cred.end(), "bearer-token", _CONTEXT))
        return False
    length = end - start
    if length == 34 and text.startswith(("SK", "AC"), start):
        return True
    if 23 <= length <= 28 and text[start] in "MNO" and text.startswith(".", end):
        return True
    return text.find("Q~", max(0, start - 40), end + 2) != -1


def _token_match(text: str, match: re.Match[str], spans: list[Span]) -> None:
    group = match.lastgroup or ""
    family = P.TOKEN_GROUPS[group]
    secret_group = "s" + group[1:]
    start, end = match.span(secret_group) if match.re.groupindex.get(secret_group) and \
        match.group(secret_group) is not None else match.span()
    secret = text[start:end]
    if _tokenplaceholder(secret):
        return
    spans.append((start, end, family, _TOKEN))
    if family == "aws-access-key":  # a secret access key usually sits right after the id
        near = P.AWS_SECRET_NEAR_RE.search(text, end, min(len(text), end + 120))
        if near and looks_random(near.group()):
            spans.append((near.start(), near.end(), "aws-secret-key", _TOKEN))
    elif family == "twilio-account-sid":  # ... and an auth token right after the account SID
        near = P.HEX32_NEAR_RE.search(text, end, min(len(text), end + 80))
        if near:
            spans.append((near.start(), near.end(), "twilio-auth-token", _TOKEN))


def _tokenplaceholder(secret: str) -> bool:
    low = secret.lower()
    if "example" in low or "xxxx" in low or "****" in low or "..." in secret:
        return True
    if any(part in low for part in ("abcdefgh", "12345678", "01234567")):
        return True
    return len(secret) >= 16 and _entropy(secret) < 2.5


def _entropy(value: str) -> float:
    counts = Counter(value)
    size = len(value)
    return -sum(c / size * log2(c / size) for c in counts.values())


# --- private keys ---------------------------------------------------------------------------


def _scan_pem(text: str, spans: list[Span]) -> None:
    pos = 0
    while True:
        begin = P.PEM_BEGIN_RE.search(text, pos)
        if begin is None:
            return
        end_match = P.PEM_END_RE.search(text, begin.end(), min(len(text), begin.end() + 20000))
        next_begin = text.find("-----BEGIN", begin.end())
        if end_match and (next_begin == -1 or end_match.start() < next_begin):
            body_end, span_end = end_match.start(), end_match.end()
        else:  # truncated block: the base64 lines after the header
            body = P.PEM_BODY_RE.match(text, begin.end())
            body_end = span_end = body.end() if body else begin.end()
        body_chars = len(P.B64_CHAR_RE.findall(text, begin.end(), min(body_end, begin.end() + 600)))
        if body_chars >= 40:
            kind = begin.group("kind")
            family = ("ssh-private-key" if "OPENSSH" in kind else
                      "pgp-private-key" if "PGP" in kind else "private-key")
            spans.append((begin.start(), span_end, family, _TOKEN))
        pos = max(span_end, begin.end())


def _scan_putty(text: str, spans: list[Span]) -> None:
    pos = 0
    while (start := text.find("PuTTY-User-Key-File-", pos)) != -1:
        mac = text.find("Private-MAC:", start, start + 16000)
        if mac != -1:
            end = len(text)
            for stop in ("\n", "\\n", '"'):
                found = text.find(stop, mac)
                if found != -1:
                    end = min(end, found)
        else:
            lines = text.find("Private-Lines:", start, start + 16000)
            body = P.PEM_BODY_RE.match(text, lines + 14) if lines != -1 else None
            end = body.end() if body else start + 20
        spans.append((start, end, "ssh-private-key", _TOKEN))
        pos = end


# --- URLs, bearer tokens --------------------------------------------------------------------


def _scan_urls(text: str, raw: bytes, low: bytes, spans: list[Span]) -> None:
    if b"@" in raw:
        for match in P.URL_CRED_RE.finditer(text):
            password = match.group("pw")
            if placeholder(password):
                continue
            scheme = _scheme_before(low, match.start())
            db = scheme in P.DB_SCHEMES or scheme.split("+")[0] in P.DB_SCHEMES
            spans.append((match.start("pw"), match.end("pw"), "db-credentials" if db else "url-credentials", _CONTEXT))
    if b"sig" in low:
        for match in P.SIG_RE.finditer(low):
            value = _QUERY_RE.match(text, match.end())
            if value and not placeholder(value.group()):
                spans.append((value.start(), value.end(), "query-token", _CONTEXT))
    if b"curl" in low:
        for match in P.CURL_USER_RE.finditer(low):
            start = match.start() - (match.start() > 0 and low[match.start() - 1] == 0x2D)  # --user
            if start > 0 and low[start - 1] in b" \t":
                _curl_user(text, match.end(), spans)


def _scheme_before(low: bytes, index: int) -> str:
    start = index
    while start > 0 and index - start < 32 and (chr(low[start - 1]).isalnum() or low[start - 1] in b"+.-"):
        start -= 1
    return low[start:index].decode("ascii", "replace")


def _curl_user(text: str, index: int, spans: list[Span]) -> None:
    value = value_bounds(text, index, "loose")
    if value is None:
        return
    start, end, _ = value
    colon = text.find(":", start, end)
    if colon != -1 and colon + 1 < end and not placeholder(text[colon + 1:end]):
        spans.append((colon + 1, end, "basic-auth", _CONTEXT))


_QUERY_RE = re.compile(r"""[^&#\s"'<>\\]{1,4096}""")


def _merge(text: str, spans: list[Span]) -> list[Span]:
    """Union of overlapping spans, each named after its most specific family."""
    spans.sort(key=lambda s: (s[0], -s[1]))
    out: list[Span] = []
    for start, end, family, prio in spans:
        start, end = _safe_bounds(text, start, end)
        if end <= start:
            continue
        if out and start < out[-1][1]:
            o_start, o_end, o_family, o_prio = out[-1]
            if prio < o_prio:
                o_family, o_prio = family, prio
            out[-1] = (o_start, max(o_end, end), o_family, o_prio)
        else:
            out.append((start, end, family, prio))
    return out


def _safe_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    """Never split a backslash escape: JSON text must stay JSON."""
    if start > 0 and _odd_backslashes(text, start):
        start -= 1
    if end > start and _odd_backslashes(text, end):
        end -= 1
    unicode_escape = text.rfind("\\u", max(start, end - 5), end)
    if unicode_escape != -1 and not _odd_backslashes(text, unicode_escape):
        end = min(len(text), unicode_escape + 6)
    return start, end


def _odd_backslashes(text: str, index: int) -> bool:
    """Whether the character at `index` is escaped by the backslashes right before it."""
    count = 0
    while index - count > 0 and text[index - count - 1] == "\\":
        count += 1
    return count % 2 == 1


__all__ = ["redact", "redact_counts", "contains_secret"]
