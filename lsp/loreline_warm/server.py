"""`python -m loreline_warm`: answer the prompt hook's recall questions by meaning, warm.

The prompt hook cannot load the sentence model within its budget, so this process keeps the
model and the store open and answers one question per connection on a Unix socket
(`loreline_hooks.warmsocket.socket_path()`): one JSON line in,
`{"v": 1, "loreline": VERSION, "project": KEY, "prompt": TEXT, "limit": N, "words": [IDS],
"shown": [IDS]}` (`words`: the memories the hook chose by the prompt's words, or null: this
process runs the hook's words path itself, `hookread.chosen_by_words`, and adds what the session
loads from a native file to `shown`; `shown`: those the session already received), one JSON line out, `{"ok": true, "meaning": true, "notes": [[id, kind,
text, similarity], …]}` (the engine's `Loreline.prompt_notes`, `prompt_notes.for_prompt`).
`"meaning": false` says the store's embedder compares spelling only, and the hook then chooses by
words; a bad request gets `{"ok": false, "error": …}` and the process carries on.

`loreline recall` asks it too (`loreline.api.warm`), so the command does not load the model itself:
`{"v": 1, "loreline": VERSION, "op": "recall", "project": KEY, "query": TEXT, "limit": N,
"include_inactive": BOOL}` in, `{"ok": true, "hits": [[id, score, fts_rank, vec_rank], …]}` out
(the engine's `Loreline.recall`; the command reads the memories themselves from the store).

One process per state dir: the first takes `recall.lock` and the others leave at once. It
leaves by itself after `capture.warm_minutes` without a question (`LORELINE_WARM_IDLE_SECONDS`
overrides that, for tests; a connection that asks nothing does not count), at once when its
socket file is removed or replaced or the store is gone (the home it serves is gone), and after
a question from a hook of another Loreline version (an upgrade: the next prompt starts the new
code). A request is read within `READ_SECONDS` in all; whatever goes wrong with one request is
answered or logged, and the process serves on. Connections are read by a pool of `READERS`
threads, so a client that connects and says nothing never delays another; the questions
themselves are answered one at a time (the store and the model are shared), and a burst of
clients waits in a listen queue of `BACKLOG`; past `MAX_WAITING` connections in hand a new one
is told the process is busy (the hook then chooses by words). The socket is created closed to everyone but its owner. Errors go to the
hooks' error log, never to a terminal.
"""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from filelock import FileLock, Timeout

from loreline import __version__, capture, home
from loreline.api import Loreline
from loreline.errors import ConfigError
from loreline.capture import warmsocket
from loreline.capture.errorlog import log_error

MAX_REQUEST = 64 * 1024
MAX_LIMIT = 10
MAX_WORDS = 50
MAX_SHOWN = 500
MAX_RECALL = 1000
READ_SECONDS = 2.0
TICK_SECONDS = 1.0
LOCK_NAME = "recall.lock"
#: the listen queue: a burst of prompts from many sessions at once waits here
BACKLOG = 256
#: threads reading requests (a silent client holds one for at most READ_SECONDS)
READERS = 16
#: connections accepted and not yet answered; past it a new one is told to come back later
MAX_WAITING = 512


def main() -> int:
    try:
        return serve()
    except Exception as err:  # a detached process: the log is the only place to say it
        log_error("warm", err)
        return 1


def serve() -> int:
    state = home.ensure_private_dir(home.state_dir())
    if not warmsocket.supported() or not home.db_path().is_file():
        return 0
    path = warmsocket.socket_path()
    if not warmsocket.private_folder(path):
        return 1
    lock = FileLock(str(state / LOCK_NAME))
    try:
        lock.acquire(timeout=0)
    except Timeout:
        return 0  # another warm process serves this state dir
    try:
        with Loreline() as api:
            api.prompt_notes("(warm-up)", "warm up")  # load the model before the first question
            with _listen(path) as listening:
                _loop(api, listening)
    finally:
        lock.release()
    return 0


