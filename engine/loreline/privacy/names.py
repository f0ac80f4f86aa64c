"""Which names hold secrets: `DB_PASSWORD`, `apiKey`, `x-auth-token` do; `max_tokens`,
`password_length`, `public_key`, `secretName` do not.

A name is split into lower-case segments at `_ . -` and camelCase boundaries. The last
segment that is a secret word decides (password words, `secret`, `token`, a `key` qualified
by a word like `api`/`private`/`access`, `auth`, `credentials`); a neighbouring segment that
turns it into metadata (`_length`, `_url`, `_id`, `max_`, `public_`) cancels it. The family is
then the vendor the name mentions (a bare or
unknown-qualified `key` gives `key`, whose value must look generated: `context.key_shaped`) (`MISTRAL_API_KEY` → `mistral-api-key`) or a generic one
(`password`, `secret`, `token`, `api-key`, `auth-token`, `credentials`, `private-key`).
"""

from __future__ import annotations

import re
from functools import lru_cache

from . import patterns as P

_SEGMENT_RE = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_PASSWORD_SEGMENTS = frozenset("password passwd passphrase pwd pass pw passwort contrasena mdp".split())
_COMPOUND_KEYS = frozenset(
    "apikey accesskey secretkey privatekey accountkey masterkey signingkey encryptionkey clientkey "
    "authkey sharedaccesskey subscriptionkey licensekey appkey sessionkey".split()
)
_GENERIC = {"secret": "secret", "token": "token", "auth": "auth-token", "credentials": "credentials"}
GENERIC_FAMILIES = frozenset(["password", "secret", "token", "api-key", "auth-token", "credentials", "key"])


@lru_cache(maxsize=8192)
def classify(name: str) -> str | None:
    """The family of a value under `name`; `authorization` or `cookie` for those headers; None."""
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
    if name.startswith("_auth") or name == "_password":  # .npmrc
        return "npm-token"
    return None


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
            return index, "weak-key"  # `key`, `azure_key`: only a key-shaped value is a secret
        if seg == "auth":
            return index, "auth"
        if seg in ("credential", "credentials", "creds"):
            return index, "credentials"
    return -1, None


def _family(segments: list[str], kind: str, flat: str) -> str:
    if kind == "password":
        return "password"
    if kind == "weak-key":
        return "key"
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
    return _GENERIC.get(kind, "api-key")
