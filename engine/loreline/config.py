"""Settings: one TOML file at `home.config_path()`, typed keys with defaults.

`SCHEMA` maps every dotted key (`distill.model`) to its type, default and help; it is
the only list of settings, and a module that needs a new one adds it with `define()`. This
module defines Loreline's own settings; the assistants contribute theirs (their login
backends' CLI and model, `Assistant.settings`) and the assistant registry, above both,
defines them and the distillation backend (`distill.backend`, whose choices and `auto` order
are the assistants'). This module imports no assistant.

Invariants:
- reading never fails on a key the schema does not know (a newer Loreline may have
  written it, or it is a typo): it is kept in the file and ignored, and `unknown()` names
  it with the closest known key so each front end can say so once; a known key with a
  value of the wrong type is a ConfigError naming the key, the file and the fix;
- a file that is not valid TOML is one ConfigError, worded the same wherever it is read
  (`invalid_toml`): the file, the line and column, the parser's reason;
- `set_value()` and `unset()` edit the file with tomlkit, so comments, order and unknown
  keys survive;
  the write is atomic (temp file + rename) and the file is private (0600);
- no secret is ever a setting: the API key lives in the OS keyring (`keys`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, MutableMapping
from pathlib import Path

from . import home
from .errors import ConfigError
from .records import field, record

TYPE_CHECKING = False  # typing is left to the type checker: the everyday commands import none of it
if TYPE_CHECKING:
    from typing import Any

Value = str | int | float | bool

HEADER = "Loreline settings. `loreline config list` shows every key with its help."


@record
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


define("embed.model", Setting(str, "minilm", "embedder for the vector half of recall: minilm (the bundled "
                                        "sentence model, by meaning), hashing (by spelling, no model) or "
                                        "static (the wordllama wheel's word-piece table, if installed); "
                                        "after a change run `loreline reembed`",
                              choices=("minilm", "hashing", "static")))
define("distill.model", Setting(str, "claude-haiku-4-5", "Claude model used to distill memories"))
define("distill.rules_suggest", Setting(bool, True, "the offline rules store only standing instructions, "
                                       "answers and rejection reasons active; the rest waits in `loreline review` as "
                                       "suggestions (false: everything they find is active)"))
define("distill.base_url", Setting(str, "", "Messages API endpoint; empty means $ANTHROPIC_BASE_URL, "
                                   "else https://api.anthropic.com"))
define("distill.openai_base_url", Setting(str, "", "OpenAI-compatible server for the openai-compatible backend "
                                          "(Ollama http://127.0.0.1:11434/v1, LM Studio :1234/v1, llama.cpp :8080/v1, "
                                          "vLLM :8000/v1); empty means $LORELINE_OPENAI_BASE_URL", secret_free=True))
define("distill.openai_model", Setting(str, "", "model the openai-compatible backend asks for (e.g. qwen2.5:7b); "
                                       "empty means $LORELINE_OPENAI_MODEL"))
define("distill.max_output_tokens", Setting(int, 4096, "most tokens one distillation answer may use", minimum=256))
define("distill.timeout_seconds", Setting(float, 90.0, "seconds to wait for one model answer", minimum=0.05))
define("distill.max_retries", Setting(int, 4, "retries (the SDK's, with backoff) after 408/429/5xx/timeouts before the work is deferred",
                                      minimum=0))
define("distill.retry_max_seconds", Setting(float, 30.0, "longest single wait between retries (a longer "
                                            "retry-after defers the work instead)", minimum=0.0))
define("limits.daily_unattended_calls", Setting(int, 100, "model calls per day that background capture may "
                                                "make; beyond it work is deferred to the next day", minimum=0))
define("limits.daily_unattended_tokens", Setting(int, 600_000, "tokens per day (input, cache and output) that "
                                                 "background capture may spend; a call that would go past it waits "
                                                 "for the next day", minimum=0))
define("capture.mode", Setting(str, "all", "which projects the hooks capture: all (minus the capture.exclude "
                               "folders) or allowlist (only the capture.include folders); edit both lists in the file",
                               choices=("all", "allowlist")))
define("capture.review", Setting(str, "auto", "auto: what background capture learns is used at once; ask: it "
                                 "waits in the review inbox (loreline review, the editor's Inbox) until approved",
                                 choices=("auto", "ask")))
define("capture.session_start_chars", Setting(int, 4000, "most characters of memories SessionStart injects "
                                              "(at most 9500)", minimum=0))
define("brief.model_rewrite", Setting(str, "daily", "when a model rewrites the project brief: daily (once per day "
                                     "of sessions; in between its lines are kept while they hold and the rules add "
                                     "what is new) or always (after every import that changed the memories)",
                                     choices=("daily", "always")))
define("brief.max_tokens", Setting(int, 900, "most tokens (characters / 4) of the project brief SessionStart "
                                   "gives; it holds at most 15 lines either way", minimum=100))
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
define("capture.min_prompts", Setting(int, 2, "background capture skips a session with fewer prompts than this "
                                      "(an explicit `loreline import sessions` takes it)", minimum=0))
define("capture.min_idle_minutes", Setting(int, 0, "background capture waits until a session that has not ended "
                                           "has been idle this long (0: imports after every turn's event)",
                                           minimum=0))
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

#: keys the file may hold that `config set` does not write (lists of folders, edited by hand)
HAND_EDITED = ("capture.exclude", "capture.include")


@record
class Unknown:
    """A key or a whole table in the file that no setting defines (a typo, or a newer version's)."""

    key: str
    table: bool
    #: the closest known key (or table), when one is close enough
    suggestion: str | None

    def line(self, path: Path) -> str:
        what = f"table [{self.key}]" if self.table else f"key {self.key}"
        known = f"[{self.suggestion}]" if self.table else self.suggestion
        hint = f"; did you mean {known}?" if self.suggestion else ""
        return f"{path}: unknown {what}{hint} (ignored; `loreline config unset {self.key}` removes it)"


@record
class Config:
    """The values the file sets (validated); everything else takes its default. A key no
    setting defined yet when the file was read (one an assistant contributes, defined when
    the registry is first imported) is kept as read in `later`, and checked when it is asked for."""

    path: Path
    values: Mapping[str, Value]
    later: Mapping[str, Any] = field(default_factory=dict)

    def get(self, key: str) -> Value:
        setting = lookup(key)
        if key in self.values:
            return self.values[key]
        if key in self.later:
            return _checked(key, self.later[key], self.path)
        return setting.default

    def source(self, key: str) -> str:
        lookup(key)
        return "file" if key in self.values or key in self.later else "default"

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
        close = _close(key, SCHEMA, 3)
        hint = f" (did you mean {' or '.join(close)}?)" if close else ""
        raise ConfigError(f"unknown config key {key!r}{hint}; `loreline config list` shows every key") from None


def load(path: Path | None = None) -> Config:
    """Read and validate the config file; a missing file means all defaults."""
    path = path or home.config_path()
    values: dict[str, Value] = {}
    later: dict[str, Any] = {}
    for key, raw in _flatten(_read_plain(path)).items():
        if key in SCHEMA:
            values[key] = _checked(key, raw, path)
        else:
            later[key] = raw
    return Config(path, values, later)


def unknown(path: Path | None = None, schema: Mapping[str, Setting] | None = None) -> list[Unknown]:
    """What the file holds that no setting defines: a table no setting lives in once (not each
    of its keys), else each unknown key; a ConfigError when the file cannot be
    read or is not valid TOML. Uses the standard library's parser (a front end calls this at
    start-up). `schema`: the settings known (default: those defined so far; the registry's
    `schema()` holds the assistants' too)."""
    path = path or home.config_path()
    try:
        raw = path.read_bytes()
    except (FileNotFoundError, NotADirectoryError):  # no file (or no folder): every default
        return []
    except OSError as err:
        raise ConfigError(f"cannot read the config file {path}: {err.strerror or err}") from None
    import tomllib

    try:
        table = tomllib.loads(_text(path, raw))
    except tomllib.TOMLDecodeError as err:
        raise invalid_toml(path, str(err)) from None
    known = set(SCHEMA if schema is None else schema) | set(HAND_EDITED)
    sections = {key.rsplit(".", 1)[0] for key in known}
    found: list[Unknown] = []
    for key, empty_table in _paths(table):
        if key in known or key in sections:
            continue
        parts = key.split(".")
        prefixes = (".".join(parts[:depth]) for depth in range(1, len(parts) + empty_table))
        table_name = next((prefix for prefix in prefixes if prefix not in sections), None)
        if table_name is None:
            found.append(Unknown(key, False, next(iter(_close(key, sorted(known), 1)), None)))
        elif not any(u.table and u.key == table_name for u in found):
            others = sorted(s for s in sections if not table_name.startswith(s + "."))  # not its own parent
            found.append(Unknown(table_name, True, next(iter(_close(table_name, others, 1)), None)))
    return found


def invalid_toml(path: Path, reason: str, line: int | None = None, column: int | None = None) -> ConfigError:
    """The one error for a config file that does not parse: the file, where, and why. `reason`
    may carry the standard parser's own "(at line L, column C)" tail; it is moved to the front."""
    where = _AT.search(reason)
    at = ""
    if where:
        reason = reason[:where.start()].rstrip()
        if where.group("line"):
            line, column = int(where.group("line")), int(where.group("column"))
        else:
            at = " at the end of the file"
    if line is not None:
        at = f" at line {line}, column {column}"
    return ConfigError(f"the config file {path} is not valid TOML{at}: {reason[:1].lower() + reason[1:]}; "
                       "fix or remove it (nothing else was read or changed)")


_AT = re.compile(r"\s*\((?:at line (?P<line>\d+), column (?P<column>\d+)|at end of document)\)\s*$")


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


def unset(key: str, path: Path | None = None) -> bool:
    """Remove one key (or an unknown table) from the file, keeping its comments and order; a
    table left empty goes too, unless it holds comments. False when the file does not set it; a ConfigError for a key
    that is neither known nor in the file."""
    path = path or home.config_path()
    doc = _read(path)
    *sections, name = key.split(".")
    table: Any = doc
    for part in sections:
        table = table.get(part) if isinstance(table, Mapping) else None
    if not isinstance(table, MutableMapping) or name not in table:
        if key not in SCHEMA and key not in HAND_EDITED:
            lookup(key)  # raises, naming close matches
        return False
    if isinstance(table[name], Mapping) and any(k.startswith(key + ".") for k in (*SCHEMA, *HAND_EDITED)):
        raise ConfigError(f"[{key}] is a table of settings; unset its keys one at a time (`loreline config list` "
                          "shows them)")
    del table[name]
    for depth in range(len(sections), 0, -1):  # drop tables the removal emptied, innermost first
        parent: Any = doc
        for part in sections[:depth - 1]:
            parent = parent[part]
        inner = parent[sections[depth - 1]]
        if isinstance(inner, Mapping) and not inner and not _has_comments(inner):
            del parent[sections[depth - 1]]
    _write(path, doc.as_string())
    return True


def _has_comments(table: Any) -> bool:
    from tomlkit.items import Comment

    body = getattr(table, "value", table)
    return any(isinstance(item, Comment) for _, item in getattr(body, "body", ()))


def _read_plain(path: Path) -> dict[str, Any]:
    """The file as plain values, read with the standard library's tomllib: every command reads
    the settings, and tomlkit (which keeps comments for `set_value`) costs ~25 ms to import."""
    try:
        raw = path.read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        return {}
    except OSError as err:
        raise ConfigError(f"cannot read the config file {path}: {err.strerror or err}") from None
    import tomllib  # here: without a file there is nothing to parse

    try:
        return tomllib.loads(_text(path, raw))
    except tomllib.TOMLDecodeError as err:
        raise invalid_toml(path, str(err)) from None


def _read(path: Path) -> Any:
    import tomlkit
    from tomlkit.exceptions import ParseError

    try:
        text = _text(path, path.read_bytes())
    except (FileNotFoundError, NotADirectoryError):
        return tomlkit.document()
    except OSError as err:
        raise ConfigError(f"cannot read the config file {path}: {err.strerror}") from None
    try:
        return tomlkit.parse(text)
    except ParseError as err:
        raise _parse_error(path, text, err) from None


def _parse_error(path: Path, text: str, err: Any) -> ConfigError:
    """The same words as `unknown()` uses: the standard parser's reason when it also refuses."""
    import tomllib

    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError as std:
        return invalid_toml(path, str(std))
    return invalid_toml(path, str(err).split(" at line ")[0], getattr(err, "line", None), getattr(err, "col", None))


def _text(path: Path, raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ConfigError(f"the config file {path} is not UTF-8 text (byte {err.start}); fix or remove it") from None


def _close(word: str, among: Any, n: int) -> list[str]:
    import difflib

    return difflib.get_close_matches(word, among, n=n, cutoff=0.6)


def _write(path: Path, text: str) -> None:
    """Replace the config file (through a symlink to the file it names) as a 0600 file."""
    try:
        home.write_private(Path(os.path.realpath(path)), text)
    except OSError as err:
        raise ConfigError(f"cannot write the config file {path}: {err.strerror or err}; nothing was changed") \
            from None


def _paths(table: Mapping[str, Any], prefix: str = "") -> list[tuple[str, bool]]:
    """Every value's dotted key, and every empty table's name (marked True)."""
    out: list[tuple[str, bool]] = []
    for name, value in table.items():
        key = f"{prefix}{name}"
        if isinstance(value, Mapping):
            out.extend(_paths(value, key + ".") or [(key, True)])
        else:
            out.append((key, False))
    return out


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
