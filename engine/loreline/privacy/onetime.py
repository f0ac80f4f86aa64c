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

Cost: each kind sits behind literal `find`s of its words on the lower-cased bytes (one byte per
character, so offsets match the text); digit patterns run only in a bounded window around a hit.
"""

from __future__ import annotations

import re

Span = tuple[int, int, str, int]
_PRIORITY = 1

# words that give a code on their own (lower-cased ASCII; `?` stands for a non-ASCII letter)
_OTP_WORDS: tuple[bytes, ...] = (b"otp", b"2fa", b"mfa", b"totp", b"texted", b"sms", b"verification", b"verify",
                                 b"one-time", b"one time", b"passcode", b"best?tigungscode", b"sicherheitscode",
                                 b"c?digo", b"codice", b"code de v?rification", b"verificatiecode")
_OTP_OTHER = ("認証コード", "確認コード", "ワンタイム", "验证码", "驗證碼", "校验码", "код подтверждения", "код", "código")
# words that make a bare `code` one: "login code", "the code they sent me"
_CODE_QUALIFIERS: tuple[bytes, ...] = (b"login", b"log-in", b"sign-in", b"signin", b"security", b"auth",
                                       b"confirm", b"sent", b"text", b"sms", b"email", b"e-mail", b"access",
                                       b"authenticator", b"lautet", b"dein code", b"your", b"tu ", b"votre",
                                       b"ihr ", b"seu ", b"su ", b"il tuo")
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

_RECOVERY_WORDS: tuple[bytes, ...] = (b"recovery", b"backup", b"codes", b"two-factor", b"2fa", b"wiederherstellung",
                                      b"r?cup?ration", b"recuperaci", b"recupera", b"c?digos")
_RECOVERY_OTHER = ("リカバリー", "リカバリ", "バックアップ", "恢复码", "备用码", "复原码", "резервн", "восстановлен")
_RECOVERY_RE = re.compile(
    r"(?<![\w-])(?:[0-9a-f]{5}-[0-9a-f]{5}|[A-Za-z0-9]{10}-[A-Za-z0-9]{10}|\d{4} \d{4}|\d{8})(?![\w-])")

_CARD_WORDS: tuple[bytes, ...] = (b"card", b"visa", b"mastercard", b"amex", b"cvc", b"cvv", b"expir", b"exp ",
                                  b"credit", b"debit", b"tarjeta", b"carte", b"karte", b"cart?o", b"carta")
_CARD_OTHER = ("カード", "信用卡", "银行卡", "卡号", "карт")
_CARD_RE = re.compile(r"(?<![\w.,/-])[2-6]\d{3}(?:[ -]?\d{2,7}){2,5}(?![\w/]|[.,-]\d)")
_CVC_RE = re.compile(r"(?i)(?:cvc2?|cvv2?|cid|csc)\b\W{0,4}(?P<v>\d{3,4})(?!\d)")
_EXPIRY_RE = re.compile(r"(?<!\d)(?:0[1-9]|1[0-2])\s?/\s?(?:\d{2}|20\d{2})(?!\d)")


def scan_onetime(text: str, low: bytes, spans: list[Span]) -> None:
    """Append the spans of one-time codes, recovery codes and card numbers."""
    folded = text.lower() if not text.isascii() else None
    if folded is not None and len(folded) != len(text):
        folded = None
    _otp(text, low, folded, spans)
    if _any(low, folded, _RECOVERY_WORDS, _RECOVERY_OTHER):
        _recovery(text, spans)
    if _any(low, folded, _CARD_WORDS, _CARD_OTHER):
        _cards(text, low, spans)


def _any(low: bytes, folded: str | None, words: tuple[bytes, ...], other: tuple[str, ...]) -> bool:
    if any(word in low for word in words):
        return True
    return folded is not None and any(word in folded for word in other)


def _otp(text: str, low: bytes, folded: str | None, spans: list[Span]) -> None:
    hits: list[tuple[int, int]] = []
    for word in _OTP_WORDS:
        index = low.find(word)
        while index != -1:
            if index == 0 or not 0x61 <= low[index - 1] <= 0x7A or word.startswith((b"c?d", b"code")):
                hits.append((index, index + len(word)))
            index = low.find(word, index + len(word))
    index = low.find(b"code")
    while index != -1:  # a bare `code`, with a qualifier close by
        near = low[max(0, index - 40):min(len(low), index + 40)]
        if any(q in near for q in _CODE_QUALIFIERS) or any(w in near for w in (b"otp", b"2fa", b"sms", b"texted")):
            hits.append((index, index + 4))
        index = low.find(b"code", index + 4)
    if folded is not None:
        for word in _OTP_OTHER:
            index = folded.find(word)
            while index != -1:
                if word != "код" or folded.startswith("код подтв", index) or "ваш код" in folded[max(0, index - 5):index + 3]:
                    hits.append((index, index + len(word)))
                index = folded.find(word, index + len(word))
    for start, end in hits:
        _code_near(text, start, end, spans)


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


def _cards(text: str, low: bytes, spans: list[Span]) -> None:
    for match in _CARD_RE.finditer(text):
        digits = "".join(c for c in match.group() if c.isdigit())
        if not 13 <= len(digits) <= 19 or not _luhn(digits) or len(set(digits)) < 3:
            continue
        seps = {c for c in match.group() if not c.isdigit()}
        if len(seps) > 1:
            continue
        window = low[max(0, match.start() - 80):min(len(low), match.end() + 80)]
        if not (any(word in window for word in _CARD_WORDS)
                or _EXPIRY_RE.search(text, max(0, match.start() - 80), min(len(text), match.end() + 80))
                or any(word in text[max(0, match.start() - 80):match.end() + 80] for word in _CARD_OTHER)):
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
