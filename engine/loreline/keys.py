"""The Anthropic API key: where Loreline finds it, in one stated order.

    1. `--api-key` on the command line
    2. the `ANTHROPIC_API_KEY` environment variable
    3. the OS keyring: service "loreline", username "anthropic"

Invariants:
- the key is held in memory only: it is never written to a file, a log, the database or
  an error message; messages name its *source* and show at most `mask(key)`;
- only a real OS keyring stores it (Secret Service, macOS Keychain, Windows Credential
  Locker, KWallet). The fail/null backends and file-backed ones (keyrings.alt's plaintext
  and "encrypted" files) are refused with KeyringUnavailableError naming the alternatives,
  never used as a fallback;
- other secrets live under the same service (`Secret`: the team server's password); every
  keyring error names the secret it is about and that secret's own alternatives;
- a keyring that cannot be read while *looking* for a key counts as "no key there", so a
  machine without a keyring still runs with the env var or the offline backend.

The key of an OpenAI-compatible server (`openai-compatible` backend; most local servers need
none) is a second secret with its own order: `LORELINE_OPENAI_API_KEY`, then the OS keyring
(service "loreline", username "openai-compatible"): `find_server_key`, under the same invariants.

Background work never uses the assistant's own credentials (`environment.ASSISTANT_CREDENTIALS`):
the environment is read through `environment.environ()`, so in background work `find_key` and
`key_source` find only the keyring's key.

`keyring` is imported lazily: the CLI's cheap commands never load it. `loreline status`, which
only names where the key comes from, asks `key_source`: the keyring's answer (whether it holds
a key, never the key) is kept in the state folder for KEYRING_KEEP_SECONDS (`loreline.remembered`),
and `save_key` / `clear_key` drop it.
"""

from __future__ import annotations

import os

from .environment import environ
from .errors import KeyringUnavailableError
from .records import record

TYPE_CHECKING = False  # typing is left to the type checker: the everyday commands import none of it
if TYPE_CHECKING:
    from typing import Any

SERVICE = "loreline"
USERNAME = "anthropic"
ENV = "ANTHROPIC_API_KEY"

FROM_FLAG = "--api-key"
FROM_ENV = ENV
FROM_KEYRING = "the OS keyring"

OS_KEYRINGS = ("install and unlock an OS keyring (a Secret Service such as gnome-keyring or KWallet, the macOS "
               "Keychain, the Windows Credential Locker)")


@record
class Secret:
    """One secret kept under the "loreline" service: its keyring user name, what a person calls
    it, and where else Loreline can find it; every keyring error names the secret it is about."""

    username: str
    name: str
    elsewhere: str

    def alternatives(self) -> str:
        return f"{self.elsewhere}, or {OS_KEYRINGS}; Loreline never keeps {self.name} in a plain file"


API_KEY = Secret(USERNAME, "the Anthropic API key", f"set {ENV} or pass {FROM_FLAG} instead")

SERVER_ENV = "LORELINE_OPENAI_API_KEY"
SERVER_KEY = Secret("openai-compatible", "the OpenAI-compatible server's key", f"set {SERVER_ENV} instead")

KEYRING_KEEP_SECONDS = 600.0
REMEMBERED = "keyring-holds-key"

#: backends that are not an OS keyring, by module prefix
_REFUSED_MODULES = ("keyring.backends.fail", "keyring.backends.null", "keyrings.alt")


def find_key(explicit: str | None = None) -> tuple[str, str] | None:
    """The key to use and where it came from, or None when there is none anywhere."""
    if explicit is not None and explicit.strip():
        return explicit.strip(), FROM_FLAG
    env = environ().get(ENV, "").strip()
    if env:
        return env, FROM_ENV
    try:
        stored = stored_key()
    except KeyringUnavailableError:
        return None
    return (stored, FROM_KEYRING) if stored else None


def find_server_key() -> tuple[str, str] | None:
    """The OpenAI-compatible server's key and where it came from, or None (a local server needs
    none): $LORELINE_OPENAI_API_KEY, then the OS keyring; an unusable keyring counts as none."""
    env = environ().get(SERVER_ENV, "").strip()
    if env:
        return env, SERVER_ENV
    try:
        stored = stored_secret(SERVER_KEY)
    except KeyringUnavailableError:
        return None
    return (stored.strip(), FROM_KEYRING) if stored and stored.strip() else None


def key_source(explicit: str | None = None) -> str | None:
    """Where the key `find_key` would use comes from (FROM_FLAG, FROM_ENV or FROM_KEYRING), or
    None; the keyring's part is a kept answer (see the module's docstring)."""
    if explicit is not None and explicit.strip():
        return FROM_FLAG
    if environ().get(ENV, "").strip():
        return FROM_ENV
    from . import remembered

    basis = {"backend": os.environ.get("PYTHON_KEYRING_BACKEND", ""),
             "bus": os.environ.get("DBUS_SESSION_BUS_ADDRESS", ""),
             "config": remembered.file_basis(_keyring_config())}
    held = remembered.answer(REMEMBERED, basis, KEYRING_KEEP_SECONDS, _holds_key)
    return FROM_KEYRING if held is True else None


