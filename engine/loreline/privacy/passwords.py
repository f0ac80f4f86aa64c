"""Passwords said in sentences, in nine languages, and `user / password` pairs after a login word.

Used by `loreline.privacy.redact` next to `privacy.prose` (which reads the English "password is
X" forms). Forms read here:

    "use my db password Tr0ub4dor&3xyzQ for staging", "Das Passwort lautet X", "mot de passe
    admin X", "Le nouveau mot de passe est : X", "usa siempre la contraseña X", "Sua senha é: X",
    "la tua password è X", "パスワードは X", "仮パスワード：X", "密码统一用 X", "密码为X",
    "Пароль: X", "- **Пароль:** `X`"; "log in with admin / X", "login as root:X", "Логин: ... "

A password word is followed, within a few tokens, by the value: the tokens between may only be
verbs that give a value (`is`, `lautet`, `est`, `es`, `é`, `è`, `は`, `是`, `用`, `—`, `:`),
articles, possessives and a few adjectives or role words ("new", "temporary", "admin", "db").
Any other word ends the look: "the password field is required" and "passwords are hashed with
argon2id" give nothing. An unquoted value must be password-shaped: 6+ characters from three
character classes (or two with digits and 8+ characters), not a path, URL, version, date,
digest, identifier reference or template. A quoted value is taken as it is, unless it is a
placeholder.

Cost: the ASCII words are where `privacy.prose` already found `pass`/`pw`/`contrase`; `senha`
and the other scripts' words are looked for only in text that has accented, Cyrillic or CJK
letters (`privacy.scripts`); `redact` calls this only with a password word, such text, or a
login word and a `/` or `:`. Each hit reads a window of at most 120 characters, so the work
stays linear.
"""

from __future__ import annotations

import re

from .context import placeholder
from .scripts import Folded, find_all

Span = tuple[int, int, str, int]
_PRIORITY = 1

# lower-cased ASCII password words, told apart at the starts `privacy.prose` found (`pass`,
# `pw`, `contrase`); `senha` is looked for here, in text that is not ASCII
_ASCII_WORDS: tuple[bytes, ...] = (b"password", b"passwort", b"passwd", b"passphrase", b"passcode", b"passe",
                                   b"contrase")
_MORE_WORDS: tuple[bytes, ...] = (b"senha",)
# words in other scripts, searched in the lower-cased text when it uses that script
_CYRILLIC_WORDS: tuple[str, ...] = ("парол",)
_CJK_WORDS = ("パスワード", "密码", "密碼", "口令")

# tokens that may stand between the password word and its value
_CONNECTORS = frozenset(
    "is was = : - — – -> => → is: was: will be set to be now lautet ist war wäre sei est était sera es era será "
    "é e è era è: sarà is, es: est: ist: é: è: это — это является будет был "
    "the a an my our your their his her its this that one "
    "der die das dein deine ihr ihre unser unsere mein meine euer "
    "le la les mon ma mes votre vos ton ta notre "
    "el los las mi mis tu tus su sus nuestro nuestra "
    "o os as meu minha seu sua teu tua nosso nossa "
    "il lo gli mio mia tuo tua suo nostro nostra "
    "ваш ваша твой твоя мой моя наш "
    "new temporary temp default initial generated current admin root user db database staging prod "
    "production dev wifi wi-fi email mail account vault server master shared one-time "
    "neues neue neuer vorläufiges vorläufige generiertes generierte aktuelles temporäres "
    "nouveau nouvel nouvelle temporaire provisoire actuel "
    "nuevo nueva temporal provisional actual "
    "novo nova temporária temporário provisória inicial atual "
    "nuovo nuova temporanea provvisoria attuale iniziale "
    "новый временный текущий "
    "always siempre immer toujours sempre всегда still just also "
    "use usa utilise utilisez verwende nutze benutze use: usar usa: используй "
    "then dann nachher alors entonces então quindi "
    "below: follows: suivant: siguiente: seguinte: seguente: folgt: "
    "of: de: do: da: di: ".split()
)
# tokens that give the value: after a prepositional phrase ("for the db box", "do banco") one of
# these (or a colon) must come before the value
_VERBS = frozenset(
    "is was = : - — – -> => → lautet ist war est était sera es era será é è sarà это является будет был "
    "são sono sind are".split()
)
# prepositions that open a short phrase naming what the password is for
_PREPOSITIONS = frozenset("for of to on at in from de do da del della dello di du des für von vom zum zur "
                          "para pour per по от для к на".split())
