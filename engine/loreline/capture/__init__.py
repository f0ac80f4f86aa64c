"""Capture scope, capture settings and the spool format: shared by the hook and the worker.

Import-light by contract: the hook entry imports this module on every assistant turn, so it
uses the standard library only (`tomllib` is imported only when a config file exists) and
never imports the store, orjson or a model SDK.

Settings live in the `[capture]` table of the config file (`home.config_path()`):

    mode = "all"                 # or "allowlist": capture only the folders in `include`
    exclude = ["~/clients/acme"] # never captured (a folder and everything under it; globs allowed)
    include = []                 # the allowlist, used when mode = "allowlist"
    session_start_chars = 4000   # size of the memory block SessionStart injects (max 9,500)
    min_prompts = 2              # background capture skips sessions with fewer prompts (0: none)
    min_idle_minutes = 0         # ...and waits for a session that has not ended to be idle this long
    spool_max_mb = 50            # past this the hook drops events, counting each drop
    failed_retention_days = 7    # a failed job's raw hook text is deleted after this many days
    max_attempts = 3             # a job that fails this often is marked failed
    reconcile_tries = 5          # times a job waits for the transcript to catch up with the hook

Invariants:
- `LORELINE_OFF=1` in the environment wins over everything: nothing is captured, injected or
  read from the store; the hook only records the session id as paused (`capture.paused`),
  so no later import learns from the session.
- An excluded folder wins over an included one.
- A config file that exists but cannot be read or parsed means "capture nothing" (the hook
  logs one line) rather than "capture everything": a broken exclusion must not leak.

Spool file: one JSON object per event, written to `home.spool_dir()` as a dot-prefixed temp
file and renamed to `<received ns>-<pid>-<random>.json` (so a name sorts by arrival and is
unique); see `RECORD_FIELDS`. The file name is the event's identity: the worker records the
names it has ingested so a crash between its commit and the file's deletion re-ingests nothing.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from .. import home
from ..errors import ConfigError

TYPE_CHECKING = False  # the typing module costs milliseconds the hook does not have
if TYPE_CHECKING:
    from typing import Any

RECORD_VERSION = 1
SPOOL_SUFFIX = ".json"
TMP_PREFIX = ".tmp-"
MAX_MESSAGE_BYTES = 8 * 1024
MAX_FIELD_CHARS = 4096
MAX_RECORD_BYTES = 16 * 1024
MAX_CONTEXT_CHARS = 9_500
#: the assistants whose hooks write spool records (`loreline.assistants` names; kept literal:
#: the hook cannot afford importing the registry)
TOOLS = ("claude-code", "codex", "gemini")
#: what a spool record holds; nothing else of the hook's input is kept
RECORD_FIELDS = ("v", "event", "tool", "session_id", "transcript_path", "cwd", "received_at",
                 "last_assistant_message", "message_truncated", "extra")

#: how the note of a session background capture skipped as short starts (`capture.min_prompts`)
SHORT_SESSION = "short session"

_OFF_VALUES = ("1", "true", "yes", "on")
_GLOB_CHARS = ("*", "?", "[")


class Settings:
    """The `[capture]` settings with their defaults (a plain class: no dataclasses import)."""

    __slots__ = ("mode", "exclude", "include", "session_start_chars", "spool_max_mb",
                 "failed_retention_days", "max_attempts", "reconcile_tries", "review", "prompt_recall",
                 "warm_minutes", "min_prompts", "min_idle_minutes")

    def __init__(self) -> None:
        self.mode = "all"
        self.exclude: tuple[str, ...] = ()
        self.include: tuple[str, ...] = ()
        self.session_start_chars = 4000
        self.spool_max_mb = 50
        self.failed_retention_days = 7
        self.max_attempts = 3
        self.reconcile_tries = 5
        #: "ask": what background capture learns waits in the review inbox (held) until approved
        self.review = "auto"
        #: how UserPromptSubmit chooses: "meaning" (the warm recall process, words until it is up),
        #: "words" (lexical only, no background process) or "off"
        self.prompt_recall = "meaning"
        #: minutes the warm recall process stays after the last prompt it answered
        self.warm_minutes = 30
        #: background capture skips a session with fewer prompts (explicit imports do not)
        self.min_prompts = 2
        #: background capture waits until a session that has not ended was idle this long
        self.min_idle_minutes = 0

    @property
    def spool_max_bytes(self) -> int:
        return self.spool_max_mb * 1024 * 1024


#: whole-number keys and their minimum (the same rules as `config.SCHEMA`)
_INT_KEYS = {"session_start_chars": 0, "spool_max_mb": 1, "failed_retention_days": 0, "max_attempts": 1,
             "reconcile_tries": 0, "warm_minutes": 1, "min_prompts": 0, "min_idle_minutes": 0}
PROMPT_RECALL = ("meaning", "words", "off")


def load_settings(path: Path | None = None) -> Settings:
    """The capture settings; defaults when the file does not exist, ConfigError when it is bad."""
    path = path or home.config_path()
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return Settings()
    except OSError as err:
        raise ConfigError(f"cannot read {path}: {err.strerror or err}") from None
    import tomllib

    try:
        table = tomllib.loads(raw.decode("utf-8")).get("capture", {})
    except UnicodeDecodeError as err:
        raise ConfigError(f"the config file {path} is not UTF-8 text (byte {err.start}); fix or remove it") from None
    except tomllib.TOMLDecodeError as err:
        from ..config import invalid_toml  # the error path only: the same words as every command

        raise invalid_toml(path, str(err)) from None
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [capture] must be a table")
    return _settings_from(table, path)


def load_settings_cached(path: Path | None = None) -> Settings:
    """`load_settings()` for the hook: the `[capture]` table is kept as JSON in the state dir,
    keyed by the config file's identity (size, mtime, inode), so `tomllib` (several
    milliseconds) is imported only after the file changed."""
    path = path or home.config_path()
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return Settings()
    except OSError:
        return load_settings(path)
    key = [str(path), info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino]
    cache = home.state_dir() / "capture-settings.json"
    import json

    try:
        saved = json.loads(cache.read_bytes())
        if saved.get("key") == key and isinstance(saved.get("capture"), dict):
            return _settings_from(saved["capture"], path)
    except (OSError, ValueError, ConfigError):
        pass
    settings = load_settings(path)
    _save_cache(cache, {"key": key, "capture": _table(settings)})
    return settings


def _table(settings: Settings) -> dict[str, Any]:
    return {name: list(value) if isinstance(value, tuple) else value
            for name in Settings.__slots__ if (value := getattr(settings, name)) is not None}


def _save_cache(cache: Path, data: dict[str, Any]) -> None:
    import json

    try:
        home.write_private(cache, json.dumps(data))
    except OSError:
        pass


def _settings_from(table: dict[str, Any], path: Path) -> Settings:
    settings = Settings()
    mode = table.get("mode", settings.mode)
    if mode not in ("all", "allowlist"):
        raise ConfigError(f"{path}: capture.mode must be \"all\" or \"allowlist\", not {mode!r}")
    settings.mode = mode
    review = table.get("review", settings.review)
    if review not in ("auto", "ask"):
        raise ConfigError(f"{path}: capture.review must be \"auto\" or \"ask\", not {review!r}")
    settings.review = review
    prompt_recall = table.get("prompt_recall", settings.prompt_recall)
    if prompt_recall not in PROMPT_RECALL:
        raise ConfigError(f"{path}: capture.prompt_recall must be one of {', '.join(PROMPT_RECALL)}, "
                          f"not {prompt_recall!r}")
    settings.prompt_recall = prompt_recall
    for key in ("exclude", "include"):
        value = table.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{path}: capture.{key} must be a list of folder paths")
        setattr(settings, key, tuple(value))
    for key, low in _INT_KEYS.items():
        value = table.get(key, getattr(settings, key))
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise ConfigError(f"{path}: capture.{key} must be a whole number of at least {low}")
        setattr(settings, key, value)
    settings.session_start_chars = min(settings.session_start_chars, MAX_CONTEXT_CHARS)
    return settings


def opted_out(environ: dict[str, str] | os._Environ[str] | None = None) -> bool:
    """True when `LORELINE_OFF` asks for no capture in this session."""
    value = (environ if environ is not None else os.environ).get("LORELINE_OFF", "")
    return value.strip().lower() in _OFF_VALUES


def prompt_recall(settings: Settings, environ: dict[str, str] | os._Environ[str] | None = None) -> str:
    """How this session's prompt hook chooses: `LORELINE_PROMPT_RECALL` (meaning, words or off)
    when set to one of those, else `capture.prompt_recall`."""
    value = (environ if environ is not None else os.environ).get("LORELINE_PROMPT_RECALL", "").strip().lower()
    return value if value in PROMPT_RECALL else settings.prompt_recall


def captured(settings: Settings, cwd: str | None) -> bool:
    """Whether a session working in `cwd` is in the capture scope."""
    folder = _norm(cwd) if cwd else None
    if folder is not None and any(_under(folder, entry) for entry in settings.exclude):
        return False
    if settings.mode == "allowlist":
        return folder is not None and any(_under(folder, entry) for entry in settings.include)
    return True


def _norm(path: str) -> str:
    return os.path.realpath(os.path.expanduser(path))


def _under(folder: str, entry: str) -> bool:
    """`folder` is `entry` or inside it; an entry with glob characters matches any ancestor."""
    if any(c in entry for c in _GLOB_CHARS):
        from fnmatch import fnmatch

        pattern = os.path.expanduser(entry)
        probe = folder
        while True:
            if fnmatch(probe, pattern):
                return True
            parent = os.path.dirname(probe)
            if parent == probe:
                return False
            probe = parent
    target = _norm(entry)
    return folder == target or folder.startswith(target.rstrip(os.sep) + os.sep)


def spool_name(received_ns: int, pid: int, token: str) -> str:
    return f"{received_ns:020d}-{pid}-{token}{SPOOL_SUFFIX}"


def is_spool_name(name: str) -> bool:
    return name.endswith(SPOOL_SUFFIX) and not name.startswith(".")


def worker_lock_path() -> Path:
    """The lock one draining worker holds for its whole run (hook, CLI and editor share it)."""
    return home.data_dir() / "worker.lock"


def dropped_counter_path() -> Path:
    """One byte is appended per event the hook dropped because the spool was over its cap."""
    return home.state_dir() / "capture-dropped"


def hook_error_log_path() -> Path:
    return home.state_dir() / "hook-errors.log"


def dropped_count() -> int:
    try:
        return dropped_counter_path().stat().st_size
    except OSError:
        return 0


def utc_stamp(seconds: float) -> str:
    """The time stamps of capture (`received_at`): UTC, milliseconds, `Z`."""
    millis = int(seconds * 1000) % 1000
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{millis:03d}Z"
