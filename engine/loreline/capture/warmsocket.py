"""Where the warm recall process listens, and who may talk to it (standard library only).

The warm recall process (`loreline_warm`) answers the prompt hook on a Unix socket. Only the
person who owns the state dir may reach it: the socket sits in the private state dir, or, when
that path is too long for a socket address, in a private folder of their own under the temporary
directory. Both sides check that folder (a real folder of this user, closed to others) before
use, and on Linux a client checks that the process answering runs as the same user, so nobody
else can listen in on prompts or answer them. Used by the hook, the warm process and
`loreline status`; light enough for the hook to import.
"""

from __future__ import annotations

import _socket as socket  # the C module: `socket` builds its enums on import, milliseconds of the hook's CPU
import os
import time

from .. import home

SOCKET_NAME = "recall.sock"
MAX_ADDRESS = 100  #: longest socket path used as is (the OS limit is 104 to 108 bytes)


def supported() -> bool:
    """Unix sockets and user ids: everywhere but Windows."""
    return hasattr(socket, "AF_UNIX") and hasattr(os, "getuid")


def socket_path() -> str:
    """Where the warm process listens: the state dir, or a private short folder for long paths."""
    path = os.path.join(os.path.abspath(home.state_dir()), SOCKET_NAME)
    if len(os.fsencode(path)) <= MAX_ADDRESS:
        return path
    import hashlib
    import tempfile

    folder = os.path.join(tempfile.gettempdir(), f"loreline-{os.getuid()}")
    digest = hashlib.sha256(path.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return os.path.join(folder, f"{digest}.sock")


def private_folder(path: str) -> bool:
    """Make sure the socket's folder exists, is a real folder of this user and is closed to others."""
    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    except OSError:
        return False
    return trusted_folder(path)


def trusted_folder(path: str) -> bool:
    """True when the socket's folder is a real folder (not a link) of this user, closed to others:
    nobody else can have put a socket there."""
    import stat

    try:
        info = os.lstat(os.path.dirname(path))
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and not info.st_mode & 0o077


def connect(client: socket.socket, path: str) -> None:
    """Connect to the warm process at `path`, refusing a folder or a peer that is not this user's."""
    if not trusted_folder(path):
        raise ConnectionRefusedError("the socket's folder is not private")
    client.connect(path)
    peer = getattr(socket, "SO_PEERCRED", None)
    if peer is not None:  # Linux: the process at the other end runs as this user
        import struct

        _, uid, _ = struct.unpack("3i", client.getsockopt(socket.SOL_SOCKET, peer, struct.calcsize("3i")))
        if uid != os.getuid():
            raise ConnectionRefusedError("the socket belongs to another user")


def listening() -> bool:
    """True when something accepts connections on the socket right now."""
    if not supported():
        return False
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(0.05)
    try:
        connect(probe, socket_path())
    except OSError:
        return False
    finally:
        probe.close()
    return True


def read_line(conn: socket.socket, deadline: float, most: int) -> bytes:
    """One line (up to its newline, or the end of the stream), read by the monotonic `deadline`
    in all, so a peer that trickles is cut off; more than `most` bytes stop the reading (the caller
    sees a result longer than `most`)."""
    chunks: list[bytes] = []
    size = 0
    while size <= most:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the line took too long to arrive")
        conn.settimeout(left)
        chunk = conn.recv(65536)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
        if b"\n" in chunk:
            break
    return b"".join(chunks)[: most + 1]
