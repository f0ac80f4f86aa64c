"""The prompt hook's side of warm recall: ask the running recall process, or start it.

Loading the sentence model takes longer than a prompt hook may (about a quarter second, plus
numpy), so recall by meaning runs in a background process (`loreline_warm`) that keeps the model
and the store open and answers on a Unix socket in the state dir. The hook:
- asks it (`ask`) with a hard deadline (`DEADLINE`); any failure (no process, a stale socket,
  no answer in time, a malformed answer) returns None and the hook chooses by words instead;
- starts it (`start`) at SessionStart and whenever a prompt found none running, at most once per
  `RESPAWN_SECONDS` (a process that cannot start is not retried on every prompt). It runs
  detached, in its own session, with the assistant's credentials removed from its environment,
  and leaves by itself after `capture.warm_minutes` without a prompt.

Who may reach the socket, and where it is: `loreline.capture.warmsocket`. The request carries
the installed Loreline's version; a warm process of another version leaves instead of answering,
and the next prompt starts the new one. Standard library only: this module is imported by the
hook.
"""

from __future__ import annotations

import json
import os
import _socket as socket  # the C module: `socket` builds its enums on import, milliseconds of a prompt's CPU
import sys
import time

from loreline import __version__, home
from loreline.capture.warmsocket import connect, listening, read_line, socket_path, supported

SPAWN_MARK = "recall.spawned"
DEADLINE = 0.25  #: seconds the hook waits for an answer, connecting included
RESPAWN_SECONDS = 30.0
MAX_ANSWER = 1 << 20
PROTOCOL = 1
MAX_SHOWN = 500  #: most already-shown ids sent (`loreline_warm.server.MAX_SHOWN`)

TYPE_CHECKING = False  # importing typing costs the hook milliseconds
if TYPE_CHECKING:
    from typing import Any


class Asked:
    """A question sent to the warm process, its answer not read yet (`send`, then `receive`):
    the hook sends it as soon as it knows the prompt, so the answer is worked out while the hook
    goes on with its own start-up. `reachable` is False when no process listens (no `client`)."""

    __slots__ = ("client", "deadline", "reachable")

    def __init__(self, client: Any, deadline: float, reachable: bool) -> None:
        self.client, self.deadline, self.reachable = client, deadline, reachable

    def close(self) -> None:
        if self.client is not None:
            self.client.close()
            self.client = None


def send(project: str, prompt: str, limit: int, words: list[int] | None = None,
         shown: list[int] | None = None) -> Asked | None:
    """Send the question (see `ask`) without waiting for the answer; None when no answer can be
    had (no Unix sockets, or the connection failed after connecting: choose by words)."""
    if not supported():
        return None
    deadline = time.monotonic() + DEADLINE
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        client.settimeout(DEADLINE)
        try:
            connect(client, socket_path())
        except (FileNotFoundError, ConnectionRefusedError):
            client.close()
            return Asked(None, deadline, False)
        request = {"v": PROTOCOL, "loreline": __version__, "project": project, "prompt": prompt, "limit": limit,
                   "words": words, "shown": (shown or [])[-MAX_SHOWN:]}
        client.sendall(json.dumps(request).encode("ascii") + b"\n")
    except (OSError, ValueError):
        client.close()
        return None
    return Asked(client, deadline, True)


def receive(asked: Asked | None) -> tuple[list[tuple[int, str, str]] | None, bool]:
    """(rows, reachable) for a question `send` sent: the answer, read by the deadline set when it
    was sent; the connection is closed after."""
    if asked is None:
        return None, True
    if asked.client is None:
        return None, asked.reachable
    try:
        answer = read_line(asked.client, asked.deadline, MAX_ANSWER)
    except (OSError, ValueError):
        return None, True
    finally:
        asked.close()
    return _rows(answer), True


def ask(project: str, prompt: str, limit: int, words: list[int] | None = None,
        shown: list[int] | None = None) -> tuple[list[tuple[int, str, str]] | None, bool]:
    """(rows, reachable): the warm process's notes for `prompt`, most relevant first, or None when
    it gave none usable (then choose by words); `words` are the memories the prompt's words chose,
    `shown` those the session already received (left out); `reachable` is False when no process
    listens."""
    return receive(send(project, prompt, limit, words, shown))


def _rows(answer: bytes) -> list[tuple[int, str, str]] | None:
    try:
        data: Any = json.loads(answer)
    except ValueError:
        return None
    if not isinstance(data, dict) or data.get("ok") is not True or data.get("meaning") is not True:
        return None
    notes = data.get("notes")
    if not isinstance(notes, list):
        return None
    rows = []
    for note in notes:
        if (isinstance(note, list) and len(note) >= 3 and isinstance(note[0], int) and isinstance(note[1], str)
                and isinstance(note[2], str)):
            rows.append((note[0], note[1], note[2]))
    return rows


def start() -> bool:
    """Start the warm process unless one answers or one was started moments ago."""
    if not supported() or not os.path.isfile(home.db_path()):
        return False
    mark = home.state_dir() / SPAWN_MARK
    try:
        if time.time() - os.stat(mark).st_mtime < RESPAWN_SECONDS:
            return False
    except OSError:
        pass
    if listening():
        return False
    try:
        home.write_private(mark, str(os.getpid()))
    except OSError:
        return False
    import subprocess

    from .launch import worker_env

    subprocess.Popen(
        [sys.executable, "-P", "-m", "loreline_warm"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        close_fds=True, start_new_session=True, cwd=home.ensure_private_dir(home.data_dir()),
        env=worker_env(os.environ),
    )
    return True
