"""A keyring backend for tests that run Loreline in other processes: it keeps its secrets in the
JSON file `$LORELINE_TEST_KEYRING` (a test's temporary folder), so a `loreline connect
--store-key` in one process and a worker in another share what was stored. Never a real
keyring's place: the keyring API is the boundary under test (`loreline.keys` accepts it as an
OS keyring because it is none of the refused kinds, which tests/test_keys.py covers)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import keyring.backend


class FileKeyring(keyring.backend.KeyringBackend):
    priority = 1  # type: ignore[assignment]

    @staticmethod
    def _path() -> Path:
        return Path(os.environ["LORELINE_TEST_KEYRING"])

    def _items(self) -> dict[str, str]:
        try:
            found = json.loads(self._path().read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        return found if isinstance(found, dict) else {}

    def get_password(self, service: str, username: str) -> str | None:
        return self._items().get(f"{service}/{username}")

    def set_password(self, service: str, username: str, password: str) -> None:
        items = self._items()
        items[f"{service}/{username}"] = password
        self._path().write_text(json.dumps(items), encoding="utf-8")

    def delete_password(self, service: str, username: str) -> None:
        items = self._items()
        del items[f"{service}/{username}"]
        self._path().write_text(json.dumps(items), encoding="utf-8")
