"""Installing Loreline's capture into other tools' settings (Claude Code, Codex, Gemini CLI).

Shared rules for every connector:
- merge, never replace: the user's other settings, hooks and comments stay as they were;
- exact ownership: every entry connect writes is recorded in a manifest in Loreline's state
  dir (`loreline.connect.manifest`, keyed by the settings file's real path). An entry is
  Loreline's only when it equals, as a whole command, one recorded there or the one this
  install builds now; a user's hook that merely mentions `loreline-hook` is never touched.
  So connecting twice changes nothing, a moved install is updated, and disconnecting removes
  exactly what connect added;
- safe writes: nothing is written when the existing file cannot be parsed (ConfigError
  naming it) or is read-only (one line, nothing changed); a symlinked file (absolute,
  relative, a chain) is written through to the file it names, so the link stays a link; the
  first change keeps one 0600 copy of the file as it was, in Loreline's state folder
  (`<state>/backups/`, named after the file's real path), never beside the user's files; the
  new file replaces the old atomically, with the old file's permissions, under a lock;
- nothing left behind: a settings file connect created is removed by disconnect when nothing
  but an empty object is left in it (`created_file`, `remove_if_created`), and so is an object
  connect created to hold its entries (`"mcpServers": {}`);
- the file as it was: connect keeps each file as it was before it first changed it and a
  fingerprint of what it wrote (`kept_original`); when nothing else changed the file in
  between, disconnect gives back those original bytes (`given_back`), provided they hold the
  same settings as the file with Loreline's entries taken out. When the person changed the
  file in between, only Loreline's entries are cut out of the text and every other character
  stays as it was (`jsonfile.rewritten`; TOML through tomlkit);
- the hook command is an absolute path (the installed `loreline-hook`, else this
  interpreter with `-m loreline_hooks.entry`), never a version-manager shim, which costs a
  hook ~90 ms per call.
"""

from __future__ import annotations

import os
import shutil
import stat
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .. import home
from ..errors import ConfigError
from ..records import record

BACKUP_FOLDER = "backups"
ORIGINALS_FOLDER = "originals"
#: the manifest's record of a file as it was before connect changed it (`kept_original`)
ORIGINAL_TOOL = "(original)"
#: the manifest's record of settings files connect created (`created_file`)
CREATED_TOOL = "(created)"
FILE_MARK = "(file)"
FOLDER_MARK = "(folder)"


@record
class Change:
    """What a connect or disconnect did to one file."""

    path: Path
    changed: bool
    backup: Path | None = None
    detail: str = ""


def hook_argv() -> list[str]:
    """The absolute command that runs the hook entry (without the event argument)."""
    found = installed_script("loreline-hook", allow_shim=False)
    return [found] if found else module_argv()


def installed_script(name: str, *, allow_shim: bool) -> str | None:
    """The absolute path of this install's console script `name`: the one beside the running
    interpreter, else the one on PATH (a version manager's shim only when `allow_shim`)."""
    exe = f"{name}.exe" if os.name == "nt" else name
    beside = Path(sys.executable).parent / exe
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    found = shutil.which(exe)
    if found and os.path.isabs(found) and (allow_shim or not _is_shim(found)):
        return found
    return None


def module_argv() -> list[str]:
    """This interpreter running the hook module; `-P` keeps the project (the hook's working
    directory) off `sys.path`, so a `json.py` or `loreline_hooks/` in a repository never runs."""
    return [os.path.abspath(sys.executable), "-P", "-m", "loreline_hooks.entry"]


def _is_shim(path: str) -> bool:
    parts = Path(path).parts
    return "shims" in parts or ".asdf" in parts


@contextmanager
def locked() -> Iterator[None]:
    """Serialise Loreline's edits of other tools' settings files (and of the manifest)."""
    from filelock import Timeout

    try:
        lock = home.private_lock(home.state_dir() / "connect.lock", timeout=30)
        lock.acquire()
    except Timeout:
        raise ConfigError("another `loreline connect` or `disconnect` held its lock for 30 s; "
                          "nothing was changed, try again") from None
    except OSError as err:
        raise ConfigError(f"cannot use Loreline's state folder {home.state_dir()} to record the change: "
                          f"{err.strerror or err}; nothing was changed") from None
    try:
        yield
    finally:
        lock.release()


def real_path(path: Path) -> Path:
    """The file a (possibly symlinked) settings path names: absolute and relative links and
    chains are followed; a dangling link names the file it would create."""
    return Path(os.path.realpath(path))


