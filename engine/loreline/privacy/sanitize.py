"""Hidden-text sanitizer: what a reader of the transcript could not see is not learned from.

Runs on every kept text before `loreline.privacy.redact`. What it does, in this order:

Removed silently (counted):
* NUL and the other C0/C1 control characters (tab, newline, carriage return stay), with the
  terminal sequences they start (CSI `ESC [ … m`, OSC `ESC ] 52 ; … BEL`, which can write a
  clipboard);
* invisible characters: U+200B, U+2060-U+2064, U+FEFF (BOM), U+00AD (soft hyphen), U+180E,
  U+034F (grapheme joiner), the Hangul fillers U+115F/U+1160/U+3164/U+FFA0, U+17B4/U+17B5;
  U+200C (ZWNJ) and U+200D (ZWJ) are **kept** where they join: both neighbours in a
  joining script (Arabic/Persian/Syriac/N'Ko, the Indic scripts, Tibetan, Myanmar, Khmer,
  Mongolian), or, for ZWJ, both neighbours emoji (family and profession sequences);
* bidi embeddings, overrides and isolates U+202A-U+202E, U+2066-U+2069 (U+200E/U+200F marks
  are kept: they cannot reorder text);
* Unicode tag characters U+E0000-U+E007F, except a well-formed emoji flag tag sequence
  (U+1F3F4, 1-7 tag letters or digits, U+E007F: the England, Scotland, Wales flags);
* variation selectors used as a side channel: U+FE00-U+FE0F stays only right after a visible
  character (one per character, as in `❤️`); U+E0100-U+E01EF only right after a CJK ideograph;
* the same characters written as JSON escapes (`\\u200b`, tag surrogate pairs) in escaped text;
* harness wrappers with their content: `<system-reminder>`, `<command-name>`,
  `<command-message>`, `<command-args>`, `<local-command-stdout|stderr|caveat>`, and
  Loreline's own `<loreline-memories>` block, so an injected memory is never learned again;
* HTML comments `<!-- ... -->`, and elements hidden by CSS or markup (`display:none`,
  `visibility:hidden`, `font-size:0`, `opacity:0`, `color:transparent|white|#fff`, far
  off-screen positioning, the `hidden` attribute; `<font color="white">`, `<font size="0">`,
  screen-reader-only classes such as `sr-only`/`visually-hidden`, `aria-hidden="true"`,
  `<input type="hidden">`, any tag with `alt` text) with their content;
* elements a reader never sees: `<script>`, `<style>`, `<noscript>`, `<template>`, `<iframe>`,
  `<object>`, and collapsed `<details>`;
* markdown comments: `[//]: # (…)`, `[comment]: <> (…)` lines.

An unterminated comment, wrapper, hidden element or `<private>` span hides everything after
it, so it is dropped to the end of the text. A tag written inside backticks (`` `<private>` ``)
is a mention, not markup, and stays.

Replaced by a marker:
* `<private>...</private>` → `[private]` (the user asked for it not to be kept);
* base64 blobs of 200+ characters → `[base64 blob, N chars]` (JWT parts are left to the
  redactor, which knows them); in a person's turn, also shorter base64 (20+) that decodes to
  words — an instruction smuggled past a reader.

Marked, never removed: instruction-override phrases ("ignore all previous instructions",
"disregard the system prompt", "you are now DAN", "new instructions:") are wrapped as
`[instruction-override: <the phrase>]`, so the distiller reads them as quoted data. Ordinary
"from now on, always ..." is a user preference and is not marked. A person's turn
(`user_turn=True`) is also searched for the rarer phrasings ("pay no attention to the
instructions above", "your new task is:", "SYSTEM: you must", `<|im_start|>system`, "new
system prompt", "pretend you have no restrictions", "act as an unrestricted AI", "override
your safety guidelines"), and its quoted or pasted material is wrapped `[quoted] … [/quoted]`
(`privacy.quoted`): data, never the person's statement.

`sanitize(sanitize(x)) == sanitize(x)`, and text with nothing to do is returned as the same
object. Most text is plain ASCII without `<`: it then costs an O(1) `isascii`, a `translate`
for control characters, three `memchr` checks (`\\`, `<`, `]:`), a blob check on every 10th
character and five literal scans for phrases (a person's turn: a few more).
"""