class _listen:
    """A listening socket at `path` (a stale file there is replaced), removed again on exit."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.inode = 0

    def __enter__(self) -> _listen:
        try:
            os.unlink(self.path)  # we hold the lock: whatever is there is a dead process's
        except FileNotFoundError:
            pass
        old = os.umask(0o177)
        try:
            self.sock.bind(self.path)
        finally:
            os.umask(old)
        os.chmod(self.path, 0o600)
        self.inode = os.stat(self.path).st_ino
        self.sock.listen(BACKLOG)
        self.sock.settimeout(TICK_SECONDS)
        return self

    def __exit__(self, *exc: object) -> None:
        self.sock.close()
        try:
            if os.stat(self.path).st_ino == self.inode:
                os.unlink(self.path)
        except OSError:
            pass


def idle_seconds() -> float:
    override = os.environ.get("LORELINE_WARM_IDLE_SECONDS", "").strip()
    try:
        return max(0.1, float(override)) if override else 60.0 * capture.load_settings().warm_minutes
    except (ValueError, ConfigError):
        return 60.0 * capture.Settings().warm_minutes


class Upgraded(Exception):
    """A hook of another Loreline version asked: this process's code is out of date."""


class _Serving:
    """What the connection threads share: the engine (one question at a time), when the last
    question came, whether to leave, and how many connections are in hand."""

    def __init__(self, api: Loreline) -> None:
        self.api = api
        self.engine = threading.Lock()
        self.last = time.monotonic()
        self.leaving = False
        self.waiting = threading.BoundedSemaphore(MAX_WAITING)

    def handle(self, conn: socket.socket) -> None:
        try:
            with conn:
                if _serve_one(self, conn):
                    self.last = time.monotonic()
        except Upgraded:
            self.leaving = True
        except Exception as err:  # never let one connection end the process
            log_error("warm", err)
        finally:
            self.waiting.release()


def _loop(api: Loreline, listening: _listen) -> None:
    idle = idle_seconds()
    serving = _Serving(api)
    with ThreadPoolExecutor(max_workers=READERS, thread_name_prefix="loreline-warm") as pool:
        while not serving.leaving and time.monotonic() - serving.last < idle:
            try:
                conn, _ = listening.sock.accept()
            except TimeoutError:
                if not _still_ours(listening.path, listening.inode):
                    return
                continue
            except OSError as err:  # out of file descriptors, say: log, breathe, go on
                log_error("warm", err)
                time.sleep(TICK_SECONDS)
                continue
            if not serving.waiting.acquire(blocking=False):
                _busy(conn)
                continue
            pool.submit(serving.handle, conn)


def _busy(conn: socket.socket) -> None:
    with conn:
        conn.settimeout(0.1)
        _reply(conn, {"ok": False, "error": "busy: too many requests at once"})


def _still_ours(path: str, inode: int) -> bool:
    try:
        return os.stat(path).st_ino == inode and home.db_path().is_file()
    except OSError:
        return False


def _serve_one(serving: _Serving, conn: socket.socket) -> bool:
    """Answer one connection; True when it asked a question (a probe that only connects is not one)."""
    try:
        raw = warmsocket.read_line(conn, time.monotonic() + READ_SECONDS, MAX_REQUEST)
        if not raw:
            return False
        with serving.engine:
            reply = answer(serving.api, raw)
        conn.settimeout(READ_SECONDS)
        conn.sendall(json.dumps(reply).encode("ascii") + b"\n")
    except Upgraded:
        _reply(conn, {"ok": False, "error": "the warm recall process is of another Loreline version; it leaves"})
        raise
    except OSError:
        return False
    except Exception as err:  # one bad request never ends the process
        log_error("warm", err)
        _reply(conn, {"ok": False, "error": "the request could not be answered; see the hook error log"})
    return True


def _reply(conn: socket.socket, reply: dict[str, Any]) -> None:
    try:
        conn.sendall(json.dumps(reply).encode("ascii") + b"\n")
    except OSError:
        pass


