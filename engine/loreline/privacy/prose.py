"""Secrets given in sentences and on command lines rather than as `name=value`.

Used by `loreline.privacy.redact` after the name scan (`privacy.context`). Forms:

    "log in as admin with password Sunfl0wer!9", "the passphrase to the vault is X",
    "The root password for the db box is X", "pw: Winter2024!", "The password is 'Corr3ct Horse'",
    "use X as the admin password", "Le mot de passe est X", "contraseña: X", "Passwort: X"
    `redis-cli -a X`; the token-run scan of `redact` calls `hex_or_pat_run` for an Azure DevOps
    PAT near `devops`/`pat` and an Ethereum private key (`0x` + 64 hex) near `private key`/`wallet`,
    and the curl branch calls `curl_cookies` for `curl -b 'session=...'`;
    a BIP-39 seed phrase (12-24 lower-case words) after "seed phrase", "recovery phrase", ...

A quoted value is taken whole (spaces included); an unquoted one runs to the end of its token,
less sentence punctuation. A bare word is a password only when it is not an ordinary word
("the password is required", "password reset" stay). One literal-led scan finds the password
words; each regex then runs over a bounded window around a hit, so cost stays linear.
"""

from __future__ import annotations

import re

from .context import key_shaped, placeholder

Span = tuple[int, int, str, int]
_GENERIC = 3

_PW_WORD = r"(?:passwords?|passphrase|passwort|pass ?code|pw|pwd|mot de passe|contrase(?:ñ|n|\\{1,3}u00f1)a)"
_VALUE = r"""(?:(?P<q>["'`\u2018\u201c])(?P<qv>[^"'`\u2019\u201d\n]{1,128})[\"'`\u2019\u201d]|(?P<v>[^\s"'`]{1,128}))"""
# "<password word> [for/to/of the vault|for user x] is|: <value>" (`is` in a few languages)
_FORWARD_RE = re.compile(
    r"(?i)(?<![a-z])" + _PW_WORD
    + r"(?:[ \t]+(?:for|to|of|de|del|für|f[uü]r|pour|da|do)[ \t]+(?:[^\s:=.,;!?]{1,32}[ \t]+){0,4}?[^\s:=.,;!?]{1,32})?"
    + r"(?:[ \t]*(?::|=|:=)|[ \t]+(?:is|was|est|ist|es|är|on|is set to|was set to|=|:))[ \t]*" + _VALUE
)
# "with/using (the) password <value>", "login ... password <value>"
_WITH_RE = re.compile(r"(?i)(?<![a-z])(?:with|using|via|and|login|log in)[ \t]+(?:(?:the|a|my|our|its)[ \t]+)?"
                      r"(?:[a-z]{2,12}[ \t]+)?" + _PW_WORD + r"[ \t]+" + _VALUE)
# "use <value> as the admin password"
_REVERSE_RE = re.compile(r"(?i)(?<![a-z])use[ \t]+" + _VALUE + r"[ \t]+as[ \t]+(?:(?:the|my|our|your|an?)[ \t]+)?"
                         r"(?:[\w-]{1,16}[ \t]+){0,2}" + _PW_WORD + r"(?![a-z])")
_REDIS_RE = re.compile(r"redis-cli\b[^\n|;&]{0,200}?[ \t](?:-a|--pass)[ \t]+" + _VALUE)
_CURL_COOKIE_RE = re.compile(r"curl\b[^\n|;&]{0,300}?[ \t](?:-b|--cookie)[ \t]+" + _VALUE)
_COOKIE_PAIR_RE = re.compile(r"([^\s=;]{1,64})=([^\s;]{8,4096})")
_ETH_RE = re.compile(r"(?:0x)?[0-9a-fA-F]{64}")
_SEED_RE = re.compile(r"(?i)(?:(?:seed|mnemonic|recovery|backup|secret|wallet)[ \t]+phrase)[^\n\w]{0,16}(?:(?:is|was)(?![a-z]))?[^\n\w]{0,8}"
                      r"(?P<v>(?:[a-z]{3,8}[ \t]+){11,23}[a-z]{3,8})")
_TRAIL = ".,;:!?)]}>"
# words that start like a password word and are not one ("12 passed" in every test log)
_NOT_PASSWORD_WORDS = (b"passed", b"passes", b"passing", b"passage", b"passive", b"passport", b"passenger",
                       b"passthrough", b"passable")
_ETH_CONTEXT = (b"private key", b"private_key", b"privatekey", b"priv key", b"wallet", b"eth", b"secret key")
_CODE_RE = re.compile(r"[A-Za-z_]\w{0,64}(?:\.[A-Za-z_]\w{0,64}){1,8}(?:[(\[]|\Z)|[A-Za-z_]\w{0,64}[(\[]")
# password words and `phrase` (seed phrases); one literal first letter, so `re` skips ahead in C
_PW_START_RE = re.compile(rb"p(?:ass|w|hrase)")
# bare words that follow "password is" without being one
_NOT_VALUES = frozenset(
    "the a an your my our their his her its this that it not also still now always never required "
    "incorrect invalid wrong correct expired missing empty blank hidden masked encrypted hashed "
    "stored saved changed reset protected secure strong weak optional mandatory different same "
    "visible sensitive default unknown unset too very in on at for to of from with by as and or "
    "stored there here below above following something anything nothing available configured "
    "specified provided supplied accepted rejected currently probably definitely hardcoded "
    "plaintext compromised long short set sent shown printed logged only being just obligatoire requis "
    "erforderlich falsch obligatorio requerido incorrecto incorrecte geheim secreto secret".split()
)
_WORDY_SUFFIXES = ("ed", "ing", "ly", "ble", "tion", "ment", "ness", "ful", "less", "ive", "ous")