# value-shaped tokens that are not passwords
_NOT_PASSWORDS = frozenset(
    "argon2 argon2id argon2i bcrypt scrypt pbkdf2 sha1 sha256 sha512 sha-256 sha-512 md5 utf8 utf-8 "
    "base64 oauth2 x509 aes256 aes-256 aes128 rsa2048 rsa4096 ed25519 http2 ipv4 ipv6 totp hotp 2fa mfa "
    "utf8mb4 latin1 ascii7".split()
)
_STRONG = set("!@#$%^&*+=?~")
_WEAK = set("_-.")
_QUOTES = {'"': '"', "'": "'", "`": "`", "\u201c": "\u201d", "\u201e": "\u201c", "\u00ab": "\u00bb",
           "\u2018": "\u2019", "\u300c": "\u300d", "\u300e": "\u300f", "\u2039": "\u203a"}
_TRAIL = ".,;:)]}>»\"'`*\u3002\u3001\uff0c\uff09\u300d\u300f"
_LEAD = "([{<«\"'`*"
_TOKEN_RE = re.compile(r"[^\s\u2e80-\uffff]{1,130}")  # CJK and full-width marks end a value
_CJK_GAP_RE = re.compile(r"[\s:：=は是为為用统统一都就设置成改：，,、\u3000*`「『\"']{0,10}")
_NOT_VALUE_RE = re.compile(
    r"(?:v?\d+(?:\.\d+){1,3}[a-z0-9.+-]{0,12}"  # versions
    r"|[0-9a-f]{7,128}"  # digests, commit ids
    r"|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"  # UUIDs
    r"|\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}(?:[T ]\S*)?"  # dates
    r"|[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63})+"  # e-mail addresses
    r"|#[0-9a-f]{3,8}"  # colours
    r"|[\w-]{1,64}(?:\.[a-z]{1,6}){1,2}"  # file names
    r"|(?:sha\d{1,3}|md5)[-:].*|[\w]{1,40}\.[\w.]{1,80}\(.*"  # digests, calls
    r")",
    re.IGNORECASE,
)

# `user / password` and `user:password` after a login word (each scan led by a literal)
LOGIN_RE = re.compile(rb"log[ -]?(?:in|on)(?![a-z_])")
_LOGIN_CYRILLIC = ("войти", "войдите", "логин")
_LOGIN_CJK = ("ログイン", "登录", "登陆")
_PAIR_RE = re.compile(
    r"(?:[ \t]+(?:with|as|using|via|mit|als|avec|en tant que|con|como|com|come|под|как)\b)?[ \t]*[:=]?[ \t]*"
    r"(?:`|\*\*)?(?P<user>[\w.@+-]{1,40})(?:`|\*\*)?(?:[ \t]*/[ \t]*|:)(?:`|\*\*)?(?P<pw>[^\s/`*]{4,64})"
)


def scan_passwords(text: str, low: bytes, folded: Folded | None, starts: list[int], spans: list[Span]) -> None:
    """Append the spans of passwords given in sentences and of passwords in login pairs;
    `starts` are where `privacy.prose` saw a password word begin, `folded` is the text
    lower-cased when it is not ASCII (`privacy.scripts`)."""
    hits: list[tuple[int, int]] = []
    for index in starts:
        if low.startswith(_ASCII_WORDS, index) and (index == 0 or not 0x61 <= low[index - 1] <= 0x7A):
            if low.startswith(b"passe", index) and not low.startswith(b"mot de ", index - 7):
                continue
            hits.append((index, _word_end(low, index + 4)))
    for word in _MORE_WORDS if folded is not None else ():  # Portuguese text has accents
        index = low.find(word)
        while index != -1:
            if index == 0 or not 0x61 <= low[index - 1] <= 0x7A:
                hits.append((index, _word_end(low, index + len(word))))
            index = low.find(word, index + len(word))
    if folded is not None:
        for start, end in find_all(folded, (), _CYRILLIC_WORDS, _CJK_WORDS):
            hits.append((start, _word_end_text(folded.text, end)))
    for start, end in hits:
        _after_word(text, start, end, spans)
    if (b"/" in low or b":" in low) and (folded is not None or LOGIN_RE.search(low)):
        _login_pairs(text, low, folded, spans)


def _word_end(low: bytes, index: int) -> int:
    """The end of the word a password word starts (`passwords`, `contraseña`, `senhas`)."""
    limit = min(len(low), index + 8)
    while index < limit and (0x61 <= low[index] <= 0x7A or low[index] == 0x3F):
        index += 1
    return index


def _word_end_text(folded: str, index: int) -> int:
    limit = min(len(folded), index + 3)
    while index < limit and folded[index].isalpha() and folded[index].isascii() is False and \
            folded[index] not in "はがをにでもと是为為用统都就":
        index += 1
    return index


