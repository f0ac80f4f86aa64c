"""The MCP server's stdio transport: every line in gets an answer or reaches the server.

The SDK's own stdio transport hands a line it cannot validate to the session as an exception,
and the session drops it: the client of a batch array, a request without a method, params that
are not an object, deeply nested JSON or an over-long line waits forever. Here each line is
checked first, and one the server cannot take is answered at once with a JSON-RPC error (its
id when it has one it can be answered by, else null). Lone surrogates in strings become U+FFFD
before the server sees them, so an answer can always be written as UTF-8.

Both the server's messages and these errors go out through one writer, a whole line at a
time, so they never interleave. While serving, fd 0 reads the null device and fd 1 points at
stderr, so stray output of a library or a child process never corrupts the wire.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, BinaryIO

import anyio
import anyio.to_thread
import mcp_types as types
from mcp.shared._context_streams import create_context_streams
from mcp.shared.message import SessionMessage

#: a line longer than this is refused, not parsed (a request is a few hundred bytes)
MAX_LINE_BYTES = 4 * 1024 * 1024
#: JSON nested deeper than this is refused (no MCP message comes near it)
MAX_DEPTH = 64

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602


class Refused(Exception):
    """A line the server cannot take, with the error to answer it by."""

    def __init__(self, code: int, message: str, request_id: int | str | None = None) -> None:
        super().__init__(message)
        self.code, self.message, self.request_id = code, message, request_id


def check_line(raw: bytes) -> types.JSONRPCMessage | None:
    """The message a line carries; None for a blank line; Refused when it must be answered."""
    if len(raw) > MAX_LINE_BYTES:
        raise Refused(INVALID_REQUEST, f"message too long (over {MAX_LINE_BYTES} bytes)")
    text = raw.decode("utf-8", errors="replace").strip()
    if not text:
        return None
    try:
        value = json.loads(text)
    except RecursionError:
        raise Refused(PARSE_ERROR, f"JSON nested too deeply (over {MAX_DEPTH} levels)") from None
    except ValueError as err:
        raise Refused(PARSE_ERROR, f"parse error: {err}") from None
    value = _clean(value, 0)
    if isinstance(value, list):
        raise Refused(INVALID_REQUEST, "batches are not supported: send one message per line")
    if not isinstance(value, dict):
        raise Refused(INVALID_REQUEST, "a message must be a JSON object")
    request_id = _answerable_id(value)
    if value.get("jsonrpc") != "2.0":
        raise Refused(INVALID_REQUEST, 'missing or wrong "jsonrpc" (must be "2.0")', request_id)
    if "method" not in value and "result" not in value and "error" not in value:
        raise Refused(INVALID_REQUEST, 'a request needs a "method"', request_id)
    if "id" in value and request_id is None:
        raise Refused(INVALID_REQUEST, '"id" must be a string or an integer')
    if "method" in value and not isinstance(value["method"], str):
        raise Refused(INVALID_REQUEST, '"method" must be a string', request_id)
    if "params" in value and value["params"] is not None and not isinstance(value["params"], dict):
        raise Refused(INVALID_PARAMS, '"params" must be an object', request_id)
    try:
        return types.jsonrpc_message_adapter.validate_python(value, by_name=False)
    except Exception as err:  # pydantic's ValidationError: one line of it
        first = str(err).splitlines()
        raise Refused(INVALID_REQUEST, f"invalid message: {first[1] if len(first) > 1 else first[0]}"
                      .strip(), request_id) from None


def _answerable_id(value: dict[str, Any]) -> int | str | None:
    """The id an error can answer: an int or a string, else null (JSON-RPC's rule)."""
    found = value.get("id")
    if isinstance(found, bool):
        return None
    return found if isinstance(found, (int, str)) else None


def _clean(value: Any, depth: int) -> Any:
    """The value with lone surrogates replaced, refused past MAX_DEPTH."""
    if depth > MAX_DEPTH:
        raise Refused(PARSE_ERROR, f"JSON nested too deeply (over {MAX_DEPTH} levels)")
    if isinstance(value, str):
        return value.encode("utf-8", errors="surrogatepass").decode("utf-8", errors="replace") \
            if _has_surrogate(value) else value
    if isinstance(value, list):
        return [_clean(item, depth + 1) for item in value]
    if isinstance(value, dict):
        return {_clean(key, depth + 1): _clean(item, depth + 1) for key, item in value.items()}
    return value


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def error_line(refused: Refused) -> bytes:
    answer = {"jsonrpc": "2.0", "id": refused.request_id,
              "error": {"code": refused.code, "message": refused.message}}
    return json.dumps(answer, ensure_ascii=False).encode("utf-8") + b"\n"


def _claim_stdio() -> tuple[BinaryIO, BinaryIO]:
    """Private copies of fd 0 and fd 1 for the wire; fd 0 then reads /dev/null and fd 1 is stderr."""
    wire_in = os.fdopen(os.dup(0), "rb")
    wire_out = os.fdopen(os.dup(1), "wb", buffering=0)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    return wire_in, wire_out


@asynccontextmanager
async def guarded_stdio(wire_in: BinaryIO | None = None, wire_out: BinaryIO | None = None) -> AsyncIterator[
        tuple[Any, Any]]:
    """(read stream, write stream) for the SDK's server, over checked stdio."""
    if wire_in is None or wire_out is None:
        wire_in, wire_out = _claim_stdio()
    sink = anyio.wrap_file(wire_out)

    async def readline(limit: int) -> bytes:
        return await anyio.to_thread.run_sync(wire_in.readline, limit, abandon_on_cancel=True)
    to_server, read_stream = create_context_streams[SessionMessage | Exception](0)
    write_stream, from_server = create_context_streams[SessionMessage](0)
    lines_in, lines_out = anyio.create_memory_object_stream[bytes](64)

    async def read(lines: Any) -> None:
        async with to_server, lines:
            while True:
                raw = await readline(MAX_LINE_BYTES + 1)
                if not raw:
                    return
                if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
                    await _skip_rest(readline)
                try:
                    message = check_line(raw)
                except Refused as refused:
                    await lines.send(error_line(refused))
                    continue
                if message is not None:
                    await to_server.send(SessionMessage(message))

    async def encode(lines: Any) -> None:
        async with from_server, lines:
            async for message in from_server:
                text = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                await lines.send(text.encode("utf-8", errors="replace") + b"\n")

    drained = anyio.Event()

    async def write() -> None:
        # the one writer: whole lines, answers and errors alike, in the order they are ready
        async with lines_out:
            async for line in lines_out:
                await sink.write(line)
                await sink.flush()
        drained.set()

    async with anyio.create_task_group() as group:
        group.start_soon(read, lines_in.clone())
        group.start_soon(encode, lines_in.clone())
        lines_in.close()
        group.start_soon(write)
        yield read_stream, write_stream
        await write_stream.aclose()  # the server is done: what is queued still goes out
        with anyio.move_on_after(2):
            await drained.wait()
        group.cancel_scope.cancel()


async def _skip_rest(readline: Any) -> None:
    """Drop what remains of an over-long line, up to its newline."""
    while True:
        chunk = await readline(MAX_LINE_BYTES)
        if not chunk or chunk.endswith(b"\n"):
            return


def serve(server: Any) -> None:
    """Run an MCPServer's low-level server over the guarded stdio transport."""

    async def main() -> None:
        async with guarded_stdio() as (read_stream, write_stream):
            low = server._lowlevel_server
            await low.run(read_stream, write_stream, low.create_initialization_options())

    anyio.run(main)

