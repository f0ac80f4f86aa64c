"""The API key: precedence, refusing anything that is not an OS keyring, and the real
Secret Service (gnome-keyring under a private D-Bus session) end to end."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import keyring
import keyring.backend
import keyring.backends.fail
import keyring.backends.null
import pytest

from loreline import keys
from loreline.errors import KeyringUnavailableError
from loreline.samples.builder import ClaudeSession
from tests.conftest import VENV_BIN, subprocess_env
from tests.fake_anthropic import FakeAnthropic, fake_anthropic  # noqa: F401  (fixture)

KEY = "sk-ant-api03-KEYRINGTEST-9f8e7d6c5b4a3210wxyz"


class MemoryKeyring(keyring.backend.KeyringBackend):
    """A keyring backend living in this process: the keyring API is the boundary under test."""

    priority = 1  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.items: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.items.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.items[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        del self.items[(service, username)]


class LockedKeyring(MemoryKeyring):
    def get_password(self, service: str, username: str) -> str | None:
        raise RuntimeError("collection is locked")


def _plaintext_class() -> type[Any]:
    # keyrings.alt is not installed; this stands in for its file backend by identity alone
    return type("PlaintextKeyring", (MemoryKeyring,), {"__module__": "keyrings.alt.file"})


@pytest.fixture
def use_backend() -> Iterator[Any]:
    before = keyring.get_keyring()

    def install(backend: Any) -> Any:
        keyring.set_keyring(backend)
        return backend

    yield install
    keyring.set_keyring(before)


def test_precedence_flag_then_environment_then_keyring(use_backend: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    ring = use_backend(MemoryKeyring())
    assert keys.find_key() is None
    ring.set_password("loreline", "anthropic", "from-keyring-0123456789")
    assert keys.find_key() == ("from-keyring-0123456789", "the OS keyring")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "from-env-0123456789")
    assert keys.find_key() == ("from-env-0123456789", "ANTHROPIC_API_KEY")
    assert keys.find_key("from-flag-0123456789") == ("from-flag-0123456789", "--api-key")
    assert keys.find_key("  ") == ("from-env-0123456789", "ANTHROPIC_API_KEY")


def test_save_read_back_and_clear(use_backend: Any) -> None:
    ring = use_backend(MemoryKeyring())
    assert keys.save_key(KEY).endswith("MemoryKeyring")
    assert ring.items == {("loreline", "anthropic"): KEY}
    assert keys.stored_key() == KEY
    assert keys.clear_key() is True and keys.clear_key() is False and ring.items == {}


@pytest.mark.parametrize("backend", [keyring.backends.fail.Keyring(), keyring.backends.null.Keyring(),
                                     _plaintext_class()()], ids=["fail", "null", "plaintext-file"])
def test_anything_but_an_os_keyring_is_refused_with_the_alternatives(use_backend: Any, backend: Any) -> None:
    use_backend(backend)
    with pytest.raises(KeyringUnavailableError) as caught:
        keys.save_key(KEY)
    message = str(caught.value)
    assert "\n" not in message and "ANTHROPIC_API_KEY" in message and "--api-key" in message
    assert "Secret Service" in message and "macOS Keychain" in message and "Windows Credential Locker" in message
    assert keys.find_key() is None  # looking for a key is not an error
    if isinstance(backend, MemoryKeyring):
        assert backend.items == {}  # nothing went to the plaintext file


def test_a_failing_keyring_is_one_clear_error_and_no_key(use_backend: Any) -> None:
    use_backend(LockedKeyring())
    with pytest.raises(KeyringUnavailableError, match="LockedKeyring.*failed: RuntimeError"):
        keys.stored_key()
    assert keys.find_key() is None


def test_mask_shows_only_a_prefix_and_the_last_four() -> None:
    assert keys.mask(KEY) == "sk-ant-…wxyz"
    assert keys.mask("abcdefghijklmnop1234") == "…1234"
    assert keys.mask("short") == "…"


def _cli(home: Path, *args: str, stdin: str = "", **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(VENV_BIN / "loreline"), *args], input=stdin, capture_output=True, text=True,
                          timeout=120, env=subprocess_env(home, **env))


def test_cli_refuses_to_store_without_a_keyring_and_never_echoes_the_key(loreline_home: Path) -> None:
    result = _cli(loreline_home, "auth", "set", stdin=KEY + "\n", PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring")
    assert result.returncode == 1 and result.stderr.count("\n") == 1
    assert result.stderr.startswith("loreline: no usable OS keyring")
    assert KEY not in result.stdout + result.stderr
    status = _cli(loreline_home, "auth", "status", ANTHROPIC_API_KEY=KEY,
                  PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring")
    assert status.returncode == 0 and "sk-ant-…wxyz from ANTHROPIC_API_KEY" in status.stdout
    assert KEY not in status.stdout + status.stderr


SERVER_KEY = "sk-local-server-0123456789abcd"


def test_the_servers_key_is_its_own_secret_environment_first(use_backend: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    ring = use_backend(MemoryKeyring())
    assert keys.find_server_key() is None
    keys.save_key(KEY)
    assert keys.find_server_key() is None  # the Anthropic key is not the server's
    keys.save_secret(keys.SERVER_KEY, SERVER_KEY)
    assert ring.items[("loreline", "openai-compatible")] == SERVER_KEY
    assert keys.find_server_key() == (SERVER_KEY, "the OS keyring")
    monkeypatch.setenv("LORELINE_OPENAI_API_KEY", "from-env-0123456789")
    assert keys.find_server_key() == ("from-env-0123456789", "LORELINE_OPENAI_API_KEY")
    assert keys.clear_secret(keys.SERVER_KEY) is True and keys.clear_secret(keys.SERVER_KEY) is False
    assert ("loreline", "anthropic") in ring.items


def test_cli_keeps_the_servers_key_apart_and_never_echoes_it(loreline_home: Path) -> None:
    refused = _cli(loreline_home, "auth", "set", "--for", "openai-compatible", stdin=SERVER_KEY + "\n",
                   PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring")
    assert refused.returncode == 1 and "the OpenAI-compatible server's key" in refused.stderr
    assert "LORELINE_OPENAI_API_KEY" in refused.stderr and SERVER_KEY not in refused.stdout + refused.stderr
    status = _cli(loreline_home, "auth", "status", "--for", "openai-compatible", LORELINE_OPENAI_API_KEY=SERVER_KEY,
                  PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring")
    assert status.returncode == 0 and "…abcd from LORELINE_OPENAI_API_KEY" in status.stdout
    assert SERVER_KEY not in status.stdout + status.stderr


# ---- the real Secret Service ----------------------------------------------------------------

NEEDS = ("dbus-run-session", "gnome-keyring-daemon", "secret-tool")


def _require_secret_service() -> None:
    missing = [tool for tool in NEEDS if shutil.which(tool) is None]
    if missing:
        reason = (f"the real keyring test needs {', '.join(missing)} (apt-get install gnome-keyring dbus dbus-x11 "
                  "libsecret-tools; .ci/run does it)")
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)


def _files_containing(root: Path, needle: bytes) -> list[str]:
    hits = []
    for path in root.rglob("*"):
        if path.is_file() and not path.is_symlink():
            try:
                if needle in path.read_bytes():
                    hits.append(str(path))
            except OSError:
                pass
    return hits


@pytest.mark.keyring
def test_real_secret_service_stores_the_key_and_imports_use_it(
        tmp_path: Path, fake_anthropic: FakeAnthropic) -> None:
    _require_secret_service()
    user_home, lore_home = tmp_path / "home", tmp_path / "lore"
    user_home.mkdir()
    session = ClaudeSession(str(tmp_path / "proj"))
    line = session.user("In this repo we use pnpm, never npm.")
    transcript = session.write(tmp_path / "s.jsonl")
    fake_anthropic.enqueue(FakeAnthropic.tool("record_memories", {"memories": [
        {"kind": "preference", "text": "The repo installs packages with pnpm, never npm.",
         "evidence": [{"line": line, "quote": "we use pnpm, never npm"}]}]}))
    loreline = VENV_BIN / "loreline"
    script = (
        "printf pass | gnome-keyring-daemon --unlock --components=secrets >/dev/null || exit 90\n"
        f"'{loreline}' auth set || exit 91\n"
        "echo '--- status'\n"
        f"'{loreline}' auth status || exit 92\n"
        "echo '--- secret-tool'\n"
        "secret-tool lookup service loreline username anthropic | wc -c\n"
        "echo '--- import'\n"
        f"'{loreline}' import sessions --path '{transcript}' || exit 93\n"
        "echo '--- clear'\n"
        f"'{loreline}' auth clear || exit 94\n"
        f"'{loreline}' auth status >/dev/null && exit 95\n"
        "exit 0\n"
    )
    env = subprocess_env(lore_home, HOME=str(user_home), ANTHROPIC_BASE_URL=fake_anthropic.url)
    for name in ("PYTHON_KEYRING_BACKEND", "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR"):
        env.pop(name, None)
    result = subprocess.run(["dbus-run-session", "--", "sh", "-c", script], input=KEY + "\n", capture_output=True,
                            text=True, timeout=120, env=env)
    out = result.stdout
    assert result.returncode == 0, (result.returncode, out, result.stderr)
    assert "in the OS keyring (keyring.backends.SecretService.Keyring)" in out
    assert "sk-ant-…wxyz from the OS keyring" in out
    assert out.split("--- secret-tool\n")[1].split("\n")[0].strip() == str(len(KEY))
    assert "Imported 1 session with the anthropic backend" in out and "added 1" in out
    # the distill call and the brief's both use the key from the keyring
    assert [r.api_key for r in fake_anthropic.requests] == [KEY, KEY]
    assert "Removed the Anthropic API key from the OS keyring." in out.split("--- clear\n")[1]
    assert KEY not in out + result.stderr
    assert _files_containing(user_home, KEY.encode()) == []
    assert _files_containing(lore_home, KEY.encode()) == []
    assert sys.platform.startswith("linux")