def _after_word(text: str, start: int, end: int, spans: list[Span]) -> None:
    """Look for the value in the few tokens after a password word at [start, end)."""
    window_end = min(len(text), end + 120)
    pos = end
    if pos < len(text) and not (text[pos].isspace() or text[pos] in ":：*`\"'」" or not text[pos].isascii()):
        return  # `password=...`, `passwords.txt`: assignments and names are read elsewhere
    if text[start:end].startswith(_CJK_WORDS):
        gap = _CJK_GAP_RE.match(text, pos, window_end)
        pos = gap.end() if gap else pos
        if pos < window_end and not text[pos].isascii():
            return
    lines = free = 0
    need_verb = False
    for _ in range(9):
        while pos < window_end and text[pos].isspace():
            if text[pos] == "\n":
                lines += 1
            pos += 1
        if pos >= window_end or lines > 3:
            return
        quote = _QUOTES.get(text[pos])
        if quote is not None and text[pos] != "'" or text[pos] == "'" and not text[pos - 1].isalpha():
            close = text.find(quote or "'", pos + 1, min(len(text), pos + 130))
            if close > pos + 1 and "\n" not in text[pos + 1:close]:
                _quoted(text, pos + 1, close, spans)
                return
        token = _TOKEN_RE.match(text, pos, window_end)
        if token is None:
            return
        raw = token.group()
        low = raw.lower()
        pos = token.end()
        if low.rstrip(":") in _VERBS or not any(c.isalnum() for c in raw) or need_verb and raw.endswith(":"):
            need_verb, free = False, 0  # "lautet", ":", "—", "für den Server:": the value comes next
            continue
        if low in _CONNECTORS or low.rstrip(":") in _CONNECTORS:
            continue
        if low in _PREPOSITIONS and not need_verb:
            free, need_verb = 3, True  # "for the db box is X", "do banco é X"
            continue
        if free and raw.isalpha():
            free -= 1
            continue
        v_start, v_end = _strip(text, token.start(), token.end())
        if not need_verb and v_end > v_start and password_shaped(text[v_start:v_end]):
            spans.append((v_start, v_end, "password", _PRIORITY))
        return


def _quoted(text: str, start: int, end: int, spans: list[Span]) -> None:
    value = text[start:end]
    if 4 <= len(value) <= 128 and len(value.split()) <= 4 and not placeholder(value) and \
            not value.startswith(("%", "{", "$", "<")) and (password_shaped(value) or " " not in value):
        if value.isalpha() and value.islower():
            return  # "password 'required'" names a rule, not a value
        spans.append((start, end, "password", _PRIORITY))


def _strip(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start] in _LEAD:
        start += 1
    while end > start and text[end - 1] in _TRAIL:
        end -= 1
    return start, end


def password_shaped(value: str) -> bool:
    """An unquoted token that reads as a password rather than a word, a name or a number."""
    if not 6 <= len(value) <= 64 or value.lower() in _NOT_PASSWORDS:
        return False
    if value.startswith(("/", "~", "$", "%", "{", "<", "-", "[", "=", "\\", "http", "www.")) or "://" in value:
        return False
    lower = upper = digit = strong = weak = 0
    for c in value:
        if c.islower():
            lower += 1
        elif c.isupper():
            upper += 1
        elif c.isdigit():
            digit += 1
        elif c in _STRONG:
            strong += 1
        elif c in _WEAK:
            weak += 1
        elif not c.isalpha():
            return False  # brackets, slashes, quotes, non-letters of other scripts: not one token
    letters = lower + upper
    if not letters or (not digit and not strong):
        return False
    classes = (lower > 0) + (upper > 0) + (digit > 0) + (strong > 0)
    if classes < 2 or (classes == 2 and not (len(value) >= 8 and digit >= 2 or strong)):
        return False
    if _NOT_VALUE_RE.fullmatch(value) or placeholder(value):
        return False
    return not (value.endswith("()") or "${" in value or "{{" in value)


def _login_pairs(text: str, low: bytes, folded: Folded | None, spans: list[Span]) -> None:
    starts = [m.end() for m in LOGIN_RE.finditer(low)]
    if folded is not None:
        starts += [end for _, end in find_all(folded, (), _LOGIN_CYRILLIC, _LOGIN_CJK)]
    for index in starts:
        pair = _PAIR_RE.match(text, index, min(len(text), index + 140))
        if pair is None:
            continue
        user, pw = pair.group("user"), pair.group("pw")
        s, e = _strip(text, *pair.span("pw"))
        value = text[s:e]
        if value != user and e > s and password_shaped(value) and not user.isdigit():
            spans.append((s, e, "password", _PRIORITY))
