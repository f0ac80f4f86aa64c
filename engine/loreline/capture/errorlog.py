"""The hooks' bounded error log, which the warm recall process writes too: one line per
failure (the exception's class and, for an OS error, its reason and file; never the input),
kept under ~64 KB by rotating to one `.1` file. Standard library only (the hook part)."""

from __future__ import annotations

import os
import time

from .. import home
from ..errors import ConfigError
from . import hook_error_log_path, utc_stamp

ERROR_LOG_MAX_BYTES = 64 * 1024


def log_error(event: str, err: BaseException) -> None:
    """Append one line about `err` to the hook error log; never raises."""
    try:
        path = hook_error_log_path()
        home.ensure_private_dir(path.parent)
        try:
            if path.stat().st_size > ERROR_LOG_MAX_BYTES:
                os.replace(path, path.with_name(path.name + ".1"))
        except FileNotFoundError:
            pass
        line = f"{utc_stamp(time.time())} {event[:40]} {describe(err)}\n"
        fd = home.open_private(path, os.O_WRONLY | os.O_APPEND)
        try:
            os.write(fd, line.encode("utf-8", "replace"))
        finally:
            os.close(fd)
    except Exception:
        pass


def describe(err: BaseException) -> str:
    """The class of an error and, for OS errors, the reason and file: never input text."""
    name = type(err).__name__
    if isinstance(err, OSError):
        where = f" ({err.filename})" if err.filename else ""
        return f"{name}: {err.strerror or 'OS error'}{where}"
    if isinstance(err, ConfigError):
        return f"{name}: {str(err)[:300]}"
    return name
