"""Settings: one TOML file at `home.config_path()`, typed keys with defaults.

`SCHEMA` maps every dotted key (`distill.model`) to its type, default and help; it is
the only list of settings, and a module that needs a new one adds it with `define()`.

Invariants:
- reading never fails on a key the schema does not know (a newer Loreline may have
  written it): it is kept in the file and ignored; a known key with a value of the wrong
  type is a ConfigError naming the key, the file and the fix;
- `set_value()` edits the file with tomlkit, so comments, order and unknown keys survive;
  the write is atomic (temp file + rename) and the file is private (0600);
- no secret is ever a setting: the API key lives in the OS keyring (`keys`).
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import home
from .errors import ConfigError

Value = str | int | float | bool

HEADER = "Loreline settings. `loreline config list` shows every key with its help."


@dataclass(frozen=True, slots=True)
class Setting:
    type: type
    default: Value
    help: str
    choices: tuple[str, ...] = ()
    minimum: float | None = None
    #: a string setting that must never hold a secret (a password inside a connection string)
    secret_free: bool = False


SCHEMA: dict[str, Setting] = {}


def define(key: str, setting: Setting) -> None:
    """Add a setting; defining one key twice differently is a programming error."""
    if key in SCHEMA and SCHEMA[key] != setting:
        raise ValueError(f"config key {key} is already defined differently")
    if "." not in key:
        raise ValueError(f"config key {key} needs a section (section.name)")
    SCHEMA[key] = setting


define("distill.backend", Setting(str, "auto", "distiller: auto (an API key if one is configured, else a "
                                  "logged-in Claude Code, else rules), anthropic, claude-code, or rules (offline)",
                                  choices=("auto", "anthropic", "claude-code", "rules")))
define("embed.model", Setting(str, "minilm", "embedder for the vector half of recall: minilm (the bundled "
                                        "sentence model, by meaning), hashing (by spelling, no model) or "
                                        "static (the wordllama wheel's word-piece table, if installed); "
                                        "after a change run `loreline reembed`",
                              choices=("minilm", "hashing", "static")))
define("distill.model", Setting(str, "claude-haiku-4-5", "Claude model used to distill memories"))
define("distill.claude_code_model", Setting(str, "claude-haiku-4-5", "model the claude-code backend asks "
                                            "Claude Code for (a full name or an alias such as haiku)"))
define("distill.claude_path", Setting(str, "", "the `claude` CLI the claude-code backend drives; empty means "
                                      "`claude` on PATH"))
define("distill.base_url", Setting(str, "", "Messages API endpoint; empty means $ANTHROPIC_BASE_URL, "
                                   "else https://api.anthropic.com"))
define("distill.max_output_tokens", Setting(int, 4096, "most tokens one distillation answer may use", minimum=256))
define("distill.timeout_seconds", Setting(float, 90.0, "seconds to wait for one model answer", minimum=0.05))
define("distill.max_retries", Setting(int, 4, "retries (the SDK's, with backoff) after 408/429/5xx/timeouts before the work is deferred",
                                      minimum=0))
define("distill.retry_max_seconds", Setting(float, 30.0, "longest single wait between retries (a longer "
                                            "retry-after defers the work instead)", minimum=0.0))
define("limits.daily_unattended_calls", Setting(int, 100, "model calls per day that background capture may "
                                                "make; beyond it work is deferred to the next day", minimum=0))
define("capture.mode", Setting(str, "all", "which projects the hooks capture: all (minus the capture.exclude "
                               "folders) or allowlist (only the capture.include folders); edit both lists in the file",
                               choices=("all", "allowlist")))
define("capture.review", Setting(str, "auto", "auto: what background capture learns is used at once; ask: it "
                                 "waits in the review inbox (loreline review, the editor's Inbox) until approved",
                                 choices=("auto", "ask")))
define("capture.session_start_chars", Setting(int, 4000, "most characters of memories SessionStart injects "
                                              "(at most 9500)", minimum=0))
define("capture.spool_max_mb", Setting(int, 50, "spool size past which hook events are dropped and counted",
                                       minimum=1))
define("capture.failed_retention_days", Setting(int, 7, "days a failed capture job keeps the raw text its hook "
                                                "queued", minimum=0))
define("capture.max_attempts", Setting(int, 3, "failed attempts before a capture job is marked failed", minimum=1))
define("capture.reconcile_tries", Setting(int, 5, "waits for a lagging transcript before importing what it has",
                                          minimum=0))
define("capture.prompt_recall", Setting(str, "meaning", "how the prompt hook picks memories for each prompt: "
                                        "meaning (a background process keeps the sentence model loaded; by "
                                        "words until it is up), words (lexical only, no background process) "
                                        "or off", choices=("meaning", "words", "off")))
define("capture.warm_minutes", Setting(int, 30, "minutes the background recall process stays after the last "
                                       "prompt it answered", minimum=1))
TEAM_SHARE_POLICIES = ("approved", "pinned", "all")
define("team.dsn", Setting(str, "", "the team's PostgreSQL (pgvector) server, without a password: "
                           "postgresql://user@host:5432/db (the password goes to the OS keyring)",
                           secret_free=True))
define("team.author", Setting(str, "", "your name as teammates see it on memories you share; empty means your "
                              "login name"))
define("team.remote", Setting(str, "", "the shared project id for projects without a git remote (a "
                              "repository's own `git config loreline.remote` wins)"))
define("team.share", Setting(str, "approved", "which project memories are published: approved (`loreline team "
                             "share ID`), pinned, or all active ones", choices=TEAM_SHARE_POLICIES))
define("team.sync_seconds", Setting(float, 60.0, "how often the background worker syncs with the team server "
                                    "(0 turns background sync off)", minimum=0.0))


@dataclass(frozen=True, slots=True)
class Config:
    """The values the file sets (validated); everything else takes its default."""

    path: Path
    values: Mapping[str, Value]

    def get(self, key: str) -> Value:
        setting = lookup(key)
        return self.values.get(key, setting.default)

    def source(self, key: str) -> str:
        lookup(key)
        return "file" if key in self.values else "default"

    def get_str(self, key: str) -> str:
        return str(self.get(key))

    def get_int(self, key: str) -> int:
        value = self.get(key)
        assert isinstance(value, int)
        return value

    def get_float(self, key: str) -> float:
        value = self.get(key)
        assert isinstance(value, (int, float))
        return float(value)

    def get_bool(self, key: str) -> bool:
        return bool(self.get(key))


def lookup(key: str) -> Setting:
    """The schema entry for `key`, or a ConfigError naming close matches."""
    try:
        return SCHEMA[key]
    except KeyError:
        close = difflib.get_close_matches(key, SCHEMA, n=3, cutoff=0.6)
        hint = f" (did you mean {' or '.join(close)}?)" if close else ""
        raise ConfigError(f"unknown config key {key!r}{hint}; `loreline config list` shows every key") from None


def load(path: Path | None = None) -> Config:
    """Read and validate the config file; a missing file means all defaults."""
    path = path or home.config_path()
    values: dict[str, Value] = {}
    for key, raw in _flatten(_read_plain(path)).items():
        if key in SCHEMA:
            values[key] = _checked(key, raw, path)
    return Config(path, values)


def parse_value(key: str, raw: str) -> Value:
    """Turn a command-line string into the key's type, or a ConfigError saying why not."""
    setting = lookup(key)
    text = raw.strip()
    value: Value
    try:
        if setting.type is bool:
            value = _parse_bool(text)
        elif setting.type is int:
            value = int(text)
        elif setting.type is float:
            value = float(text)
        else:
            value = raw
    except ValueError:
        raise ConfigError(f"{key} must be {_type_name(setting.type)}, not {raw!r}") from None
    _refuse_secret(key, setting, value)
    return _validated(key, setting, value)


