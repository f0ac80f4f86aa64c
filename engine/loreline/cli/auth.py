"""`loreline auth set|status|clear`: the Anthropic API key in the OS keyring (or, with `--for
openai-compatible`, the key of the OpenAI-compatible server the openai-compatible backend asks).

The key is read without echo (getpass) from a terminal, or as one line from a pipe; it is
only ever printed masked.
"""

from __future__ import annotations

import argparse
import os
import sys

from ..errors import ConfigError
from .common import emit_json

SERVER = "openai-compatible"


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    group = sub.add_parser("auth", help="store, show or remove the Anthropic API key (OS keyring)")
    inner = group.add_subparsers(dest="action", required=True, metavar="ACTION")
    p = inner.add_parser("set", help="store a key in the OS keyring (prompted, or one line on stdin)")
    _for(p)
    p.set_defaults(func=run_set)
    p = inner.add_parser("status", help="which key would be used, from where (masked)")
    p.add_argument("--json", action="store_true")
    _for(p)
    p.set_defaults(func=run_status)
    p = inner.add_parser("clear", help="remove the key from the OS keyring")
    _for(p)
    p.set_defaults(func=run_clear)


def _for(p: argparse.ArgumentParser) -> None:
    p.add_argument("--for", dest="service", choices=("anthropic", SERVER), default="anthropic",
                   help="whose key: the Anthropic API's (default) or the OpenAI-compatible server's")


def read_key(label: str = "Anthropic API key") -> str:
    """The key typed at a hidden prompt, or the first line of piped input."""
    import getpass

    if sys.stdin.isatty():
        raw = getpass.getpass(f"{label} (input hidden): ")
    else:
        raw = sys.stdin.readline()
    key = raw.strip()
    if not key:
        raise ConfigError("no key given; nothing stored")
    if any(c.isspace() or not c.isprintable() for c in key):
        raise ConfigError("that does not look like an API key (it has spaces or control characters); nothing stored")
    return key


def run_set(args: argparse.Namespace) -> int:
    from ..api import settings as keys

    if args.service == SERVER:
        return _set_server_key()
    keys.usable_backend()  # fail before asking for the key, not after
    key = read_key()
    backend = keys.save_key(key)
    print(f"Stored the Anthropic API key {keys.mask(key)} in the OS keyring ({backend}).")
    if os.environ.get(keys.KEY_ENV, "").strip():
        print(f"Note: {keys.KEY_ENV} is set in this environment and takes precedence over the keyring.")
    return 0


def run_status(args: argparse.Namespace) -> int:
    from ..api import settings as keys
    from ..errors import KeyringUnavailableError

    if args.service == SERVER:
        return _server_key_status(args.json)
    found = keys.find_key()
    try:
        keys.usable_backend()
        keyring_note = None
    except KeyringUnavailableError as err:
        keyring_note = str(err)
    if args.json:
        emit_json({"source": found[1] if found else None, "key": keys.mask(found[0]) if found else None,
                   "keyring": keyring_note or "available"})
        return 0 if found else 1
    if found:
        print(f"Key        {keys.mask(found[0])} from {found[1]}")
    else:
        print(f"No Anthropic API key (looked at --api-key, {keys.KEY_ENV} and {keys.KEY_FROM_KEYRING}). "
              "`loreline auth set` stores one; until then imports use the offline rules distiller.")
    if keyring_note:
        print(f"Keyring    unavailable: {keyring_note}")
    return 0 if found else 1


def run_clear(args: argparse.Namespace) -> int:
    from ..api import settings as keys

    if args.service == SERVER:
        removed = keys.clear_secret(keys.SERVER_KEY)
        print("Removed the OpenAI-compatible server's key from the OS keyring." if removed else
              "No OpenAI-compatible server key was stored in the OS keyring.")
        return 0
    if keys.clear_key():
        print("Removed the Anthropic API key from the OS keyring.")
    else:
        print("No Anthropic API key was stored in the OS keyring.")
    if os.environ.get(keys.KEY_ENV, "").strip():
        print(f"Note: {keys.KEY_ENV} is still set in this environment and will be used.")
    return 0


def _set_server_key() -> int:
    from ..api import settings as keys

    keys.usable_backend(keys.SERVER_KEY)
    key = read_key("OpenAI-compatible server key")
    backend = keys.save_secret(keys.SERVER_KEY, key)
    print(f"Stored the OpenAI-compatible server's key {keys.mask(key)} in the OS keyring ({backend}).")
    if os.environ.get(keys.SERVER_ENV, "").strip():
        print(f"Note: {keys.SERVER_ENV} is set in this environment and takes precedence over the keyring.")
    return 0


def _server_key_status(as_json: bool) -> int:
    from ..api import settings as keys

    found = keys.find_server_key()
    if as_json:
        emit_json({"source": found[1] if found else None, "key": keys.mask(found[0]) if found else None})
    elif found:
        print(f"Key        {keys.mask(found[0])} from {found[1]}")
    else:
        print(f"No OpenAI-compatible server key (looked at {keys.SERVER_ENV} and the OS keyring); the "
              "openai-compatible backend sends none, which local servers need.")
    return 0 if found else 1