def backup_path(path: Path, folder: str = BACKUP_FOLDER) -> Path:
    """Where the one backup of the settings file `path` lives: Loreline's state folder, named
    after the file's real path (`/home/me/.claude/settings.json` ->
    `home%me%.claude%settings.json`)."""
    name = str(real_path(path)).strip(os.sep).replace("%", "%25").replace(os.sep, "%")
    return home.state_dir() / folder / name


def backup_once(path: Path) -> Path | None:
    """Copy `path`'s content (0600) into Loreline's state folder before Loreline first changes
    it; None when a copy exists or there is no file. At most one copy per file."""
    target = backup_path(path)
    if not path.exists() or target.exists():
        return None
    try:
        home.write_private(target, path.read_bytes())
    except OSError as err:
        raise ConfigError(f"cannot keep a backup of {path} in {target.parent} ({err.strerror or err}); "
                          "nothing was changed") from None
    return target


@contextmanager
def kept_original(*paths: Path) -> Iterator[None]:
    """Around a connect: each file as it was before connect first changed it (a 0600 copy in
    Loreline's state folder, or that there was none) and a fingerprint of what connect left, so
    `given_back` can restore the original bytes. A file the person changed since an earlier
    connect wrote it has no original any more (its text holds Loreline's older entries)."""
    from . import manifest

    files = [real_path(path) for path in dict.fromkeys(paths)]
    before = {real: _snapshot(real) for real in files}
    yield
    with locked():
        for real in files:
            now = _snapshot(real)
            if now == before[real]:
                continue
            kept = manifest.recorded(real, ORIGINAL_TOOL).entries
            if not kept:
                _keep_original(real, before[real])
            elif kept.get("written") != [_fingerprint(before[real])]:
                _forget_original(real)
                continue
            manifest.save(real, ORIGINAL_TOOL, manifest.Record({"written": [_fingerprint(now)],
                                                                "absent": [before[real] is None]}))


@contextmanager
def given_back(*paths: Path) -> Iterator[None]:
    """Around a disconnect: a file nothing changed since connect last wrote it gets its original
    bytes back, when they hold the same settings as what the disconnect left (else what the
    disconnect wrote stays); a file connect created is left to `remove_if_created`."""
    from . import manifest

    files = [real_path(path) for path in dict.fromkeys(paths)]
    before = {real: _snapshot(real) for real in files}
    yield
    with locked():
        for real in files:
            kept = manifest.recorded(real, ORIGINAL_TOOL).entries
            if not kept:
                continue
            unchanged = kept.get("written") == [_fingerprint(before[real])]
            original = None if kept.get("absent") == [True] else _snapshot(backup_path(real, ORIGINALS_FOLDER))
            now = _snapshot(real)
            if unchanged and original is not None and now is not None and now != original \
                    and _same_settings(real, now, original):
                _restore(real, original)
            _forget_original(real)


def _keep_original(real: Path, content: bytes | None) -> None:
    if content is None:
        return
    try:
        home.write_private(backup_path(real, ORIGINALS_FOLDER), content)
    except OSError as err:
        raise ConfigError(f"cannot keep a copy of {real} in {home.state_dir()} ({err.strerror or err}); "
                          "nothing was changed") from None


def _forget_original(real: Path) -> None:
    from . import manifest

    backup_path(real, ORIGINALS_FOLDER).unlink(missing_ok=True)
    manifest.save(real, ORIGINAL_TOOL, None)


def _fingerprint(content: bytes | None) -> str:
    import hashlib

    return "" if content is None else hashlib.sha256(content).hexdigest()


def _same_settings(real: Path, one: bytes, other: bytes) -> bool:
    """Whether two versions of a settings file hold the same values (TOML or JSON by its name)."""
    try:
        if real.suffix == ".toml":
            import tomllib

            return tomllib.loads(one.decode("utf-8")) == tomllib.loads(other.decode("utf-8"))
        import json

        return bool(json.loads(one) == json.loads(other))
    except (ValueError, UnicodeDecodeError):
        return False


@contextmanager
def created_file(path: Path, tool: str) -> Iterator[None]:
    """Record that the block created `path` (it did not exist before and does after), so a
    later `remove_if_created` may delete it once it is empty again."""
    from . import manifest

    existed = os.path.lexists(path)
    folder_existed = os.path.lexists(path.parent)
    yield
    if existed or not path.exists():
        return
    marks = (FILE_MARK,) if folder_existed else (FILE_MARK, FOLDER_MARK)
    with locked():
        real = real_path(path)
        manifest.save(real, f"{CREATED_TOOL}{tool}", manifest.Record(created=marks))


