"""One run of an assistant's own CLI for a distillation call, bounded and cleaned up after.

Both login backends (`claude_code`, `codex`) start their CLI the same way: the prompt on
stdin (a transcript chunk can be longer than one command-line argument may be), in
Loreline's own working directory, with `LORELINE_OFF=1` so no Loreline hook captures the
run, in a process group of its own so a run cut at its deadline leaves no child behind. Run
by background work (`environment.background`), it gets none of the assistant's credentials.
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

from ..records import record


@record
class Finished:
    returncode: int
    stdout: str
    stderr: str


class TimedOut(Exception):
    """The CLI gave no answer before the deadline (it was stopped, with its children)."""


class NotStarted(Exception):
    """The CLI could not be started (missing, not executable)."""


def run(argv: Sequence[str], stdin: str, *, cwd: Path, env: Mapping[str, str], deadline: float) -> Finished:
    """Run `argv` with `stdin` as input; TimedOut after `deadline` seconds, NotStarted when it cannot run."""
    from .. import environment

    cwd.mkdir(parents=True, exist_ok=True, mode=0o700)
    child_env = environment.environ()  # in the background, without the assistant's credentials
    child_env.update(env)
    child_env["LORELINE_OFF"] = "1"
    try:
        proc = subprocess.Popen(list(argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                cwd=cwd, env=child_env, text=True, encoding="utf-8", errors="replace",
                                start_new_session=True)
    except OSError as err:
        raise NotStarted(f"cannot run {argv[0]}: {err.strerror or err}") from None
    try:
        out, err_text = proc.communicate(stdin, timeout=deadline)
    except subprocess.TimeoutExpired:
        _stop(proc)
        raise TimedOut(f"no answer within {deadline:g}s") from None
    except BaseException:
        _stop(proc)
        raise
    return Finished(proc.returncode, out or "", err_text or "")


def _stop(proc: subprocess.Popen[str]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.communicate(timeout=5)
    except (subprocess.TimeoutExpired, ValueError, OSError):
        pass


def one_line(text: str, limit: int = 200) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