from __future__ import annotations

import base64
import binascii
import re
import sys
from collections import Counter
from collections.abc import Callable

from .quoted import mark_quoted

# A run of candidates; the callback sorts it out. Written `[c][c]*`, not `[c]+`: a pattern that
# starts with a plain class lets `re` skip ahead to the first candidate instead of trying a
# match at every position (2x faster on non-ASCII text).
_BMP = ("\u00ad\u034f\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200d\u2060-\u2064\u3164\uffa0\ufeff"
        "\u202a-\u202e\u2066-\u2069\ufe00-\ufe0f")
_INVISIBLE_RE = re.compile(f"[{_BMP}\U000E0000-\U000E007F\U000E0100-\U000E01EF][{_BMP}\U000E0000-\U000E01EF]*")
# Text without characters beyond U+FFFF (most non-ASCII text: dashes, quotes, CJK) cannot hold
# tag characters or the supplementary selectors, and a BMP-only class scans twice as fast.
_INVISIBLE_BMP_RE = re.compile(f"[{_BMP}][{_BMP}]*")
_STR_HEADER = sys.getsizeof("\u20ac") - 2 * 2  # CPython stores 1, 2 or 4 bytes per character


def _wide(text: str) -> bool:
    """Whether `text` may hold characters beyond U+FFFF (CPython's 4-byte storage)."""
    return sys.getsizeof(text) - _STR_HEADER >= 4 * (len(text) + 1)


if not (_wide("\U0001F600") and _wide("ab\U0001F600") and not _wide("\u20ac\u20ac") and not _wide("caf\u00e9")):
    def _wide(text: str) -> bool:  # noqa: F811 - another interpreter: always take the full class
        return True
_FLAG_TAGS_RE = re.compile("[\U000E0030-\U000E0039\U000E0061-\U000E007A]{1,7}\U000E007F")
_ESCAPED_RE = re.compile(
    r"\\u(?:200[bB]|206[0-4]|[fF][eE][fF][fF]|00[aA][dD]|180[eE]|202[a-eA-E]|206[6-9])"
    r"|\\u[dD][bB]40\\u[dD][cC][0-7][0-9a-fA-F]"
)
_WRAPPERS = ("private", "loreline-memories", "system-reminder", "command-name", "command-message",
             "command-args", "local-command-stdout", "local-command-stderr", "local-command-caveat")
# never shown to a reader: scripts, styles, templates, collapsed <details>
_DROPPED = ("script", "style", "noscript", "template", "details", "iframe", "object")
_MARKUP = (r"<(?:(?P<comment>!--)|(?P<wrap>" + "|".join(_WRAPPERS) + r")(?=[\s>/])[^<>]{0,2000}>"
           r"|(?P<drop>" + "|".join(_DROPPED) + r")(?=[\s>/])[^<>]{0,2000}>")
_TAG_RE = re.compile(_MARKUP + r")", re.IGNORECASE)  # comments, wrappers, dropped elements
_TAG_OR_HIDDEN_RE = re.compile(  # ... and elements with an attribute that can hide them
    _MARKUP + r"|(?P<el>[A-Za-z][A-Za-z0-9]{0,20})(?P<attrs>\s[^<>]{0,2000}?"
    r"(?:style|hidden|color|class|alt|size|type)[^<>]{0,2000})>)",
    re.IGNORECASE,
)
_HIDING_GATES = (b"style", b"hidden", b"color", b"class", b"alt", b"size")
_COLOR_ATTR_RE = re.compile(r"""(?:^|\s)color\s*=\s*["']?\s*(?:white|transparent|#fff(?:fff)?)\b""", re.IGNORECASE)
_CLASS_ATTR_RE = re.compile(r"""(?:^|\s)class\s*=\s*["']([^"']{0,400})["']""", re.IGNORECASE)
_HIDDEN_CLASSES = frozenset("sr-only visually-hidden screen-reader-text screen-reader-only hidden d-none "
                            "invisible offscreen".split())
