"""Settings, the Anthropic API key and the OpenAI-compatible server's key, for `loreline config`, `loreline auth` and the editors.

The key's module imports the keyring only when a key is read or written, so importing this
module stays cheap.
"""

from __future__ import annotations

from ..assistants.registry import schema
from ..config import describe, load, set_value, unknown, unset
from ..home import config_path
from ..keys import ENV as KEY_ENV
from ..keys import FROM_KEYRING as KEY_FROM_KEYRING
from ..keys import SERVER_ENV, SERVER_KEY, clear_secret, find_server_key, save_secret
from ..keys import clear_key, find_key, mask, save_key, stored_key, usable_backend

__all__ = ["KEY_ENV", "KEY_FROM_KEYRING", "SCHEMA", "SERVER_ENV", "SERVER_KEY", "clear_key", "clear_secret", "describe",
           "find_key", "find_server_key", "load", "mask", "save_key", "save_secret", "set_value", "stored_key", "unknown",
           "unset", "usable_backend", "config_path"]

#: every setting: Loreline's own and the assistants' (the registry defines theirs)
SCHEMA = schema()
