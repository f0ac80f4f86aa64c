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

How it stays fast (most text holds no secret, and every literal pass over a turn costs about
as much as the rest of the work): the text is viewed once as bytes (one byte per character,
so offsets match) and lower-cased once. Prefixed tokens are only tried at the start of runs
of 20+ token characters, found with one `translate` and one `find`, and only when the run
starts with a known prefix. Secret-like names come from four literal-prefixed scans of the
lower-cased bytes (`p`, `k`, `secret`, `auth`) whose tails are checked inside the regex; the
`k` scan also notices private-key and PuTTY blocks. URLs sit behind a `:` and a `://` check.

Modules: `patterns` (the tables), `names` (which names hold secrets),
`context` (values after names, headers, cookies), `prose` (English sentences, command lines),
`passwords` (passwords in sentences in nine languages, login pairs), `onetime` (one-time codes,
recovery codes, card numbers), this one (tokens, keys, URLs, merge).
"""

from __future__ import annotations

import re
from collections import Counter
from math import log2

from . import patterns as P
from .command_rules import scan_commands
from .context import CRED_RE, key_shaped, looks_random, placeholder, scan_names, value_bounds
from .onetime import DIGIT_MARKS, scan_onetime
from .passwords import LOGIN_RE, scan_passwords
from .prose import curl_cookies, hex_or_pat_run, scan_prose
from .scripts import fold

Span = tuple[int, int, str, int]  # start, end, family, priority (lower wins a merge)
_TOKEN, _CONTEXT = 0, 1  # priorities; names are 2 (vendor) and 3 (generic), see privacy.context

_TOKEN_CHARS = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_~-"
_RUN_TABLE = bytes(0x61 if c in _TOKEN_CHARS else 0x20 for c in range(256))
_RUN = b"a" * P.RUN_MIN
_QUERY_RE = re.compile(r"""[^&#\s"'<>\\]{1,4096}""")
_ANCHOR_BEFORE = b"\\.:/"  # a JSON escape, `SG.` `ya29.` `hvs.`, Telegram's `:AA`, `1//`
_DIGITS = b"0123456789"


def redact(text: str) -> str:
    """`text` with every recognised secret replaced by `[REDACTED:<family>]`."""
    spans = _find(text)
    return _redact_counts(text, spans)[0] if spans else text  # most text holds no secret


def redact_with(text: str, whole_commands: bool = False) -> str:
    """`redact`, reading every line as a shell command when `whole_commands` (the caller knows
    the text is command lines: `privacy.commands.redact_command`)."""
    spans = _find(text, whole_commands)
    return _redact_counts(text, spans, whole_commands)[0] if spans else text


def redact_counts(text: str) -> tuple[str, dict[str, int]]:
    """The redacted text and how many secrets of each family were replaced.

    A marker can give a neighbour the boundary it lacked (`AKIA...` glued to a key block that
    is now `[REDACTED:...]`), so text that changed is scanned again, up to three passes: that
    keeps `redact` idempotent. Text without secrets is scanned once.
    """
    return _redact_counts(text, _find(text))


def _redact_counts(text: str, spans: list[Span], whole: bool = False) -> tuple[str, dict[str, int]]:
    out, counts = _replace(text, spans)
    for _ in range(2):
        if out is text:
            break
        again, more = _replace(out, _find(out, whole))
        if again is out:
            break
        out = again
        for family, n in more.items():
            counts[family] = counts.get(family, 0) + n
    return out, counts


def _redact_once(text: str) -> tuple[str, dict[str, int]]:
    return _replace(text, _find(text))


def _replace(text: str, spans: list[Span]) -> tuple[str, dict[str, int]]:
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


def _find(text: str, whole: bool = False) -> list[Span]:
    if len(text) < 6:
        return []
    ascii_text = text.isascii()
    raw = text.encode("ascii") if ascii_text else text.encode("ascii", "replace")
    spans: list[Span] = []
    _scan_tokens(text, raw, spans)
    low = raw.lower()
    found = scan_names(text, low, spans)
    vetoes = scan_commands(text, low, spans, whole)
    words = scan_prose(text, low, spans)
    folded = None if ascii_text else fold(text)
    # the gates of `passwords` and `onetime`, here to spare most texts two calls: a password
    # word, another script, or a login word with a `/` or `:` for a login pair; ...
    colon = b":" in raw
    if words or folded is not None or ((colon or b"/" in raw) and LOGIN_RE.search(low)):
        scan_passwords(text, low, folded, words, spans)
    # ... three digits or more (deleting them is one fast pass), then a run of 3+ digits (one-time
    # codes, cards, backup codes), or `-` and `codes` (GitHub's recovery codes, hex)
    if folded is not None or len(raw) - len(raw.translate(None, _DIGITS)) >= 3:
        marks = low.translate(DIGIT_MARKS)
        digits = marks.find(b"ddd") != -1
        if digits or folded is not None or (b"-" in raw and b"codes" in low):
            scan_onetime(text, low, marks, digits, folded, spans)
    if "pem" in found:
        _scan_pem(text, spans)
    if "putty" in found:
        _scan_putty(text, spans)
    if colon:  # URLs, query strings and `curl -u user:pass` all need one
        _scan_urls(text, raw, low, spans)
    if vetoes and spans:  # what the command rules know holds no secret overrules a guess
        spans = _outside(spans, vetoes)
    return _merge(text, spans) if spans else spans


def _outside(spans: list[Span], vetoes: list[tuple[int, int]]) -> list[Span]:
    """The spans no veto range holds whole: the ranges sorted once, and for each span the
    farthest end among the ranges that start at or before it (a bisection), so the cost is
    (spans + ranges) x log(ranges), not their product."""
    from bisect import bisect_right

    vetoes = sorted(vetoes)
    starts = [v[0] for v in vetoes]
    reach: list[int] = []
    for _, end in vetoes:
        reach.append(max(end, reach[-1]) if reach else end)
    kept = []
    for span in spans:
        index = bisect_right(starts, span[0]) - 1
        if index < 0 or reach[index] < span[1]:
            kept.append(span)
    return kept


# --- prefixed tokens -----------------------------------------------------------------------


def _scan_tokens(text: str, raw: bytes, spans: list[Span]) -> None:
    """Find runs of 20+ token characters and try the token formats where one could start."""
    marks = raw.translate(_RUN_TABLE)
    start = marks.find(_RUN)
    while start != -1:
        end = marks.find(b" ", start + P.RUN_MIN)
        end = len(marks) if end == -1 else end
        before = raw[start - 1] if start else 0
        # cheap tests first: most long runs are identifiers and paths
        if (text[start:start + 2] in P.RUN_PREFIX2 or before in _ANCHOR_BEFORE or end - start == 34
                or 23 <= end - start <= 28 or (before == 0x20 and raw[start - 7:start - 1].lower() == b"bearer")):
            for anchor in _anchors(text, start, end, spans):
                match = P.TOKEN_RE.match(text, anchor)
                if match:
                    _token_match(text, match, spans)
        if end - start in (52, 64, 66):  # an Azure DevOps PAT, an Ethereum key: told by the words before
            hex_or_pat_run(text, raw.lower(), start, end, spans)
        if ((before == 0x2F and raw.find(b"hooks", max(0, start - 100), start) != -1)  # a webhook URL
                or raw.find(b"Q~", start, start + 8) != -1):  # an Azure client secret
            for match in P.TOKEN_RE.finditer(text, max(0, start - 100), min(end, start + 300)):
                _token_match(text, match, spans)
        start = marks.find(_RUN, end)


def _anchors(text: str, start: int, end: int, spans: list[Span]) -> tuple[int, ...]:
    """Where a token could begin, given a run of token characters at [start, end)."""
    if text[start:start + 2] in P.RUN_PREFIX2 and text.startswith(P.RUN_PREFIXES, start):
        return (start,)
    before = text[start - 1] if start else ""
    if before == "\\":  # right after a JSON escape such as \n
        return (start + 1,) if text.startswith(P.RUN_PREFIXES, start + 1) else ()
    if before and before in ".:/":  # ("" is in every string: a token at offset 0 has no preceder)
        for preceder in P.RUN_PRECEDERS:
            if text.endswith(preceder, 0, start):
                return (start - len(preceder),)
        if before == ":" and text.startswith("AA", start):  # Telegram: <digits>:AA...
            digits = start - 1
            while digits > 0 and text[digits - 1].isdigit() and start - digits < 12:
                digits -= 1
            return (digits,)
        return ()
    if before == " " and text[max(0, start - 7):start - 1].lower() == "bearer":
        cred = CRED_RE.match(text, start)
        if cred and looks_random(cred.group()) and not placeholder(cred.group()):
            spans.append((start, cred.end(), "bearer-token", _CONTEXT))
        return ()
    length = end - start
    if length == 34 and text.startswith(("SK", "AC"), start):
        return (start,)
    if 23 <= length <= 28 and text[start] in "MNO" and text.startswith(".", end):
        return (start,)
    return ()


def _token_match(text: str, match: re.Match[str], spans: list[Span]) -> None:
    group = match.lastgroup or ""
    family = P.TOKEN_GROUPS[group]
    secret_group = "s" + group[1:]
    start, end = match.span(secret_group) if match.re.groupindex.get(secret_group) and \
        match.group(secret_group) is not None else match.span()
    secret = text[start:end]
    if _token_placeholder(secret):
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


def _token_placeholder(secret: str) -> bool:
    low = secret.lower()
    if "example" in low or "xxxx" in low or "****" in low or "..." in secret:
        return True
    if "your" in low and ("token" in low or "key" in low or "here" in low):
        return True  # `ghp_YourPersonalAccessTokenHere`
    if any(part in low for part in ("abcdefgh", "12345678", "01234567")):
        return True
    return len(secret) >= 16 and _entropy(secret) < 2.5


def _entropy(value: str) -> float:
    counts = Counter(value)
    size = len(value)
    return -sum(c / size * log2(c / size) for c in counts.values())


# --- private keys ---------------------------------------------------------------------------


def _scan_pem(text: str, spans: list[Span]) -> None:
    """Private-key blocks, BEGIN to END; a block cut short ends with its last base64 line."""
    begins = list(P.PEM_BEGIN_RE.finditer(text))
    end: re.Match[str] | None = None
    searched, taken = False, 0
    for index, begin in enumerate(begins):
        if begin.start() < taken:
            continue
        if not searched or (end is not None and end.start() < begin.end()):
            end = P.PEM_END_RE.search(text, begin.end())  # none now means none later either
            searched = True
        following = begins[index + 1].start() if index + 1 < len(begins) else len(text)
        if end is not None and end.start() < following:
            body_end, span_end = end.start(), end.end()
        else:
            body = P.PEM_BODY_RE.match(text, begin.end())
            body_end = span_end = body.end() if body else begin.end()
        if len(P.B64_CHAR_RE.findall(text, begin.end(), min(body_end, begin.end() + 600))) >= 40:
            kind = begin.group("kind")
            family = ("ssh-private-key" if "OPENSSH" in kind else
                      "pgp-private-key" if "PGP" in kind else "private-key")
            spans.append((begin.start(), span_end, family, _TOKEN))
            taken = span_end


def _scan_putty(text: str, spans: list[Span]) -> None:
    """A PuTTY key file, from its first line to the end of its `Private-MAC:` line."""
    pos, mac, lines = 0, -2, -2  # -2: not searched yet; each is searched again only when passed
    while (start := text.find("PuTTY-User-Key-File-", pos)) != -1:
        if mac != -1 and mac < start:
            mac = text.find("Private-MAC:", start)
        if mac != -1 and mac - start < 16000:
            end = _line_end(text, mac)
        else:  # no MAC line: the private lines are what matters
            if lines != -1 and lines < start:
                lines = text.find("Private-Lines:", start)
            body = P.PEM_BODY_RE.match(text, lines + 14) if lines != -1 and lines - start < 16000 else None
            end = body.end() if body else start + 20
        spans.append((start, end, "ssh-private-key", _TOKEN))
        pos = end


def _line_end(text: str, index: int) -> int:
    """The end of the line at `index`: a newline, a JSON-escaped newline or a closing quote."""
    ends = [found for found in (text.find("\n", index), text.find("\\n", index), text.find('"', index))
            if found != -1]
    return min(ends) if ends else len(text)


# --- URLs, bearer tokens --------------------------------------------------------------------


def _scan_urls(text: str, raw: bytes, low: bytes, spans: list[Span]) -> None:
    if P.URL_GATE_RE.search(raw):
        _url_path_tokens(text, spans)
    if b"@" in raw and P.URL_GATE_RE.search(raw):
        for match in P.URL_CRED_RE.finditer(text):
            password = match.group("pw")
            if placeholder(password):
                continue
            scheme = _scheme_before(low, match.start())
            db = scheme in P.DB_SCHEMES or scheme.split("+")[0] in P.DB_SCHEMES
            spans.append((match.start("pw"), match.end("pw"), "db-credentials" if db else "url-credentials", _CONTEXT))
    if P.SIG_GATE_RE.search(low) and (b"?" in raw or b"&sig" in low):  # a SAS token may come without its URL
        for param in P.SIG_RE.finditer(low):
            name = param.start()
            while name > 0 and (low[name - 1] == 0x2D or chr(low[name - 1]).isalpha()) and param.start() - name < 12:
                name -= 1
            if name == 0 or low[name - 1] not in b"?&" or low[name:param.end() - 1] not in P.SIG_PARAMS:
                continue
            value = _QUERY_RE.match(text, param.end())
            if value and not placeholder(value.group()):
                spans.append((value.start(), value.end(), "query-token", _CONTEXT))
    if P.CURL_GATE_RE.search(low):
        curl_cookies(text, low, spans)
        for flag in P.CURL_USER_RE.finditer(low):
            start = flag.start() - (flag.start() > 0 and low[flag.start() - 1] == 0x2D)  # --user
            if start > 0 and low[start - 1] in b" \t":
                _curl_user(text, flag.end(), spans)


_URL_PATH: list[re.Pattern[str]] = []
_SLUG_PART_RE = re.compile(r"[A-Za-z][a-z]*\d{0,2}|\d{1,4}")


def _url_path_tokens(text: str, spans: list[Span]) -> None:
    """A login, magic-link, password-reset, invitation or verification link whose token is a
    path segment (`https://host/portal/login/<token>`, `/reset-password/<token>`,
    `/invite/<token>`, `/auth/magic/<token>`): the segment after the login-ish one goes when it
    looks generated (20+ letters and digits, varied; or 32+ hex), not a slug of words
    (`/invite/team-onboarding-2024`), a route (`/login/sso.action`) or a template (`:token`)."""
    if not _URL_PATH:
        _URL_PATH.append(re.compile(
            r"(?i)https?://[^\s/?#\"'<>]{1,253}(?:/[^\s/?#\"'<>]{0,128}){0,8}?/"
            r"(?:log-?in|sign-?in|auth|magic(?:-?link)?|reset(?:-password)?|password-reset|password/reset|invite|"
            r"invitation|accept-invite|join|verify(?:-email)?|confirm(?:-email)?|activate|activation|unlock|"
            r"one-time-login|onetime|otp|sso|access)/"
            r"(?P<tok>[A-Za-z0-9_-]{16,512})(?=[/?#\s\"'`)>\].,;]|$)"))
    for match in _URL_PATH[0].finditer(text):
        token = match.group("tok")
        if _generated(token) and not _token_placeholder(token):
            spans.append((match.start("tok"), match.end("tok"), "login-token", _CONTEXT))


def _generated(token: str) -> bool:
    parts = [part for part in re.split(r"[-_]", token) if part]
    if all(_SLUG_PART_RE.fullmatch(part) for part in parts):
        return False  # a slug of words: `team-onboarding-2024`, `oauth2-device-flow`
    if len(token) >= 32 and all(c in "0123456789abcdefABCDEF" for c in token):
        return True
    return (len(token) >= 20 and any(c.isdigit() for c in token) and any(c.isalpha() for c in token)
            and len(set(token)) >= 12)


def _scheme_before(low: bytes, index: int) -> str:
    start = index
    while start > 0 and index - start < 32 and (chr(low[start - 1]).isalnum() or low[start - 1] in b"+.-"):
        start -= 1
    return low[start:index].decode("ascii", "replace")


def _curl_user(text: str, index: int, spans: list[Span]) -> None:
    """`curl -u user:pass`, `--user 'user:pass'`, `-u user:'pass'`, and `-u KEY:` (an API key
    passed as the user name, no password)."""
    value = value_bounds(text, index, "loose")
    if value is None:
        return
    start, end, _ = value
    colon = text.find(":", start, end)
    if colon == -1 or text.find(P.MARKER_PREFIX, start, end + 2) != -1:
        return  # nothing to split, or already redacted
    if colon + 1 == end and text.startswith(("'", '"'), end):  # user:'pass'
        quoted = value_bounds(text, end, "loose")
        if quoted is not None and quoted[2]:
            end = quoted[1]
            colon = quoted[0] - 1
            start_pw = quoted[0]
        else:
            return
    else:
        start_pw = colon + 1
    user, secret = text[start:colon].strip("'\""), text[start_pw:end].strip("'\"")
    if start_pw < end and not placeholder(secret) and secret != user and not text.startswith("<", start):
        spans.append((start_pw, end, "basic-auth", _CONTEXT))
    elif start_pw >= end and key_shaped(text[start:colon]):
        spans.append((start, colon, "basic-auth", _CONTEXT))


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


__all__ = ["redact", "redact_counts", "redact_with", "contains_secret"]