def _holds_key() -> bool:
    try:
        return stored_key() is not None
    except KeyringUnavailableError:
        return False


def _keyring_config() -> str:
    """The keyring package's own settings file (it can choose another backend)."""
    base = os.environ.get("XDG_CONFIG_HOME", "").strip() or os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(base, "python_keyring", "keyringrc.cfg")


def stored_key() -> str | None:
    """The key kept in the OS keyring, or None; KeyringUnavailableError without one."""
    backend = usable_backend(API_KEY)
    value = _guarded(backend, API_KEY, lambda: backend.get_password(SERVICE, USERNAME))
    return value.strip() if isinstance(value, str) and value.strip() else None


def save_key(key: str) -> str:
    """Store `key` in the OS keyring and read it back; returns the backend's name."""
    try:
        return save_secret(API_KEY, key)
    finally:
        _forget_answer()


def clear_key() -> bool:
    """Remove the stored key; False when there was none."""
    try:
        backend = usable_backend(API_KEY)
        if _guarded(backend, API_KEY, lambda: backend.get_password(SERVICE, USERNAME)) is None:
            return False
        _guarded(backend, API_KEY, lambda: backend.delete_password(SERVICE, USERNAME))
        return True
    finally:
        _forget_answer()


def _forget_answer() -> None:
    from . import remembered

    remembered.forget(REMEMBERED)


def usable_backend(secret: Secret = API_KEY) -> Any:
    """The active keyring backend when it is a real OS keyring, else KeyringUnavailableError
    naming `secret` and where else it can come from."""
    try:
        import keyring
    except ImportError:
        raise KeyringUnavailableError(f"the keyring package is not installed, so there is no OS keyring to keep "
                                      f"{secret.name}; {secret.alternatives()}") from None
    try:
        backend = keyring.get_keyring()
    except Exception as err:  # a broken backend configuration must not crash the CLI
        raise KeyringUnavailableError(f"no usable OS keyring ({type(err).__name__}) to keep {secret.name}; "
                                      f"{secret.alternatives()}") from None
    if not _is_os_keyring(backend):
        raise KeyringUnavailableError(f"no usable OS keyring (found {backend_name(backend)}) to keep {secret.name}; "
                                      f"{secret.alternatives()}")
    return backend


def backend_name(backend: Any) -> str:
    kind = type(backend)
    return f"{kind.__module__}.{kind.__qualname__}"


def mask(key: str) -> str:
    """Enough of a key to recognise it, never enough to use it: `sk-ant-…abcd`."""
    tail = key[-4:] if len(key) >= 16 else ""
    head = "sk-ant-" if key.startswith("sk-ant-") and tail else ""
    return f"{head}…{tail}"


def _is_os_keyring(backend: Any) -> bool:
    inner = getattr(backend, "backends", None)
    if inner is not None:  # the chainer: usable when any chained backend is
        return any(_is_os_keyring(b) for b in inner)
    module = type(backend).__module__
    return not module.startswith(_REFUSED_MODULES) and "plaintext" not in type(backend).__name__.lower()


def _guarded(backend: Any, secret: Secret, action: Any) -> Any:
    """Run one keyring call; any failure (locked, no D-Bus, denied) becomes one clear error."""
    try:
        return action()
    except Exception as err:  # backends raise their own types (D-Bus, Keychain, …)
        raise KeyringUnavailableError(
            f"the OS keyring ({backend_name(backend)}) failed: {type(err).__name__} (for {secret.name}); "
            f"{secret.alternatives()}"
        ) from None


def stored_secret(secret: Secret) -> str | None:
    """Another secret kept under the "loreline" service (the team server's password), or None;
    KeyringUnavailableError without a usable OS keyring."""
    backend = usable_backend(secret)
    value = _guarded(backend, secret, lambda: backend.get_password(SERVICE, secret.username))
    return value if isinstance(value, str) and value else None


def save_secret(secret: Secret, value: str) -> str:
    """Keep `value` under the "loreline" service and read it back; returns the backend's name."""
    backend = usable_backend(secret)
    _guarded(backend, secret, lambda: backend.set_password(SERVICE, secret.username, value))
    if _guarded(backend, secret, lambda: backend.get_password(SERVICE, secret.username)) != value:
        raise KeyringUnavailableError(f"the OS keyring ({backend_name(backend)}) did not keep {secret.name}; "
                                      f"{secret.alternatives()}")
    return backend_name(backend)


def clear_secret(secret: Secret) -> bool:
    """Remove a secret kept under the "loreline" service; False when none was kept."""
    backend = usable_backend(secret)
    if _guarded(backend, secret, lambda: backend.get_password(SERVICE, secret.username)) is None:
        return False
    _guarded(backend, secret, lambda: backend.delete_password(SERVICE, secret.username))
    return True
