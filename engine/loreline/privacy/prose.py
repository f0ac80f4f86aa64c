"""Secrets given in sentences and on command lines rather than as `name=value`.

Used by `loreline.privacy.redact` after the name scan (`privacy.context`). Forms:

    "log in as admin with password Sunfl0wer!9", "the passphrase to the vault is X",
    "The root password for the db box is X", "pw: Winter2024!", "The password is 'Corr3ct Horse'",
    "use X as the admin password", "Le mot de passe est X", "contraseña: X", "Passwort: X"
    `redis-cli -a X`, `mysql --password X` (the name scan has `-p`), an Azure DevOps PAT near
    `devops`/`_pat`, an Ethereum private key (`0x` + 64 hex) near `private`/`key`/`wallet`,
    a BIP-39 seed phrase (12-24 lower-case words) after "seed phrase", "mnemonic", ...

A quoted value is taken whole (spaces included); an unquoted one runs to the end of its token,
less sentence punctuation. A bare word is a password only when it is not an ordinary word
("the password is required", "password reset" stay). Every scan is gated by a literal `find`
on the lower-cased bytes, and each regex runs over a bounded window, so cost stays linear.
"""

from __future__ import annotations

import re

from .context import key_shaped, placeholder

Span = tuple[int, int, str, int]
_GENERIC = 3

_PW_WORD = (r"(?:passwords?|passphrase|passwort|pass ?code|pw|pwd|mot de passe|contrase(?:ñ|n)a|"
            r"senha|wachtwoord|parola d'ordine|kennwort|salasana|l[oö]senord|has[lł]o)")
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
# "the key for staging: <value>", "the token is <value>": only a key-shaped value counts
_KEYISH_RE = re.compile(
    r"(?i)(?:key|token|secret)[ \t]+(?:(?:for|to|of)[ \t]+(?:[^\s:=.,;!?]{1,32}[ \t]+){0,4}?"
    r"[^\s:=.,;!?]{1,32}[ \t]*:|(?:is|was)(?:[ \t]*:)?)[ \t]*" + _VALUE
)
_KEY_NEEDLES = (b"key ", b"token ", b"secret ")
_REDIS_RE = re.compile(r"redis-cli\b[^\n|;&]{0,200}?[ \t](?:-a|--pass)[ \t]+" + _VALUE)
_CURL_COOKIE_RE = re.compile(r"curl\b[^\n|;&]{0,300}?[ \t](?:-b|--cookie)[ \t]+" + _VALUE)
_COOKIE_PAIR_RE = re.compile(r"([^\s=;]{1,64})=([^\s;]{8,4096})")
_DEVOPS_RE = re.compile(r"(?<![A-Za-z0-9])[a-z0-9]{52}(?![A-Za-z0-9])")
_ETH_RE = re.compile(r"(?<![A-Za-z0-9])(?:0x)?(?P<v>[0-9a-fA-F]{64})(?![A-Za-z0-9])")
_SEED_RE = re.compile(r"(?i)(?:seed(?: phrase| words)?|mnemonic(?: phrase)?|recovery phrase|backup phrase|"
                      r"secret phrase)[^\n\w]{0,16}(?:(?:is|was)(?![a-z]))?[^\n\w]{0,8}"
                      r"(?P<v>(?:[a-z]{3,8}[ \t]+){11,23}[a-z]{3,8})")
_TRAIL = ".,;:!?)]}>"
_ETH_CONTEXT = (b"private key", b"private_key", b"privatekey", b"priv key", b"wallet", b"eth", b"secret key")
_CODE_RE = re.compile(r"[A-Za-z_]\w{0,64}(?:\.[A-Za-z_]\w{0,64}){1,8}(?:[(\[]|\Z)|[A-Za-z_]\w{0,64}[(\[]")
_PW_START_RE = re.compile(rb"p(?:ass|w)")  # a literal first letter: `re` skips ahead in C
_FOREIGN = (b"contrase", b"senha", b"kennwort", b"wachtwoord", b"salasana", b"senord", b"haslo", b"parola")
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


def scan_prose(text: str, low: bytes, spans: list[Span]) -> None:
    """Append the spans of secrets stated in prose or on command lines."""
    for word in _password_words(low):
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
    for needle in _KEY_NEEDLES:
        pos = low.find(needle)
        while pos != -1:
            match = _KEYISH_RE.match(text, pos)
            if match:
                start, end = match.span("qv" if match.group("qv") is not None else "v")
                while end > start and text[end - 1] in _TRAIL:
                    end -= 1
                if key_shaped(text[start:end]) and not placeholder(text[start:end]):
                    spans.append((start, end, "api-key", _GENERIC))
            pos = low.find(needle, pos + len(needle))
    if b"curl" in low and (b" -b" in low or b"--cookie" in low):
        for match in _CURL_COOKIE_RE.finditer(text):
            group = "qv" if match.group("qv") is not None else "v"
            for pair in _COOKIE_PAIR_RE.finditer(text, *match.span(group)):
                if not placeholder(pair.group(2)):
                    spans.append((pair.start(2), pair.end(2), "cookie", 1))
    if b"redis-cli" in low:
        for match in _REDIS_RE.finditer(text):
            _password(text, match, spans)
    if b"devops" in low or b"_pat" in low or b" pat" in low:
        for match in _DEVOPS_RE.finditer(text):
            if any(c.isdigit() for c in match.group()) and len(set(match.group())) >= 12:
                spans.append((match.start(), match.end(), "azure-devops-pat", 0))
    if b"private" in low or b"wallet" in low:
        _eth_keys(text, low, spans)
    if b"seed" in low or b"mnemonic" in low or b"recovery phrase" in low:
        for match in _SEED_RE.finditer(text):
            spans.append((match.start("v"), match.end("v"), "seed-phrase", 0))


def _password_words(low: bytes) -> list[int]:
    """Where a password word starts: one literal-led scan, plus `find`s for the other languages."""
    hits = [m.start() for m in _PW_START_RE.finditer(low)]
    for needle in _FOREIGN:
        pos = low.find(needle)
        while pos != -1:
            hits.append(pos)
            pos = low.find(needle, pos + len(needle))
    return [hit for hit in hits if hit == 0 or not 0x61 <= low[hit - 1] <= 0x7A]


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
    if value.isalpha() and (len(value) < 8 or low.endswith(_WORDY_SUFFIXES)):
        return False
    return not value.istitle() or len(value) >= 10


def _eth_keys(text: str, low: bytes, spans: list[Span]) -> None:
    for match in _ETH_RE.finditer(text):
        before = low[max(0, match.start() - 48):match.start()]
        if any(word in before for word in _ETH_CONTEXT) and key_shaped(match.group("v")):
            spans.append((match.start(), match.end(), "ethereum-private-key", 0))
