"""One-time codes, recovery codes and payment cards said in sentences.

Used by `loreline.privacy.redact`. Forms:

* **One-time codes** (`[REDACTED:otp]`): 4-8 digits (`217974`, `217 974`) right after, or just
  before, the words that give one: "verification code", "OTP", "2FA code", "the code they
  texted me is", "SMS code", "login code", "Bestätigungscode", "código de verificación",
  "codice di verifica", "code de vérification", "認証コード", "验证码", "код подтверждения".
  A bare "code" counts only with such a word close by, so `exit code 137`, `error code 10054`,
  `{"code": 40001}` and `zip code 94103` stay; so do years, ports, versions, issue numbers.
* **Recovery codes** (`[REDACTED:recovery-code]`): GitHub-style `xxxxx-xxxxx` lists, 8-digit
  backup codes (`1234 5678`) and `XXXXXXXXXX-XXXXXXXXXX` pairs, when the text speaks of recovery
  or backup codes (or of two-factor sign-in).
* **Card numbers** (`[REDACTED:card]`): 13-19 digits, grouped by spaces or dashes or not,
  passing the Luhn check, starting like a card (2-6), with a card word, an expiry (`MM/YY`) or a
  CVC within 80 characters; a CVC given right after its word (`CVC 381`) goes too.

Cost: `redact` calls this only for text with three digits or more (one `translate` deleting
them), then with a run of 3+ digits in the digit marks (a second `translate`, digits as `d`), or
with another script, or with `-` and `codes`. Here `cod` and `otp` are two `find`s on the
lower-cased bytes (one byte per character, so offsets match the text), card shapes two `find`s
on the marks; digit patterns run only in a bounded window around a hit, so the work is linear.
"""

from __future__ import annotations

import re

from .scripts import Folded, find_all

Span = tuple[int, int, str, int]
_PRIORITY = 1

# words that give a code on their own (lower-cased ASCII); `cod` (looked for apart) covers
# "verification code", "2FA code", "SMS code", "the code they texted me", "Bestätigungscode",
# "code de vérification", "codice di verifica", "passcode"
_OTP_WORDS: tuple[bytes, ...] = (b"otp",)
# `code` glued to these is a one-time code; glued to anything else (`zipcode`, `opcode`) it is not
_CODE_GLUED: tuple[bytes, ...] = (b"tigungs", b"heits", b"pass", b"ficatie", b"ifizierungs", b"zugangs")
_OTP_LATIN = ("código",)
_OTP_CYRILLIC = ("код",)
_OTP_CJK = ("認証コード", "確認コード", "ワンタイム", "验证码", "驗證碼", "校验码")
# words that make a bare `code` one: "login code", "the code they sent me"
_QUALIFIER_RE = re.compile(rb"log-?in|sign-?in|security|auth|confirm|sent|text|sms|e-?mail|access|otp|2fa|"
                           rb"lautet|your|\btu |votre|\bihr |\bseu |\bsu |il tuo")
_DIGITS_AFTER = re.compile(
    r"(?:[^\d\n.!?;]|\n|[.!?;](?!\s)){0,60}?(?<![\w.,/:#$-])(?P<v>\d{3}[ -]?\d{3}|\d{4,8})(?![\w%]|[.,:/-]\d)")
_DIGITS_BEFORE = re.compile(
    r"(?<![\w.,/:#$-])(?P<v>\d{3}[ -]?\d{3}|\d{4,8})[ \t]+(?:is|est|es|ist|è|é|это)[ \t]+"
    r"(?:your|the|dein|ihr|votre|ton|tu|su|seu|il tuo|o teu|ваш)\b")
# the word just before the digits that makes them something else
_NUMBER_WORDS = frozenset("port ports id pid line lines version v issue pr build step status error exit page pages "
                          "no nr number order ticket room row item items year years in at since until of".split())
_UNITS = re.compile(r"\s?(?:ms|s|sec|secs|seconds|minutes|min|mins|px|em|mb|kb|gb|%|bytes|chars|characters|digits|"
                    r"zeichen|ziffern|caract|caratteri|d[ií]gitos|символ|文字|桁|位)", re.IGNORECASE)

_RECOVERY_WORDS: tuple[bytes, ...] = (b"recovery", b"backup", b"two-factor", b"2fa", b"wiederherstell",
                                      b"r?cup?ration", b"recupera")