def answer(api: Loreline, raw: bytes) -> dict[str, Any]:
    """The reply to one request line."""
    if len(raw) > MAX_REQUEST:
        return {"ok": False, "error": f"request over {MAX_REQUEST} bytes"}
    try:
        request = json.loads(raw)
    except (ValueError, RecursionError):
        return {"ok": False, "error": "not a JSON line"}
    if not isinstance(request, dict):
        return {"ok": False, "error": "not a JSON object"}
    if request.get("loreline", __version__) != __version__:
        raise Upgraded(str(request.get("loreline")))
    if request.get("op") == "recall":
        return _recall(api, request)
    project, prompt, limit = request.get("project"), request.get("prompt"), request.get("limit", 3)
    if not isinstance(project, str) or not project or not isinstance(prompt, str):
        return {"ok": False, "error": "project and prompt must be strings"}
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        return {"ok": False, "error": f"limit must be a whole number from 1 to {MAX_LIMIT}"}
    words, shown = request.get("words", []), request.get("shown", [])
    if words is None and _ids(shown, MAX_SHOWN):  # the hook left the words path to this process
        try:
            words, shown = _by_words(project, prompt, shown)
        except Exception as err:  # a busy or damaged store: say so, keep serving
            log_error("warm", err)
            return {"ok": False, "error": "recall failed; see the hook error log"}
    if not _ids(words, MAX_WORDS) or not _ids(shown, MAX_SHOWN):
        return {"ok": False, "error": f"words and shown must be lists of memory ids (at most {MAX_WORDS} and "
                                      f"{MAX_SHOWN})"}
    try:
        notes = api.prompt_notes(project, prompt, limit=limit, words=words, shown=shown)
    except Exception as err:  # a busy or damaged store: say so, keep serving
        log_error("warm", err)
        return {"ok": False, "error": "recall failed; see the hook error log"}
    if notes is None:
        return {"ok": True, "meaning": False, "notes": []}
    return {"ok": True, "meaning": True,
            "notes": [[memory.id, memory.kind, memory.text, round(similarity, 4)] for memory, similarity in notes]}


def _by_words(project: str, prompt: str, shown: list[int]) -> tuple[list[int], list[int]]:
    """The hook's words path, run here (`hookread.chosen_by_words`, the same index and rules):
    the memories the prompt's words choose, and `shown` with what the session loads from a
    native file added."""
    from loreline.capture.hookread import chosen_by_words

    rows, covered = chosen_by_words(os.path.abspath(home.db_path()), project, prompt)
    return [row[0] for row in rows][:MAX_WORDS], [*shown, *sorted(covered - set(shown))]


def _recall(api: Loreline, request: dict[str, Any]) -> dict[str, Any]:
    """`loreline recall`'s question: the hits of `Loreline.recall`, by memory id."""
    project, query, limit = request.get("project"), request.get("query"), request.get("limit", 10)
    inactive = request.get("include_inactive", False)
    if not isinstance(project, str) or not project or not isinstance(query, str):
        return {"ok": False, "error": "project and query must be strings"}
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_RECALL:
        return {"ok": False, "error": f"limit must be a whole number from 1 to {MAX_RECALL}"}
    if not isinstance(inactive, bool):
        return {"ok": False, "error": "include_inactive must be true or false"}
    try:
        hits = api.recall(project, query, limit=limit, include_inactive=inactive)
    except Exception as err:  # a busy or damaged store: say so, keep serving
        log_error("warm", err)
        return {"ok": False, "error": "recall failed; see the hook error log"}
    return {"ok": True, "hits": [[hit.memory.id, hit.score, hit.fts_rank, hit.vec_rank] for hit in hits]}


def _ids(value: Any, most: int) -> bool:
    return isinstance(value, list) and len(value) <= most and \
        all(isinstance(i, int) and not isinstance(i, bool) for i in value)