_OTHER_HIDING_RE = re.compile(r"""(?:^|\s)(?:aria-hidden\s*=\s*["']?true|size\s*=\s*["']?0["'\s/]|"""
                              r"""type\s*=\s*["']?hidden\b|alt\s*=)""", re.IGNORECASE)
_MD_COMMENT_RE = re.compile(r"""(?m)^[ \t]{0,3}\[[^\]\n]{1,40}\]:[ \t]*(?:#|<>)[ \t]*"""
                            r"""(?:\([^\n]*\)|"[^\n]*"|'[^\n]*')[ \t]*(?:\n|$)""")
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
_BLOB_MIN, _BLOB_STEP = 200, 10
_BLOB_SAMPLES = b"a" * (_BLOB_MIN // _BLOB_STEP - 1)
_B64_RUN_RE = re.compile(rb"[A-Za-z0-9+/_-]*")
_STD_B64_TABLE = bytes(0x61 if c in _B64_CHARS[:64] else 0x20 for c in range(256))  # no `_` `-`
_ENCODED_MIN = 20
_ENCODED_RUN = b"a" * _ENCODED_MIN
_ESCAPE_GATE = re.compile(rb"\\u")
# Each scanner starts with a literal, so it costs one fast pass; the phrase is checked in C.
_VERB_TAIL = (
    r"\s+(?:(?:all|any|the|your|my|of|every|these|those|that|what|you|were|was|have|been|are|is|said|"
    r"told|given|to|in)\s+){0,4}(?:previous|prior|above|earlier|preceding|foregoing|former|original|"
    r"initial|system|developer|existing|current|old)\s+(?:instructions?|prompts?|directions?|"
    r"directives?|rules|guidelines|messages?|context|commands?|orders|guidance|constraints|programming)\b"
    r"|\s+(?:everything|all(?:\s+of)?(?:\s+the)?)\s+(?:above|before(?:\s+this)?)\b"
    r"|\s+(?:(?:all|any|your|the)\s+){0,2}(?:instructions|guidelines|system\s+prompt|"
    r"safety\s+(?:rules|guidelines|filters?))\b"
)
_YOU_ARE_NOW = (r"you\s+are\s+now\s+(?:DAN\b|in\s+(?:developer|god|jailbreak|unrestricted|"
                r"dan|admin|debug|sudo|evil)\s+mode|(?:a|an)\s+(?:unrestricted|unfiltered|uncensored|"
                r"jailbroken|evil|rogue)\b[\w ]{0,30}|no\s+longer\s+(?:bound|restricted|an?\s+(?:ai|"
                r"assistant|language\s+model))\b|free\s+(?:of|from)\s+(?:all\s+)?(?:restrictions|rules|"
                r"guidelines)|jailbroken|unrestricted|unfiltered)")
_YOU_STARTS = (b"you are now", b"your new", b"your real", b"your actual", b"your true")
_YOU_AFTER = (b"pretend ", b"pretend that ", b"system: ", b"system:", b"system : ", b"as if ", b"override ",
              b"bypass ", b"circumvent ")
_AT, _AROUND, _NOUN = 0, -1, -2  # where the phrase is, relative to its gate literal
# (gate literals, phrase regex, where): each literal is found with `bytes.find` in the lower-cased
# bytes (an alternation of literals in one regex scans ~20x slower in `re`); `_AT + n`: the phrase
# starts n characters before the literal; `_AROUND`: it contains the literal; `_NOUN`: the literal
# is a noun the phrase ends with, up to `_NOUN_LOOKBACK` characters after its start.
_OVERRIDE_SCANS: tuple[tuple[tuple[bytes, ...], re.Pattern[str], int], ...] = (
    ((b"gnore",), re.compile(r"(?i)(?<![a-z])ignore(?:" + _VERB_TAIL + r")"), _AT + 1),
    ((b"disregard",), re.compile(r"(?i)(?<![a-z])disregard(?:" + _VERB_TAIL + r")"), _AT),
    ((b"forget",), re.compile(r"(?i)(?<![a-z])forget\s+(?:everything|all)\s+(?:above|before|previous(?:ly)?|prior|"
                              r"you\s+(?:were|have\s+been)\s+told)\b"), _AT),
    # "you are now DAN", "your new task is:", "pretend you have no rules", "SYSTEM: you must"
    ((b"you",), _YOU_RE := re.compile(
        r"(?i)(?<![a-z])(?:" + _YOU_ARE_NOW
        + r"|your\s+(?:new|real|actual|true)\s+(?:task|goal|job|role|objective|purpose|mission)\s+(?:is|will\s+be)\s*:?"
        + r"|pretend\s+(?:that\s+)?you\s+(?:have\s+no|are\s+(?:free\s+(?:of|from)|not\s+bound\s+by))"
        + r"\s+(?:any\s+)?(?:restrictions|rules|limits|limitations|guidelines|filters)"
        + r"|act\s+as\s+if\s+you\s+were\s+(?:a|an)\s+(?:unrestricted|unfiltered|uncensored|jailbroken|evil|rogue)\b"
        + r"|system\s*:\s*you\s+(?:must|will|are|should|have\s+to)"
        + r"|(?:override|bypass|circumvent)\s+your\s+(?:\w+\s+){0,2}(?:instructions?|rules|guidelines|"
        r"programming|restrictions|filters?|system\s+prompt))"), _AROUND),
    ((b"act as",), re.compile(r"(?i)(?<![a-z])act\s+as\s+(?:a|an)\s+(?:unrestricted|unfiltered|uncensored|"
                              r"jailbroken|evil|rogue)(?:\s+(?:ai|assistant|model|language\s+model))?"), _AT),
    ((b"system prompt",), re.compile(r"(?i)(?<![a-z])(?:new|updated|real|true|actual|secret|hidden)\s+system\s+prompt"),
     _AROUND),
    ((b"<|",), re.compile(r"<\|im_start\|>\s*(?:system|assistant)|<\|system\|>|\[/?INST\]|<<SYS>>"), _AROUND),
    # found from the noun: "forget/override/bypass ... instructions", "new instructions:",
    # "do not follow your previous instructions", "pay no attention to the instructions above"
    ((b"instruction",), re.compile(
        r"(?i)(?<![a-z])(?:(?:forget|override|bypass)(?:" + _VERB_TAIL + r")"
        r"|(?:new|updated)\s+(?:system\s+)?instructions?\s*:"
        r"|(?:do\s+not|don't|stop)\s+(?:follow(?:ing)?|obey(?:ing)?)(?:" + _VERB_TAIL + r")"
        r"|pay\s+no\s+(?:attention|heed)\s+to\s+(?:(?:the|your|any|all)\s+)?(?:(?:previous|prior|above|earlier)\s+)?"
        r"instructions?(?:\s+(?:above|before))?)"), _NOUN),
)
_Scans = tuple[tuple[bytes, re.Pattern[str], int], ...]
_OVERRIDE_FLAT: _Scans = tuple((literal, regex, where) for literals, regex, where in _OVERRIDE_SCANS
                               for literal in literals)
# A person's turn is searched for every phrasing (`<|` only when it has a `<`); other text for the
# classic ones, each behind a long, rare literal (`you are now`, not `you`): five scans, as cheap
# as they come, because every kept turn pays for them.
_OVERRIDE_FLAT_USER: _Scans = tuple(scan for scan in _OVERRIDE_FLAT if scan[0] != b"<|")
_OVERRIDE_FLAT_ANY: _Scans = tuple((b"you are now" if literal == b"you" else literal, regex, where)
                                   for literal, regex, where in _OVERRIDE_FLAT
                                   if literal in (b"gnore", b"disregard", b"forget", b"you", b"instruction"))
_NOUN_LOOKBACK = 120
_NOUN_STARTERS = (b"forget", b"override", b"bypass", b"new", b"updated", b"follow", b"obey", b"attention",
                  b"heed")  # a cheap test before the regex
_OVERRIDE_MARK = "[instruction-override: "


def sanitize(text: str, *, user_turn: bool = False) -> str:
    """`text` without hidden content, with instruction-override phrases marked. A person's turn
    (`user_turn`; the pipeline says which) also gets its quoted material marked and is searched
    for the rarer override phrasings: a turn that states nothing for the user costs less."""
    return _sanitize(text, None, user_turn)


def sanitize_counts(text: str, *, user_turn: bool = False) -> tuple[str, dict[str, int]]:
    """The sanitized text and how many removals/markings of each kind were made."""
    counts: Counter[str] = Counter()
    return _sanitize(text, counts, user_turn), dict(counts)


def _sanitize(text: str, counts: Counter[str] | None, user_turn: bool = False) -> str:
    if not text:
        return text
    if text.isascii():
        raw = text.encode("ascii")
        if not (raw.translate(None, _PLAIN) or b"\\" in raw or b"<" in raw or b"]" in raw):
            return _plain(text, raw, counts, user_turn)
    return _sanitize_all(text, counts, user_turn)


def _plain(text: str, raw: bytes, counts: Counter[str] | None, user_turn: bool) -> str:
    """`_sanitize_all` on ASCII text without a control character, a backslash, a `<` or a `]`
    (most text), where it comes down to base64 and the override phrases: the same answer for
    about half the fixed cost (no stage to rebuild from, the bytes lower-cased once)."""
    if len(text) >= _BLOB_MIN and raw[::_BLOB_STEP].translate(_B64_TABLE).find(_BLOB_SAMPLES) != -1:
        return _sanitize_all(text, counts, user_turn)  # a blob may be replaced: the whole way
    if user_turn and len(text) >= _ENCODED_MIN and raw.translate(_STD_B64_TABLE).find(_ENCODED_RUN) != -1:
        return _sanitize_all(text, counts, user_turn)
    low = raw.lower()
    if _override_spans(text, low, _OVERRIDE_FLAT_USER if user_turn else _OVERRIDE_FLAT_ANY):
        return _sanitize_all(text, counts, user_turn)  # an override phrase to mark
    return mark_quoted(text, low) if user_turn else text


def _sanitize_all(text: str, counts: Counter[str] | None, user_turn: bool) -> str:
    if not text.isascii():
        if _CONTROL_GATE.search(text) is not None:
            text = _strip_controls(text, counts)
        text = _strip_invisible(text, counts)
    raw = _ascii(text)  # one byte per character; rebuilt only when a stage changed the text
    if text.isascii() and raw.translate(None, _PLAIN):  # anything left is a control character
        text, raw = _again(text, _strip_controls(text, counts), raw)
    if b"\\" in raw and _ESCAPE_GATE.search(raw):
        text, raw = _again(text, _strip_escaped(text, counts), raw)
    angle = b"<" in raw
    if angle:
        text, raw = _again(text, _strip_markup(text, raw, counts), raw)
    if b"]:" in raw:
        text, raw = _again(text, _strip_md_comments(text, counts), raw)
    if len(text) >= _BLOB_MIN:
        text, raw = _again(text, _replace_blobs(text, raw, counts), raw)
    if user_turn and len(text) >= _ENCODED_MIN:  # shorter base64 that decodes to words: a person's turn
        text, raw = _again(text, _replace_encoded_text(text, raw, counts), raw)
    text = _mark_overrides(text, raw, counts, _OVERRIDE_FLAT if user_turn and angle else
                           _OVERRIDE_FLAT_USER if user_turn else _OVERRIDE_FLAT_ANY)
    return mark_quoted(text, _ascii(text).lower()) if user_turn else text


def _again(old: str, new: str, raw: bytes) -> tuple[str, bytes]:
    return (old, raw) if new is old else (new, _ascii(new))


def _bump(counts: Counter[str] | None, kind: str, by: int = 1) -> None:
    if counts is not None:
        counts[kind] += by


def _ascii(text: str) -> bytes:
    """The text as bytes with one byte per character (non-ASCII becomes `?`)."""
    return text.encode("ascii") if text.isascii() else text.encode("ascii", "replace")


# --- control characters ---------------------------------------------------------------------

# NUL and the other C0/C1 controls (tab, newline and carriage return stay), with the terminal
# sequences they start: CSI (`ESC [ ... m`), OSC (`ESC ] 52 ; ... BEL`, which can write to a
# clipboard) and two-character escapes. Nothing a reader sees is lost.
_PLAIN = bytes(range(32, 127)) + b"\t\n\r"
_CONTROL_GATE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_CONTROL_RE = re.compile(
    r"\x1b(?:\[[0-?]{0,64}[ -/]{0,8}[@-~]?|\][^\x07\x1b\x9c]{0,4096}(?:\x07|\x1b\\|\x9c)?|[ -~])?"
    r"|\x9b[0-?]{0,64}[ -/]{0,8}[@-~]?|\x9d[^\x07\x1b\x9c]{0,4096}(?:\x07|\x1b\\|\x9c)?"
    r"|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]"
)


def _strip_controls(text: str, counts: Counter[str] | None) -> str:
    stripped, n = _CONTROL_RE.subn("", text)
    _bump(counts, "control-characters", n)
    return stripped


# --- invisible characters -------------------------------------------------------------------


def _strip_invisible(text: str, counts: Counter[str] | None) -> str:
    regex = _INVISIBLE_RE if _wide(text) else _INVISIBLE_BMP_RE
    if regex.search(text) is None:
        return text
    return regex.sub(lambda run: _invisible_run(run, counts), text)


def _invisible_run(run: re.Match[str], counts: Counter[str] | None) -> str:
    """What to keep of a run of invisible characters, given the characters around it."""
    text, chars = run.string, run.group()
    prev = text[run.start() - 1] if run.start() else ""
    after = text[run.end()] if run.end() < len(text) else ""
    kept: list[str] = []
    index = 0
    while index < len(chars):
        char = chars[index]
        last = index == len(chars) - 1
        if index == 0 and prev == "\U0001F3F4" and (flag := _FLAG_TAGS_RE.match(chars)):
            kept.append(flag.group())  # an emoji flag tag sequence (England, Scotland, Wales)
            index = flag.end()
            continue
        if char in "\u200c\u200d":
            before = kept[-1] if kept else (prev if index == 0 else "")
            if last and before and after and _joins(before, after, char == "\u200d"):
                kept.append(char)
            else:
                _bump(counts, "zero-width")
        elif "\ufe00" <= char <= "\ufe0f":
            if index == 0 and prev and not kept:  # one selector right after a visible character
                kept.append(char)
            else:
                _bump(counts, "variation-selectors")
        elif char >= "\U000E0100":
            if index == 0 and prev and _cjk(prev):
                kept.append(char)
            else:
                _bump(counts, "variation-selectors")
        elif char >= "\U000E0000":
            _bump(counts, "tag-characters")
        elif "\u202a" <= char <= "\u202e" or "\u2066" <= char <= "\u2069":
            _bump(counts, "bidi-control")
        else:
            _bump(counts, "zero-width")
        index += 1
    return "".join(kept)


def _cjk(char: str) -> bool:
    return "\u3400" <= char <= "\u9fff" or "\uf900" <= char <= "\ufaff" or char >= "\U00020000"


def _joins(prev: str, nxt: str, zwj: bool) -> bool:
    """A joiner between two letters of a joining script, or (ZWJ) between two emoji."""
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


def _strip_escaped(text: str, counts: Counter[str] | None) -> str:
    def replace(match: re.Match[str]) -> str:
        start = match.start()
        slashes = 0
        while start - slashes > 0 and match.string[start - slashes - 1] == "\\":
            slashes += 1
        if slashes % 2:  # `\\u200b` is a backslash followed by text, not an escape
            return match.group()
        _bump(counts, "escaped-invisible")
        return ""

    return _ESCAPED_RE.sub(replace, text)


# --- markup ---------------------------------------------------------------------------------


def _strip_markup(text: str, raw: bytes, counts: Counter[str] | None) -> str:
    low = raw.lower()
    regex = _TAG_OR_HIDDEN_RE if any(gate in low for gate in _HIDING_GATES) else _TAG_RE
    out: list[str] = []
    pos, removed = 0, False
    while (match := regex.search(text, pos)) is not None:
        start, end = match.span()
        quoted = start > 0 and text[start - 1] == "`" and text.startswith("`", end)  # a mention
        removed_to, replacement = (None, "") if quoted else _removal(text, match, counts)
        if removed_to is None:
            out.append(text[pos:end])
            pos = end
        else:
            out += [text[pos:start], replacement]
            pos, removed = removed_to, True
    if not removed:
        return text
    out.append(text[pos:])
    return "".join(out)


def _removal(text: str, match: re.Match[str], counts: Counter[str] | None) -> tuple[int | None, str]:
    """Where the removal that starts at `match` ends (None: keep the tag) and what replaces it."""
    if match.group("comment"):
        close = text.find("-->", match.end())
        _bump(counts, "html-comment")
        return (len(text) if close == -1 else close + 3), ""
    wrap = match.group("wrap")
    if wrap:
        wrap = wrap.lower()
        closer = re.compile(r"</" + wrap + r"\s*>", re.IGNORECASE).search(text, match.end())
        _bump(counts, "private" if wrap == "private" else
              "loreline-memories" if wrap == "loreline-memories" else "harness-wrapper")
        return (len(text) if closer is None else closer.end()), ("[private]" if wrap == "private" else "")
    if match.group("drop"):
        _bump(counts, "hidden-html")
        return _element_end(text, match.group("drop").lower(), match.end()), ""
    name, attrs = match.group("el").lower(), match.group("attrs")
    if not _hidden(attrs):
        return None, ""
    _bump(counts, "hidden-html")
    if name in _VOID or attrs.rstrip().endswith("/"):
        return match.end(), ""
    return _element_end(text, name, match.end()), ""


def _hidden(attrs: str) -> bool:
    for style in _STYLE_RE.finditer(attrs):
        if _HIDING_RE.search(re.sub(r"\s+", "", style.group(2).lower())):
            return True
    if _COLOR_ATTR_RE.search(attrs) or _OTHER_HIDING_RE.search(attrs):
        return True  # <font color="white">, aria-hidden, <font size="0">, <input type=hidden>, alt text
    classes = _CLASS_ATTR_RE.search(attrs)
    if classes and any(name.lower() in _HIDDEN_CLASSES for name in classes.group(1).split()):
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


# --- markdown comments ----------------------------------------------------------------------


def _strip_md_comments(text: str, counts: Counter[str] | None) -> str:
    """`[//]: # (hidden)`, `[comment]: <> (hidden)`: link definitions no renderer shows."""
    stripped, n = _MD_COMMENT_RE.subn("", text)
    _bump(counts, "markdown-comment", n)
    return stripped if n else text


# --- base64 blobs ---------------------------------------------------------------------------


def _replace_blobs(text: str, raw: bytes, counts: Counter[str] | None) -> str:
    # every 10th character: a 200-character run shows as 19 base64 samples in a row
    samples = raw[::_BLOB_STEP].translate(_B64_TABLE)
    j = samples.find(_BLOB_SAMPLES)
    if j == -1:
        return text
    blobs: list[tuple[int, int]] = []
    while j != -1:
        start = j * _BLOB_STEP
        while start > 0 and _B64_TABLE[raw[start - 1]] == 0x61:
            start -= 1
        end = _B64_RUN_RE.match(raw, j * _BLOB_STEP).end()  # type: ignore[union-attr]
        if end - start >= _BLOB_MIN and _is_blob(text, start, end):
            end += 2 if raw.startswith(b"==", end) else 1 if raw.startswith(b"=", end) else 0
            blobs.append((start, end))
        j = samples.find(_BLOB_SAMPLES, end // _BLOB_STEP + 1)
    return _splice(text, blobs, lambda s, e: f"[base64 blob, {e - s} chars]", counts, "base64-blob")


def _replace_encoded_text(text: str, raw: bytes, counts: Counter[str] | None) -> str:
    """Shorter base64 that decodes to words (an instruction smuggled past a reader)."""
    marks = raw.translate(_STD_B64_TABLE)
    start = marks.find(_ENCODED_RUN)
    if start == -1:
        return text
    spans: list[tuple[int, int]] = []
    while start != -1:
        end = marks.find(b" ", start)
        end = len(marks) if end == -1 else end
        stop = end + (2 if raw.startswith(b"==", end) else 1 if raw.startswith(b"=", end) else 0)
        if (start == 0 or raw[start - 1] not in b"_-.") and raw[stop:stop + 1] not in (b"_", b"-", b".") \
                and not raw.startswith(b"eyJ", start) and _decodes_to_words(raw[start:stop]):
            spans.append((start, stop))
        start = marks.find(_ENCODED_RUN, stop)
    return _splice(text, spans, lambda s, e: f"[base64 blob, {e - s} chars]", counts, "base64-text")


def _decodes_to_words(chunk: bytes) -> bool:
    if len(chunk) % 4 == 1:
        return False
    try:
        decoded = base64.b64decode(chunk + b"=" * (-len(chunk) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    if len(decoded) < 12 or decoded.count(b" ") < 2:
        return False
    printable = sum(32 <= c < 127 for c in decoded)
    letters = sum(chr(c).isalpha() for c in decoded if c < 128)
    return printable == len(decoded) and letters >= 0.6 * len(decoded)


def _is_blob(text: str, start: int, end: int) -> bool:
    if text.startswith("eyJ", start) or (start > 1 and text[start - 1] == "." and text[start - 2].isalnum()):
        return False  # a JWT part: the redactor names it
    sample = text[start:min(end, start + 400)]
    return any(c.isdigit() for c in sample) and any(c.isalpha() for c in sample)


def _splice(text: str, spans: list[tuple[int, int]], make: Callable[[int, int], str],
            counts: Counter[str] | None, kind: str) -> str:
    if not spans:
        return text
    pieces, last = [], 0
    for start, end in spans:
        pieces.append(text[last:start])
        pieces.append(make(start, end))
        last = end
    pieces.append(text[last:])
    _bump(counts, kind, len(spans))
    return "".join(pieces)


# --- instruction overrides ------------------------------------------------------------------


def _mark_overrides(text: str, raw: bytes, counts: Counter[str] | None, scans: _Scans) -> str:
    found = [span for span in _override_spans(text, raw.lower(), scans)
             if not text.endswith(_OVERRIDE_MARK, 0, span[0])]
    if not found:
        return text
    found.sort()
    pieces, last = [], 0
    for start, end in found:
        if start < last:
            continue
        pieces += [text[last:start], _OVERRIDE_MARK, text[start:end], "]"]
        last = end
    pieces.append(text[last:])
    _bump(counts, "instruction-override", len(pieces) // 4)
    return "".join(pieces)


def _override_spans(text: str, low: bytes, scans: _Scans | None = None) -> list[tuple[int, int]]:
    """Spans of override phrases; `scans` chooses which literals are looked for (all by default)."""
    found: list[tuple[int, int]] = []
    find = low.find
    for literal, regex, where in _OVERRIDE_FLAT if scans is None else scans:
        hit = find(literal)
        while hit != -1:
            _override_at(text, low, regex, hit, where, found)
            hit = find(literal, hit + len(literal))
    return found


def _override_at(text: str, low: bytes, regex: re.Pattern[str], hit: int, where: int,
                 found: list[tuple[int, int]]) -> None:
    if where == _NOUN:  # the phrase starts up to a few words earlier
        window = low[max(0, hit - _NOUN_LOOKBACK):hit]
        if any(word in window for word in _NOUN_STARTERS):
            found += [m.span() for m in regex.finditer(text, max(0, hit - _NOUN_LOOKBACK), hit + 32)
                      if m.end() > hit]
    elif regex is _YOU_RE and not (low.startswith(_YOU_STARTS, hit) or low.endswith(_YOU_AFTER, 0, hit)):
        return  # most `you`s start no override: two C-level checks before any regex
    elif where == _AROUND:  # the literal sits inside the phrase
        found += [m.span() for m in regex.finditer(text, max(0, hit - 40), hit + 120)
                  if m.start() <= hit < m.end()]
    else:
        phrase = regex.match(text, hit - where)
        if phrase:
            found.append(phrase.span())