_RECOVERY_OTHER = (("códigos de rec",), ("резервн", "восстановлен"), ("リカバリ", "バックアップ", "恢复码", "备用码", "复原码"))
# words one of which a lead-in to a list of codes holds (its regex, `_lead_in_re`, says where)
_LEAD_WORDS: tuple[bytes, ...] = (b"recover", b"backup", b"2fa", b"two-factor", b"mfa", b"one-time",
                                  b"wiederherstell", b"cup?ration", b"recuper", b"respaldo")
_RECOVERY_RE = re.compile(
    r"(?<![\w-])(?:[0-9a-f]{5}-[0-9a-f]{5}|[A-Za-z0-9]{10}-[A-Za-z0-9]{10}|\d{4} \d{4}|\d{8})(?![\w-])")

_CARD_WORDS: tuple[bytes, ...] = (b"card", b"visa", b"mastercard", b"amex", b"cvc", b"cvv", b"expir", b"exp ",
                                  b"credit", b"debit", b"tarjeta", b"carte", b"karte", b"cart?o", b"carta")
_CARD_OTHER = ((), ("карт",), ("カード", "信用卡", "银行卡", "卡号"))
_CARD_SHAPES = (b"dddd dddd dddd", b"dddd dddddd ddddd", b"ddddddddddddd")
_CARD_RE = re.compile(r"(?<![\w.,/-])[2-6]\d{3}(?:[ -]?\d{2,7}){2,5}(?![\w/]|[.,-]\d)")
_CVC_RE = re.compile(r"(?i)(?:cvc2?|cvv2?|cid|csc)\b\W{0,4}(?P<v>\d{3,4})(?!\d)")
_EXPIRY_RE = re.compile(r"(?<!\d)(?:0[1-9]|1[0-2])\s?/\s?(?:\d{2}|20\d{2})(?!\d)")


# digits as `d`, the rest as spaces: one `translate` and a `find` tell where runs of digits are
DIGIT_MARKS = bytes(0x64 if 0x30 <= c <= 0x39 else 0x20 for c in range(256))


def scan_onetime(text: str, low: bytes, marks: bytes, digits: bool, folded: Folded | None, spans: list[Span]) -> None:
    """Append the spans of one-time codes, recovery codes and card numbers. `marks` is
    `low.translate(DIGIT_MARKS)`; `digits` whether it holds a run of 3+ digits; `folded` the
    text lower-cased when it is not ASCII (`privacy.scripts`). The caller has seen a run of 3+
    digits, another script, or a `-` and `codes` (GitHub's recovery codes may hold no run of
    digits)."""
    code = low.find(b"cod")
    if digits:
        _otp(text, low, marks, code, folded, spans)
        starts = _card_starts(marks)
        if starts and _any(low, folded, _CARD_WORDS, _CARD_OTHER):
            _cards(text, low, starts, spans)
    if (code != -1 and low.find(b"codes", code) != -1 and _any(low, None, _RECOVERY_WORDS, _RECOVERY_OTHER)
            or folded is not None and _any(b"", folded, (), _RECOVERY_OTHER)):
        _recovery(text, spans)
    if (code != -1 or folded is not None) and (any(word in low for word in _LEAD_WORDS) or (
            folded is not None and _any(b"", folded, (), _RECOVERY_OTHER))):
        recovery_lists(text, low, code, folded is not None, spans)


def _any(low: bytes, folded: Folded | None, words: tuple[bytes, ...],
         other: tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]) -> bool:
    if any(word in low for word in words):
        return True
    return folded is not None and bool(find_all(folded, *other))


def _otp(text: str, low: bytes, marks: bytes, code: int, folded: Folded | None, spans: list[Span]) -> None:
    hits: list[tuple[int, int]] = []
    for word in _OTP_WORDS:
        index = low.find(word)
        while index != -1:
            if (index == 0 or not 0x61 <= low[index - 1] <= 0x7A) and _digits_near(marks, index):
                hits.append((index, index + len(word)))
            index = low.find(word, index + len(word))
    index = code
    while index != -1:  # `code`, `codice`, `codigo`: with a qualifier close by unless the word says it
        glued = index > 0 and 0x61 <= low[index - 1] <= 0x7A  # `decode`, `unicode`, `passcode`
        if (not glued or low.endswith(_CODE_GLUED, max(0, index - 12), index)) and _digits_near(marks, index) and (
                glued or low.startswith((b"codice", b"codigo", b"code de v"), index)
                or low.startswith(b"code", index)
                and _QUALIFIER_RE.search(low, max(0, index - 40), min(len(low), index + 40))):
            hits.append((index, index + 4))
        index = low.find(b"cod", index + 3)
    if folded is not None:
        for start, end in find_all(folded, _OTP_LATIN, _OTP_CYRILLIC, _OTP_CJK):
            if folded.text.startswith("код", start) and not (folded.text.startswith("код подтв", start)
                                                             or folded.text.startswith("ваш код", start - 4)):
                continue
            hits.append((start, end))
    for start, end in hits:
        _code_near(text, start, end, spans)