def scan_prose(text: str, low: bytes, spans: list[Span]) -> list[int]:
    """Append the spans of secrets stated in prose or on command lines; return where the
    password words (`pass...`, `pw`, `contrase...`) start, for `privacy.passwords`."""
    first = _PW_START_RE.search(low)
    words = [m.start() for m in _PW_START_RE.finditer(low, first.start())] if first is not None else []
    if (b"?" in low or b"\\" in low) and b"contrase" in low:  # "contraseña" (ñ is `?` here), JSON-escaped
        words += [m.start() for m in re.finditer(rb"contrase", low)]
    seed = False
    for word in words:
        if low.startswith(b"phrase", word):
            seed = True
        elif (word == 0 or not 0x61 <= low[word - 1] <= 0x7A) and not low.startswith(_NOT_PASSWORD_WORDS, word) and (
                not _in_reference(low, word)):
            _password_phrases(text, low, word, spans)
    if seed:
        for match in _SEED_RE.finditer(text):
            spans.append((match.start("v"), match.end("v"), "seed-phrase", 0))
    if b"-" in low and b"redis-cli" in low:
        for match in _REDIS_RE.finditer(text):
            _password(text, match, spans)
    return words


def _in_reference(low: bytes, word: int) -> bool:
    """Whether the password word at `word` is part of a `$NAME` or `${NAME...}` reference
    (`${MYSQL_ROOT_PASSWORD:?required}`): a name, not a label before a value."""
    start = word
    while start > 0 and word - start < 64 and (low[start - 1] == 0x5F or chr(low[start - 1]).isalnum()):
        start -= 1
    return start > 0 and (low[start - 1] == 0x24 or low.startswith(b"${", start - 2))


def _password_phrases(text: str, low: bytes, word: int, spans: list[Span]) -> None:
    start = word - 7 if low.startswith(b"mot de ", word - 7) else word
    forward = _FORWARD_RE.match(text, start)
    if forward:
        _password(text, forward, spans)
    before = low[max(0, word - 200):word]
    if b"use " in before:
        for match in _REVERSE_RE.finditer(text, max(0, word - 200), min(len(text), word + 24)):
            _password(text, match, spans)
    near = before[-48:]
    if b"with " in near or b"using " in near or b"log" in near or b"via " in near or b"and " in near:
        for match in _WITH_RE.finditer(text, max(0, word - 48), min(len(text), word + 160)):
            _password(text, match, spans)


def curl_cookies(text: str, low: bytes, spans: list[Span]) -> None:
    """`curl -b 'session=...'` (the caller has seen `curl`)."""
    if b" -b" not in low and b"--cookie" not in low:
        return
    for match in _CURL_COOKIE_RE.finditer(text):
        group = "qv" if match.group("qv") is not None else "v"
        for pair in _COOKIE_PAIR_RE.finditer(text, *match.span(group)):
            if not placeholder(pair.group(2)):
                spans.append((pair.start(2), pair.end(2), "cookie", 1))


def hex_or_pat_run(text: str, low: bytes, start: int, end: int, spans: list[Span]) -> None:
    """A run of token characters that may be an Ethereum private key or an Azure DevOps PAT,
    told by the words just before it (`private key`, `wallet`; `devops`, `pat`)."""
    run = text[start:end]
    before = low[max(0, start - 48):start]
    if end - start in (64, 66) and _ETH_RE.fullmatch(run):
        if any(word in before for word in _ETH_CONTEXT) and key_shaped(run[-64:]):
            spans.append((start, end, "ethereum-private-key", 0))
    elif end - start == 52 and run.isalnum() and (run.islower() or run.isdigit()):
        if (b"devops" in before or b"pat" in before) and any(c.isdigit() for c in run) and len(set(run)) >= 12:
            spans.append((start, end, "azure-devops-pat", 0))


def _password(text: str, match: re.Match[str], spans: list[Span]) -> None:
    quoted = match.group("qv") is not None
    start, end = match.span("qv" if quoted else "v")
    if not quoted:
        while end > start and text[end - 1] in _TRAIL:
            end -= 1
    value = text[start:end]
    if value and not placeholder(value) and (quoted or _password_like(value)):
        spans.append((start, end, "password", _GENERIC))


def _password_like(value: str) -> bool:
    """An unquoted word that could be a password rather than the rest of a sentence."""
    low = value.lower()
    if low in _NOT_VALUES or len(value) < 4 or "://" in value or value.startswith(("$", "%", "{{", "<")):
        return False
    if _CODE_RE.match(value):
        return False  # `getpass.getpass()`, `os.environ[...]`, `config.db.password`
    if any(not c.isalpha() for c in value):
        return any(c.isalnum() for c in value)
    if value.isalpha() and (len(value) < 8 or low.endswith(_WORDY_SUFFIXES) or value.islower()):
        return False  # "Passwort: mindestens 12 Zeichen": a lower-case word is a word
    return not value.istitle() or len(value) >= 10


