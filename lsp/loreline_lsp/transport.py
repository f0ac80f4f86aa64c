"""JSON-RPC over stdio that answers every request exactly once.

pygls reads a message with `json.loads(body, object_hook=structure_message)`; when a request's
params do not fit lsprotocol's types (a position of the wrong type, no params, an empty text
document) the exception escapes inside `json.loads`, pygls logs "Unable to deserialize message"
and the request is never answered. Here a message is parsed as plain JSON first and structured
at the top level only, so every failure still knows the request's id:

- not JSON, invalid UTF-8, nesting too deep → ParseError with id null;
- not an object, or a request whose id is not an integer or a string → InvalidRequest, id null;
- params that do not fit the method's type → InvalidParams with the id and one line;
- a request before `initialize` → ServerNotInitialized; a second `initialize` or a request
  after `shutdown` → InvalidRequest; a notification before `initialize` is dropped (but `exit`);
- a message over `limits.MAX_MESSAGE` bytes is read, dropped and answered with id null.

Error responses carry one line and never a traceback (pygls puts one in `data` for unexpected
exceptions; it goes to the server's log instead).
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import attrs
import orjson
from lsprotocol import types
from lsprotocol.types import ErrorCodes
from pygls.exceptions import JsonRpcException
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.json_rpc import MsgId

from loreline_lsp import limits
from loreline_lsp.framing import Framer, TooLarge
from loreline_lsp.params import describe

log = logging.getLogger(__name__)
MAX_ERROR_CHARS = 300


@attrs.frozen
class Refusal:
    """A message answered with an error without reaching a handler (`id` None → id null)."""
    id: MsgId | None
    code: int
    message: str


class LorelineProtocol(LanguageServerProtocol):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.initialize_received = False

    # -- reading ---------------------------------------------------------------------------

    def parse(self, body: bytes) -> Any:
        """The message in `body`: a pygls/lsprotocol object, a `Refusal`, or None to ignore."""
        try:
            data = json.loads(body)
        except (ValueError, RecursionError) as err:
            return Refusal(None, ErrorCodes.ParseError, f"not a JSON message ({type(err).__name__})")
        if not isinstance(data, dict):
            return Refusal(None, ErrorCodes.InvalidRequest, "a message must be a JSON object")
        if "method" not in data:
            return self._response(data)
        return self._call(data)

    def _call(self, data: dict[str, Any]) -> Any:
        method, has_id, msg_id = data["method"], "id" in data, data.get("id", 0)
        if has_id and (isinstance(msg_id, bool) or not isinstance(msg_id, (int, str))):
            return Refusal(None, ErrorCodes.InvalidRequest, "a request id must be an integer or a string")
        if not isinstance(method, str) or data.get("jsonrpc") != self.VERSION:
            if has_id:
                return Refusal(msg_id, ErrorCodes.InvalidRequest, 'a request needs "jsonrpc": "2.0" and a string method')
            log.warning("ignored a malformed notification")
            return None
        if has_id and method != types.INITIALIZE and (early := self._gate(method, msg_id)) is not None:
            return early  # before initialize or after shutdown, whatever the params
        kind = self.get_message_type(method) or (_Request if has_id else _Notification)
        if has_id and "id" not in attrs.fields_dict(kind):
            return Refusal(msg_id, ErrorCodes.InvalidRequest, f"{method} is a notification: send it without an id")
        try:
            return self._converter.structure(data, kind)
        except Exception as err:  # cattrs reports through several exception types
            if has_id:
                return Refusal(msg_id, ErrorCodes.InvalidParams, one_line(f"{method}: {describe(err)}"))
            log.warning("ignored a %s notification whose params do not fit: %s", method, one_line(describe(err)))
            return None

    def _response(self, data: dict[str, Any]) -> Any:
        if "id" not in data or not ("result" in data or "error" in data):
            log.warning("ignored a message that is neither a request, a notification nor a response")
            return None
        try:
            return self.structure_message(data)
        except Exception:
            log.warning("ignored a malformed response")
            return None

    # -- dispatching -----------------------------------------------------------------------

    def handle_message(self, message: Any) -> None:
        if message is None:
            return
        if isinstance(message, Refusal):
            self._refuse(message)
            return
        method, msg_id = getattr(message, "method", None), getattr(message, "id", None)
        if method is not None and msg_id is not None:
            refusal = self._gate(method, msg_id)
            if refusal is not None:
                self._refuse(refusal)
                return
        elif method is not None and not self.initialize_received and method != types.EXIT:
            log.warning("dropped the %s notification sent before initialize", method)
            return
        super().handle_message(message)

    def _gate(self, method: str, msg_id: MsgId) -> Refusal | None:
        if self._shutdown:
            return Refusal(msg_id, ErrorCodes.InvalidRequest, "the server is shutting down")
        if method == types.INITIALIZE:
            if self.initialize_received:
                return Refusal(msg_id, ErrorCodes.InvalidRequest, "the server is already initialized")
            self.initialize_received = True
            return None
        if not self.initialize_received:
            return Refusal(msg_id, ErrorCodes.ServerNotInitialized, f"{method}: send initialize first")
        return None

    def _refuse(self, refusal: Refusal) -> None:
        error = types.ResponseError(code=refusal.code, message=refusal.message)
        self._send_data(_ErrorMessage(id=refusal.id, error=error))

    # -- writing -------------------------------------------------------------------------

    def _send_data(self, data: Any) -> None:
        """pygls' writer with orjson: a 1,000-memory page costs well under a millisecond to
        encode instead of tens (pygls runs every value of a result through cattrs first)."""
        if not data or self.writer is None or not self._include_headers:
            super()._send_data(data)
            return
        body = encode(_plain_response(data), self._serialize_message)
        header = f"Content-Length: {len(body)}\r\nContent-Type: {self.CONTENT_TYPE}; charset={self.CHARSET}\r\n\r\n"
        try:
            written = self.writer.write(header.encode("ascii") + body)
            if asyncio.iscoroutine(written) or isinstance(written, asyncio.Future):
                asyncio.ensure_future(written)
        except BrokenPipeError:
            log.error("the client closed the connection")
            raise
        except Exception as err:
            log.exception("could not send a message")
            self._server._report_server_error(err, JsonRpcException)

    def _send_response(self, msg_id: MsgId, result: Any | None = None,
                       error: types.ResponseError | None = None) -> None:
        if error is not None and (error.data is not None or "\n" in error.message):
            error = types.ResponseError(code=error.code, message=one_line(error.message))
        super()._send_response(msg_id, result, error)


@attrs.define
class _Request:
    """A request for a method lsprotocol does not know (`loreline/…`): params stay plain JSON."""
    id: MsgId
    method: str
    jsonrpc: str
    params: Any = None


@attrs.define
class _Notification:
    method: str
    jsonrpc: str
    params: Any = None


@attrs.define
class _ErrorMessage:
    """An error response whose id may be null (lsprotocol's own type requires one)."""
    id: MsgId | None
    error: types.ResponseError
    jsonrpc: str = "2.0"


def _plain_response(data: Any) -> Any:
    """A result message as a plain dict (its result's attrs objects are encoded one by one)."""
    if attrs.has(type(data)) and hasattr(data, "result") and hasattr(data, "id"):
        return {"jsonrpc": data.jsonrpc, "id": data.id, "result": data.result}
    return data


def encode(value: Any, default: Any) -> bytes:
    """JSON bytes; the standard library takes over what orjson refuses (integers over 64 bits,
    lone surrogates)."""
    try:
        return orjson.dumps(value, default=default)
    except TypeError:
        return json.dumps(value, default=default).encode("utf-8")


def one_line(text: str) -> str:
    line = " ".join(text.split()) or "request failed"
    return line if len(line) <= MAX_ERROR_CHARS else line[: MAX_ERROR_CHARS - 1] + "…"


async def serve(protocol: LorelineProtocol, framer: Framer, stop: Any) -> None:
    """Read framed messages until the input ends, resynchronising after a mis-framed one."""
    while not stop.is_set():
        message = await framer.next()
        if message is None:
            return
        if isinstance(message, TooLarge):
            protocol.handle_message(Refusal(None, ErrorCodes.InvalidRequest,
                                            f"a message of {message.size:,} bytes is over the {limits.MAX_MESSAGE:,}-byte limit"))
            continue
        _dispatch(protocol, message)
        await asyncio.sleep(0)


def _dispatch(protocol: LorelineProtocol, body: bytes) -> None:
    try:
        protocol.handle_message(protocol.parse(body))
    except Exception:  # a message must never take the reading loop down
        log.exception("could not handle a message")