def _digits_near(marks: bytes, index: int) -> bool:
    """A run of 3+ digits within 60 characters before or 90 after `index`."""
    return marks.find(b"ddd", max(0, index - 60), index + 90) != -1


def _code_near(text: str, start: int, end: int, spans: list[Span]) -> None:
    after = _DIGITS_AFTER.match(text, _word_tail(text, end), min(len(text), end + 80))
    if after is not None and _a_code(text, after.start("v"), after.end("v")):
        spans.append((after.start("v"), after.end("v"), "otp", _PRIORITY))
    for before in _DIGITS_BEFORE.finditer(text, max(0, start - 60), start):
        if _a_code(text, before.start("v"), before.end("v")):
            spans.append((before.start("v"), before.end("v"), "otp", _PRIORITY))


def _word_tail(text: str, index: int) -> int:
    """Past the rest of the word the hit is in (`codes`, `verificación`)."""
    limit = min(len(text), index + 8)
    while index < limit and text[index].isalpha() and text[index].isascii():
        index += 1
    return index


def _a_code(text: str, start: int, end: int) -> bool:
    value = text[start:end].replace(" ", "").replace("-", "")
    if len(value) == 4 and value[:2] in ("19", "20"):
        return False  # a year
    if len(set(value)) == 1:
        return False
    if _UNITS.match(text, end):
        return False
    word = re.search(r"([A-Za-z#]+)\W{0,2}$", text[max(0, start - 16):start])
    return not (word and word.group(1).lower() in _NUMBER_WORDS)


def _recovery(text: str, spans: list[Span]) -> None:
    found = list(_RECOVERY_RE.finditer(text))
    if not found:
        return
    shapes: dict[str, list[re.Match[str]]] = {}
    for match in found:
        value = match.group()
        shape = "hex" if len(value) == 11 and value[5] == "-" else "pair" if "-" in value else "digits"
        shapes.setdefault(shape, []).append(match)
    for shape, matches in shapes.items():
        if shape == "digits" and len(matches) < 3:
            continue  # backup codes come as a list; one number is not one
        if shape == "hex" and len(matches) < 2 and not _words_before(text, matches[0].start()):
            continue
        if shape == "pair" and not any(c.isdigit() for m in matches for c in m.group()):
            continue
        for match in matches:
            if shape == "digits" and not _list_neighbour(text, match, matches):
                continue
            spans.append((match.start(), match.end(), "recovery-code", _PRIORITY))


def recovery_lists(text: str, low: bytes, code: int, other_script: bool, spans: list[Span]) -> None:
    """A lead-in line that speaks of recovery, backup or 2FA codes ("Here are your recovery
    codes:", "Ihre Wiederherstellungscodes:", "您的恢复码："), then one code per line:
    `xxxxx-xxxxx` or 8-10 letters and digits (a list marker or backquotes around it allowed;
    blank lines right after the lead-in skipped). Three codes or more, most holding a digit,
    none an ordinary word; the list ends at the first line that is not a code."""
    starts = []
    while code != -1:  # the lines holding `cod` (codes, códigos, codici), then those in other scripts
        starts.append(code)
        code = low.find(b"cod", low.find(b"\n", code) + 1 or len(low))
    if other_script:
        starts += [m.start() for m in re.finditer("códig|код|コード|码", text)]
    done = -1
    for index in sorted(starts):
        line_start = text.rfind("\n", 0, index) + 1
        line_end = text.find("\n", index)
        if line_end == -1 or line_start <= done:
            continue
        done = line_start
        if _lead_in_re().search(text, line_start, line_end) is None:
            continue
        codes: list[re.Match[str]] = []
        pos = line_end + 1
        while pos < len(text) and text[pos] == "\n" and not codes:
            pos += 1
        while pos < len(text):
            end = text.find("\n", pos)
            end = len(text) if end == -1 else end
            match = _code_line_re().fullmatch(text, pos, end)
            if match is None:
                break
            codes.append(match)
            pos = end + 1
        if len(codes) >= 3 and sum(any(c.isdigit() for c in m.group("c")) for m in codes) * 2 > len(codes):
            for match in codes:
                spans.append((match.start("c"), match.end("c"), "recovery-code", _PRIORITY))