def set_value(key: str, raw: str, path: Path | None = None) -> Value:
    """Set one key in the file, keeping its comments and order; returns the stored value."""
    import tomlkit

    path = path or home.config_path()
    value = parse_value(key, raw)
    doc = _read(path)
    if not path.exists():
        doc.add(tomlkit.comment(HEADER))
    *sections, name = key.split(".")
    table: Any = doc
    for part in sections:
        if part not in table:
            table[part] = tomlkit.table()
        table = table[part]
        if not isinstance(table, Mapping):
            raise ConfigError(f"{path}: {part!r} is a value, not a [{part}] table; fix the file by hand")
    table[name] = value
    _write(path, tomlkit.dumps(doc))
    return value


def _read_plain(path: Path) -> dict[str, Any]:
    """The file as plain values, read with the standard library's tomllib: every command reads
    the settings, and tomlkit (which keeps comments for `set_value`) costs ~25 ms to import."""
    import tomllib

    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as err:
        raise ConfigError(f"cannot read the config file {path}: {err.strerror}") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"the config file {path} is not valid TOML ({err}); fix or remove it") from None


def _read(path: Path) -> Any:
    import tomlkit
    from tomlkit.exceptions import ParseError

    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return tomlkit.document()
    except OSError as err:
        raise ConfigError(f"cannot read the config file {path}: {err.strerror}") from None
    try:
        return tomlkit.parse(text)
    except ParseError as err:
        raise ConfigError(f"the config file {path} is not valid TOML ({err}); fix or remove it") from None


