"""Hidden-text sanitizer: what a reader of the transcript could not see is not learned from.

Runs on every kept text before `loreline.redact`. What it does, in this order:

Removed silently (counted):
* invisible characters: U+200B, U+2060-U+2064, U+FEFF (BOM), U+00AD (soft hyphen), U+180E;
  U+200C (ZWNJ) and U+200D (ZWJ) are **kept** where they join: both neighbours in a
  joining script (Arabic/Persian/Syriac/N'Ko, the Indic scripts, Tibetan, Myanmar, Khmer,
  Mongolian), or, for ZWJ, both neighbours emoji (family and profession sequences);
* bidi embeddings, overrides and isolates U+202A-U+202E, U+2066-U+2069 (U+200E/U+200F marks
  are kept: they cannot reorder text);
* Unicode tag characters U+E0000-U+E007F, except a well-formed emoji flag tag sequence
  (U+1F3F4, 1-7 tag letters or digits, U+E007F: the England, Scotland, Wales flags);
* variation selectors used as a side channel: runs of two or more collapse to the first if it
  is U+FE0E/U+FE0F (else vanish); U+E0100-U+E01EF only stays after a CJK ideograph;
* the same characters written as JSON escapes (`\\u200b`, tag surrogate pairs) in escaped text;
* harness wrappers with their content: `<system-reminder>`, `<command-name>`,
  `<command-message>`, `<command-args>`, `<local-command-stdout|stderr|caveat>`, and
  Loreline's own `<loreline-memories>` block, so an injected memory is never learned again;
* HTML comments `<!-- ... -->`, and elements hidden by CSS or markup (`display:none`,
  `visibility:hidden`, `font-size:0`, `opacity:0`, `color:transparent|white|#fff`, far
  off-screen positioning, the `hidden` attribute) with their content.

An unterminated comment, wrapper, hidden element or `<private>` span hides everything after
it, so it is dropped to the end of the text. A tag written inside backticks (`` `<private>` ``)
is a mention, not markup, and stays.

Replaced by a marker:
* `<private>...</private>` → `[private]` (the user asked for it not to be kept);
* base64 blobs of 200+ characters → `[base64 blob, N chars]` (JWT parts are left to the
  redactor, which knows them).

Marked, never removed: instruction-override phrases ("ignore all previous instructions",
"disregard the system prompt", "you are now DAN", "new instructions:") are wrapped as
`[instruction-override: <the phrase>]`, so the distiller reads them as quoted data. Ordinary
"from now on, always ..." is a user preference and is not marked.

`sanitize(sanitize(x)) == sanitize(x)`. Most text is plain ASCII without `<`: it costs an
O(1) `isascii`, a `<` check, one translate for blobs and a few literal scans for phrases.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable

_INVISIBLE_RE = re.compile(
    "\U0001F3F4[\U000E0030-\U000E0039\U000E0061-\U000E007A]{1,7}\U000E007F"
    "|[\U000E0000-\U000E007F]+"
    "|[\u200c\u200d]"
    "|[\u00ad\u180e\u200b\u2060-\u2064\ufeff]+"
    "|[\u202a-\u202e\u2066-\u2069]+"
    "|[\ufe00-\ufe0f\U000E0100-\U000E01EF]{2,}"
    "|[\U000E0100-\U000E01EF]"
)
_ESCAPED_RE = re.compile(
    r"\\u(?:200[bB]|206[0-4]|[fF][eE][fF][fF]|00[aA][dD]|180[eE]|202[a-eA-E]|206[6-9])"
    r"|\\u[dD][bB]40\\u[dD][cC][0-7][0-9a-fA-F]"
)
_WRAPPERS = ("private", "loreline-memories", "system-reminder", "command-name", "command-message",
             "command-args", "local-command-stdout", "local-command-stderr", "local-command-caveat")
_TAG_RE = re.compile(
    r"<(?:(?P<comment>!--)"
    r"|(?P<wrap>" + "|".join(_WRAPPERS) + r")(?=[\s>/])[^<>]{0,2000}>"
    r"|(?P<el>[A-Za-z][A-Za-z0-9]{0,20})(?P<attrs>\s[^<>]{0,2000}?(?:style|hidden)[^<>]{0,2000})>)",
    re.IGNORECASE,
)
_STYLE_RE = re.compile(r"""style\s*=\s*(["'])(.*?)\1""", re.IGNORECASE | re.DOTALL)
_HIDING_RE = re.compile(
    r"display:none|visibility:hidden|(?:font-size|opacity|line-height|max-height|height):0(?:\.0+)?"
    r"(?:px|pt|em|rem|%)?(?:;|!|$)|color:(?:transparent|white|#fff(?:fff)?(?:;|!|$)|"
    r"rgba\([^)]*,0(?:\.0+)?\))|(?:left|top|text-indent):-\d{3,}"
)
_QUOTED_ATTR_RE = re.compile(r"""(["']).*?\1""", re.DOTALL)
_HIDDEN_ATTR_RE = re.compile(r"(?:^|\s)hidden(?:\s|=|/|$)", re.IGNORECASE)
_VOID = frozenset("area base br col embed hr img input link meta source track wbr".split())
_B64_CHARS = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-"
_B64_TABLE = bytes(0x61 if c in _B64_CHARS else 0x20 for c in range(256))
_BLOB_MIN, _BLOB_STEP = 200, 100
_OVERRIDE_NEEDLES = (b"ignore", b"disregard", b"forget", b"override", b"you are now", b"instruction")
_VERB = r"(?:ignore|disregard|forget|override|bypass)"
_OVERRIDE_RE = re.compile(
    _VERB + r"\s+(?:(?:all|any|the|your|my|of|every|these|those|that|what|you|were|was|have|been|"
    r"are|is|said|told|given|to|in)\s+){0,4}(?:previous|prior|above|earlier|preceding|foregoing|former|"
    r"original|initial|system|developer|existing|current|old)\s+(?:instructions?|prompts?|directions?|"
    r"directives?|rules|guidelines|messages?|context|commands?|orders|guidance|constraints|programming)\b"
    r"|" + _VERB + r"\s+(?:(?:all|any|your|the)\s+){0,2}(?:instructions|guidelines|system\s+prompt|"
    r"safety\s+(?:rules|guidelines|filters?))\b"
    r"|forget\s+(?:everything|all)\s+(?:above|before|previous(?:ly)?|prior|you\s+(?:were|have\s+been)\s+told)\b"
    r"|you\s+are\s+now\s+(?:DAN\b|in\s+(?:developer|god|jailbreak|unrestricted|dan|admin|debug|sudo|evil)"
    r"\s+mode|(?:a|an)\s+(?:unrestricted|unfiltered|uncensored|jailbroken|evil|rogue)\b[\w ]{0,30}|"
    r"no\s+longer\s+(?:bound|restricted|an?\s+(?:ai|assistant|language\s+model))\b|free\s+(?:of|from)\s+"
    r"(?:all\s+)?(?:restrictions|rules|guidelines)|jailbroken|unrestricted|unfiltered)"
    r"|\b(?:new|updated)\s+(?:system\s+)?instructions?\s*:",
    re.IGNORECASE,
)
_OVERRIDE_MARK = "[instruction-override: "


def sanitize(text: str) -> str:
    """`text` without hidden content, with instruction-override phrases marked."""
    return sanitize_counts(text)[0]


def sanitize_counts(text: str) -> tuple[str, dict[str, int]]:
    """The sanitized text and how many removals/markings of each kind were made."""
    counts: Counter[str] = Counter()
    if not text:
        return text, {}
    if not text.isascii():
        text = _strip_invisible(text, counts)
    if "\\u" in text:
        text = _strip_escaped(text, counts)
    if "<" in text:
        text = _strip_markup(text, counts)
    text = _replace_blobs(text, counts)
    text = _mark_overrides(text, counts)
    return text, dict(counts)


# --- invisible characters -------------------------------------------------------------------


def _strip_invisible(text: str, counts: Counter[str]) -> str:
    if _INVISIBLE_RE.search(text) is None:
        return text

    def replace(match: re.Match[str]) -> str:
        found, first = match.group(), match.group()[0]
        if first == "\U0001F3F4":
            return found
        if first in "\u200c\u200d":
            if _joins(match.string, match.start(), first == "\u200d"):
                return found
            counts["zero-width"] += 1
            return ""
        if "\U000E0000" <= first <= "\U000E007F":
            counts["tag-characters"] += len(found)
            return ""
        if "\u202a" <= first <= "\u202e" or "\u2066" <= first <= "\u2069":
            counts["bidi-control"] += len(found)
            return ""
        if "\ufe00" <= first <= "\ufe0f" or first >= "\U000E0100":
            return _variation(match, counts)
        counts["zero-width"] += len(found)
        return ""

    return _INVISIBLE_RE.sub(replace, text)


def _variation(match: re.Match[str], counts: Counter[str]) -> str:
    found = match.group()
    if len(found) == 1:  # one supplementary selector: fine after a CJK ideograph
        prev = match.string[match.start() - 1] if match.start() else ""
        if prev and ("\u3400" <= prev <= "\u9fff" or "\uf900" <= prev <= "\ufaff" or prev >= "\U00020000"):
            return found
        counts["variation-selectors"] += 1
        return ""
    keep = found[0] if found[0] in "\ufe0e\ufe0f" else ""
    counts["variation-selectors"] += len(found) - len(keep)
    return keep


def _joins(text: str, index: int, zwj: bool) -> bool:
    prev = text[index - 1] if index else ""
    nxt = text[index + 1] if index + 1 < len(text) else ""
    if not prev or not nxt:
        return False
    if _joining(prev) and _joining(nxt):
        return True
    return zwj and _emoji(prev) and _emoji(nxt)


def _joining(ch: str) -> bool:
    cp = ord(ch)
    return (0x0600 <= cp <= 0x08FF or 0x0900 <= cp <= 0x0DFF or 0x0F00 <= cp <= 0x109F
            or 0x1780 <= cp <= 0x18AF or 0xA840 <= cp <= 0xA87F or 0xFB50 <= cp <= 0xFDFF
            or 0xFE70 <= cp <= 0xFEFE)


def _emoji(ch: str) -> bool:
    cp = ord(ch)
    return (0x1F000 <= cp <= 0x1FAFF or 0x2300 <= cp <= 0x23FF or 0x2600 <= cp <= 0x27BF
            or 0x2B00 <= cp <= 0x2BFF or cp == 0xFE0F)


def _strip_escaped(text: str, counts: Counter[str]) -> str:
    def replace(match: re.Match[str]) -> str:
        start = match.start()
        slashes = 0
        while start - slashes > 0 and match.string[start - slashes - 1] == "\\":
            slashes += 1
        if slashes % 2:  # `\\u200b` is a backslash followed by text, not an escape
            return match.group()
        counts["escaped-invisible"] += 1
        return ""

    return _ESCAPED_RE.sub(replace, text)


# --- markup ---------------------------------------------------------------------------------


def _strip_markup(text: str, counts: Counter[str]) -> str:
    out: list[str] = []
    pos = 0
    while (match := _TAG_RE.search(text, pos)) is not None:
        start, end = match.span()
        if start > 0 and text[start - 1] == "`" and text.startswith("`", end):
            out.append(text[pos:end])  # a tag quoted in inline code is a mention
            pos = end
            continue
        removed_to, replacement = _removal(text, match, counts)
        out.append(text[pos:start] if removed_to is not None else text[pos:end])
        if removed_to is None:
            pos = end
            continue
        out.append(replacement)
        pos = removed_to
    out.append(text[pos:])
    return "".join(out)


def _removal(text: str, match: re.Match[str], counts: Counter[str]) -> tuple[int | None, str]:
    """Where the removal that starts at `match` ends (None: keep the tag) and what replaces it."""
    if match.group("comment"):
        close = text.find("-->", match.end())
        counts["html-comment"] += 1
        return (len(text) if close == -1 else close + 3), ""
    wrap = match.group("wrap")
    if wrap:
        wrap = wrap.lower()
        closer = re.compile(r"</" + wrap + r"\s*>", re.IGNORECASE).search(text, match.end())
        counts["private" if wrap == "private" else
               "loreline-memories" if wrap == "loreline-memories" else "harness-wrapper"] += 1
        return (len(text) if closer is None else closer.end()), ("[private]" if wrap == "private" else "")
    name, attrs = match.group("el").lower(), match.group("attrs")
    if not _hidden(attrs):
        return None, ""
    counts["hidden-html"] += 1
    if name in _VOID or attrs.rstrip().endswith("/"):
        return match.end(), ""
    return _element_end(text, name, match.end()), ""


def _hidden(attrs: str) -> bool:
    for style in _STYLE_RE.finditer(attrs):
        if _HIDING_RE.search(re.sub(r"\s+", "", style.group(2).lower())):
            return True
    return bool(_HIDDEN_ATTR_RE.search(_QUOTED_ATTR_RE.sub("", attrs)))


def _element_end(text: str, name: str, pos: int) -> int:
    """The end of the close tag matching an open `<name>` that ended at `pos`; else the end."""
    tags = re.compile(r"<(/?)" + re.escape(name) + r"\b[^<>]{0,2000}?(/?)>", re.IGNORECASE)
    depth = 1
    for tag in tags.finditer(text, pos):
        if tag.group(1):
            depth -= 1
            if depth == 0:
                return tag.end()
        elif not tag.group(2):
            depth += 1
    return len(text)


# --- base64 blobs ---------------------------------------------------------------------------


def _replace_blobs(text: str, counts: Counter[str]) -> str:
    if len(text) < _BLOB_MIN:
        return text
    raw = text.encode("ascii") if text.isascii() else text.encode("ascii", "replace")
    marks = raw.translate(_B64_TABLE)
    samples = marks[::_BLOB_STEP]
    j = samples.find(b"aa")
    if j == -1:
        return text
    blobs: list[tuple[int, int]] = []
    while j != -1:
        pos = j * _BLOB_STEP
        if marks.find(b" ", pos, pos + _BLOB_STEP + 1) == -1:
            start = marks.rfind(b" ", 0, pos) + 1
            end = marks.find(b" ", pos)
            end = len(marks) if end == -1 else end
            if end - start >= _BLOB_MIN and _is_blob(text, start, end):
                end += 2 if text.startswith("==", end) else 1 if text.startswith("=", end) else 0
                blobs.append((start, end))
            j = samples.find(b"aa", max(j + 1, end // _BLOB_STEP))
        else:
            j = samples.find(b"aa", j + 1)
    return _splice(text, blobs, lambda s, e: f"[base64 blob, {e - s} chars]", counts, "base64-blob")


def _is_blob(text: str, start: int, end: int) -> bool:
    if text.startswith("eyJ", start) or (start > 1 and text[start - 1] == "." and text[start - 2].isalnum()):
        return False  # a JWT part: the redactor names it
    sample = text[start:min(end, start + 400)]
    return any(c.isdigit() for c in sample) and any(c.isalpha() for c in sample)


def _splice(text: str, spans: list[tuple[int, int]], make: Callable[[int, int], str],
            counts: Counter[str], kind: str) -> str:
    if not spans:
        return text
    pieces, last = [], 0
    for start, end in spans:
        pieces.append(text[last:start])
        pieces.append(make(start, end))
        last = end
    pieces.append(text[last:])
    counts[kind] += len(spans)
    return "".join(pieces)


# --- instruction overrides ------------------------------------------------------------------


def _mark_overrides(text: str, counts: Counter[str]) -> str:
    low = (text.encode("ascii") if text.isascii() else text.encode("ascii", "replace")).lower()
    if not any(needle in low for needle in _OVERRIDE_NEEDLES):
        return text

    def mark(match: re.Match[str]) -> str:
        if match.string.endswith(_OVERRIDE_MARK, 0, match.start()):
            return match.group()
        counts["instruction-override"] += 1
        return f"{_OVERRIDE_MARK}{match.group()}]"

    return _OVERRIDE_RE.sub(mark, text)