def remove_if_created(path: Path, tool: str) -> bool:
    """Delete `path` when connect created it for `tool` and nothing is left in it but empty
    JSON objects (or nothing at all), and its folder too when connect created that and it is
    empty now; True when the file was removed."""
    from . import manifest

    with locked():
        real = real_path(path)
        key = f"{CREATED_TOOL}{tool}"
        marks = manifest.recorded(real, key).created
        if FILE_MARK not in marks:
            return False
        try:
            text = real.read_text(encoding="utf-8")
        except FileNotFoundError:
            manifest.save(real, key, None)
            return False
        except (OSError, UnicodeDecodeError):
            return False
        if text.strip() and not _hollow(text):
            return False
        try:
            real.unlink()
        except OSError:
            return False
        manifest.save(real, key, None)
        if FOLDER_MARK in marks:
            try:
                real.parent.rmdir()  # only when empty
            except OSError:
                pass
        return True


def check_writable(path: Path) -> None:
    """Refuse a settings file the user made read-only (even where root could write it)."""
    real = real_path(path)
    try:
        mode = real.stat().st_mode
    except FileNotFoundError:
        return
    except OSError as err:
        raise ConfigError(f"cannot read {path}: {err.strerror or err}; nothing was changed") from None
    if not mode & stat.S_IWUSR or not os.access(real, os.W_OK):
        shown = path if real == path else f"{path} (-> {real})"
        raise ConfigError(f"{shown} is read-only; nothing was changed (make it writable, e.g. "
                          "`chmod u+w`, to let Loreline edit it)")


def write_atomic(path: Path, text: str) -> None:
    """Replace the file `path` names with `text` in one rename, keeping its permissions (0600
    when new) and owner; a symlink stays a symlink."""
    check_writable(path)
    real = real_path(path)
    if _written is not None:
        _written.add(real)
    try:
        _replace(real, text)
    except OSError as err:
        raise ConfigError(f"cannot write {path}: {err.strerror or err}; nothing was changed") from None


def _replace(real: Path, text: str) -> None:
    old = real.stat() if real.exists() else None
    real.parent.mkdir(parents=True, exist_ok=True)
    import tempfile  # here: reading what is installed (`loreline status`) writes nothing

    fd, tmp = tempfile.mkstemp(prefix=f".{real.name}.", suffix=".tmp", dir=real.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        os.chmod(tmp, stat.S_IMODE(old.st_mode) if old else home.PRIVATE_FILE)
        if old is not None and hasattr(os, "chown") and (old.st_uid, old.st_gid) != (os.getuid(), os.getgid()):
            os.chown(tmp, old.st_uid, old.st_gid)
        os.replace(tmp, real)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _hollow(text: str) -> bool:
    """JSON holding nothing but empty objects (what removing Loreline's entries leaves in a
    file connect created: `{}`, `{"hooks": {}, "mcpServers": {}}`)."""
    import json

    def empty(value: object) -> bool:
        return isinstance(value, dict) and all(empty(v) for v in value.values())

    try:
        return empty(json.loads(text))
    except ValueError:
        return False


#: the files `write_atomic` replaced inside `all_or_nothing` (None outside it)
_written: set[Path] | None = None


@contextmanager
def all_or_nothing(*paths: Path) -> Iterator[None]:
    """Run a connect or disconnect that edits several of `paths` as one change: when any step
    fails (a ConfigError: an invalid or read-only file further on), the files Loreline wrote
    before it and the manifest get back their exact earlier content (a file that did not exist
    is removed), so "nothing was changed" is true. A file Loreline did not write is never
    touched, even when its tool changed it meanwhile."""
    global _written
    from . import manifest

    files = [real_path(path) for path in paths]
    before = {path: _snapshot(path) for path in dict.fromkeys([*files, manifest.manifest_path()])}
    outer, _written = _written, set()
    try:
        yield
    except ConfigError:
        written = _written | {manifest.manifest_path()}
        for path, content in before.items():
            if path not in written:
                continue
            if content is None:
                path.unlink(missing_ok=True)
            elif _snapshot(path) != content:
                _restore(path, content)
        raise
    finally:
        _written = outer if outer is None else outer | _written


def _restore(real: Path, content: bytes) -> None:
    import tempfile

    fd, tmp = tempfile.mkstemp(prefix=f".{real.name}.", suffix=".tmp", dir=real.parent)
    with os.fdopen(fd, "wb") as handle:
        handle.write(content)
    os.chmod(tmp, stat.S_IMODE(real.stat().st_mode))
    os.replace(tmp, real)


def _snapshot(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as err:
        raise ConfigError(f"cannot read {path}: {err.strerror or err}; nothing was changed") from None