def _write(path: Path, text: str) -> None:
    """Replace the config file (through a symlink to the file it names) as a 0600 file."""
    try:
        home.write_private(Path(os.path.realpath(path)), text)
    except OSError as err:
        raise ConfigError(f"cannot write the config file {path}: {err.strerror or err}; nothing was changed") \
            from None


def _flatten(table: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, value in table.items():
        key = f"{prefix}{name}"
        if isinstance(value, Mapping):
            out.update(_flatten(value, key + "."))
        else:
            out[key] = value
    return out


def _checked(key: str, raw: Any, path: Path) -> Value:
    setting = SCHEMA[key]
    ok = isinstance(raw, setting.type) and not (setting.type is not bool and isinstance(raw, bool))
    if setting.type is float and isinstance(raw, int) and not isinstance(raw, bool):
        raw, ok = float(raw), True
    if not ok:
        raise ConfigError(f"{path}: {key} must be {_type_name(setting.type)}, not {raw!r}; "
                          f"fix it with `loreline config set {key} VALUE`")
    try:
        return _validated(key, setting, raw)
    except ConfigError as err:
        raise ConfigError(f"{path}: {err}") from None


def _validated(key: str, setting: Setting, value: Value) -> Value:
    if setting.choices and value not in setting.choices:
        raise ConfigError(f"{key} must be one of {', '.join(setting.choices)}, not {value!r}")
    if setting.minimum is not None and isinstance(value, (int, float)) and value < setting.minimum:
        raise ConfigError(f"{key} must be at least {setting.minimum:g}, not {value!r}")
    return value


def _refuse_secret(key: str, setting: Setting, value: Value) -> None:
    """Checked when a value is set (a file that already holds one keeps loading; its user refuses it)."""
    if setting.secret_free and isinstance(value, str) and _HOLDS_PASSWORD.search(value):
        raise ConfigError(f"{key} holds a password; give it without one (Loreline keeps passwords in the OS "
                          "keyring, never in this file)")


_HOLDS_PASSWORD = re.compile(r"^[a-z]+://[^/@]*:[^/@]*@|(^|\s|[?&])password\s*=", re.IGNORECASE)


_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}


def _parse_bool(text: str) -> bool:
    lowered = text.lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ValueError(text)


def _type_name(kind: type) -> str:
    return {bool: "true or false", int: "an integer", float: "a number", str: "a string"}[kind]


def describe(value: Value) -> str:
    """A value as TOML would spell it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return repr(value)