_compiled: dict[str, re.Pattern[str]] = {}


def _lead_in_re() -> re.Pattern[str]:
    pattern = _compiled.get("lead")
    if pattern is None:  # compiled on first use: most texts never reach here
        pattern = _compiled["lead"] = re.compile(
            r"(?i)(?:(?:recovery|backup|2fa|two-factor|mfa|one-time)[ -]?(?:[a-z]+[ -]){0,2}codes?"
            r"|wiederherstellungscodes|backup-codes|codes de r[ée]cup[ée]ration|c[óo]digos de (?:recuperaci[óo]n|"
            r"recupera[çc][ãa]o|respaldo)|codici di (?:recupero|backup)|резервн\w* код|код\w* восстановлени"
            r"|リカバリー?コード|バックアップコード|恢复码|备用码|复原码)")
    return pattern


def _code_line_re() -> re.Pattern[str]:
    pattern = _compiled.get("line")
    if pattern is None:
        pattern = _compiled["line"] = re.compile(
            r"[ \t]{0,8}(?:[-*\u2022][ \t]+|\d{1,2}[.)][ \t]+)?`?"
            r"(?P<c>[A-Za-z0-9]{4,6}-[A-Za-z0-9]{4,6}|(?=[a-z]{0,9}\d)[A-Za-z0-9]{8,10}|[a-z]{8,10}|\d{4} \d{4})`?[ \t]*")
    return pattern


def _words_before(text: str, index: int) -> bool:
    before = text[max(0, index - 160):index].lower()
    return any(w in before for w in ("recovery", "backup", "wiederherstell", "récupération", "recuperaci",
                                     "recupera", "two-factor", "2fa"))


def _list_neighbour(text: str, match: re.Match[str], matches: list[re.Match[str]]) -> bool:
    """A backup code sits in a list: another of the same shape within a short gap."""
    for other in matches:
        if other is not match and (0 <= other.start() - match.end() <= 4 or 0 <= match.start() - other.end() <= 4):
            return True
    return False


def _card_starts(marks: bytes) -> list[int]:
    """Where runs of digits shaped like a card number begin (4-4-4-4 spaced or dashed, Amex's
    4-6-5, or 13-19 together), found in the marks (digits as `d`)."""
    if marks.find(b"dddd d") == -1 and marks.find(b"ddddddddddddd") == -1:
        return []  # the common case: two finds
    starts: list[int] = []
    for shape in _CARD_SHAPES:
        found = marks.find(shape)
        while found != -1:  # every run of digits that begins near the shape may be the first group
            for start in range(max(0, found - 24), min(len(marks), found + 6)):
                if marks[start] == 0x64 and (start == 0 or marks[start - 1] != 0x64):
                    starts.append(start)
            found = marks.find(shape, found + len(shape))
    return sorted(set(starts))


def _cards(text: str, low: bytes, starts: list[int], spans: list[Span]) -> None:
    for start in starts:
        match = _CARD_RE.match(text, start, min(len(text), start + 40))
        if match is None:
            continue
        digits = "".join(c for c in match.group() if c.isdigit())
        if not 13 <= len(digits) <= 19 or not _luhn(digits) or len(set(digits)) < 2:
            continue
        seps = {c for c in match.group() if not c.isdigit()}
        if len(seps) > 1:
            continue
        window = low[max(0, match.start() - 80):min(len(low), match.end() + 80)]
        if not (any(word in window for word in _CARD_WORDS)
                or _EXPIRY_RE.search(text, max(0, match.start() - 80), min(len(text), match.end() + 80))
                or any(word in text[max(0, match.start() - 80):match.end() + 80].lower()
                       for group in _CARD_OTHER for word in group)):
            continue
        spans.append((match.start(), match.end(), "card", _PRIORITY))
        for cvc in _CVC_RE.finditer(text, max(0, match.start() - 80), min(len(text), match.end() + 120)):
            spans.append((cvc.start("v"), cvc.end("v"), "card", _PRIORITY))


def _luhn(digits: str) -> bool:
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = int(char)
        if index % 2:
            value *= 2
            if value > 9:
                value -= 9
        total += value
    return total % 10 == 0
