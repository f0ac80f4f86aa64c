"""What keeps the viewer to its one user on a shared machine, as ASGI middleware.

- **A per-run token** (random, 256 bits) in the address Loreline prints. The first request
  that carries it (`?token=…`) gets a cookie (HttpOnly, SameSite=Strict, scoped to this port)
  and is sent on to the same page without the token in the address; every other request
  without the cookie is refused (403).
- **Host** must be this server's loopback address and port (127.0.0.1, localhost or [::1]):
  a page on another site that rebinds its DNS name to 127.0.0.1 is refused.
- **Changes** (anything but GET and HEAD) need an Origin of this same address (a cross-site
  form or fetch is refused), besides the cookie that SameSite=Strict keeps off cross-site
  requests.
- Every answer carries a strict Content-Security-Policy (scripts and styles from this server
  only, no inline script, no framing, forms post only here), no CORS header at all, and
  `Cache-Control: no-store`.
"""

from __future__ import annotations

import hmac
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qsl, urlencode

CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
HEADERS = [(b"content-security-policy", CSP.encode()), (b"x-content-type-options", b"nosniff"),
           (b"referrer-policy", b"same-origin"), (b"x-frame-options", b"DENY"), (b"cache-control", b"no-store")]
SAFE_METHODS = {"GET", "HEAD"}


class Guard:
    def __init__(self, app: Any, token: str, port: int) -> None:
        self.app = app
        self.token = token
        self.port = port
        self.cookie = f"loreline_view_{port}"
        self.hosts = {f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}"}

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        host = headers.get("host", "")
        if host not in self.hosts:
            await _refuse(send, 403, "This viewer answers only on its own loopback address.")
            return
        query = dict(parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True))
        given = query.get("token")
        if given is not None:
            if not hmac.compare_digest(given.encode(), self.token.encode()):
                await _refuse(send, 403, "Wrong token: open the address `loreline view` printed.")
                return
            await self._admit(scope, send, query)
            return
        if not self._has_cookie(headers.get("cookie", "")):
            await _refuse(send, 403, "Open the address `loreline view` printed (it carries this run's token).")
            return
        if scope["method"] not in SAFE_METHODS:
            origin = headers.get("origin")
            if origin != f"http://{host}" or headers.get("sec-fetch-site", "same-origin") != "same-origin":
                await _refuse(send, 403, "Changes are accepted only from the viewer's own pages.")
                return

        async def secured(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [h for h in message.get("headers", []) if not h[0].lower().startswith(
                    b"access-control-")] + HEADERS
            await send(message)

        await self.app(scope, receive, secured)

    def _has_cookie(self, header: str) -> bool:
        jar: SimpleCookie = SimpleCookie()
        try:
            jar.load(header)
        except Exception:  # a malformed cookie header is no cookie
            return False
        morsel = jar.get(self.cookie)
        return morsel is not None and hmac.compare_digest(morsel.value.encode(), self.token.encode())

    async def _admit(self, scope: dict[str, Any], send: Any, query: dict[str, str]) -> None:
        rest = {k: v for k, v in query.items() if k != "token"}
        location = scope.get("path", "/") + (("?" + urlencode(rest)) if rest else "")
        cookie = f"{self.cookie}={self.token}; Path=/; HttpOnly; SameSite=Strict"
        await send({"type": "http.response.start", "status": 303,
                    "headers": [(b"location", location.encode("latin-1")), (b"set-cookie", cookie.encode()),
                                *HEADERS]})
        await send({"type": "http.response.body", "body": b""})


async def _refuse(send: Any, status: int, why: str) -> None:
    body = f"<!doctype html><title>Loreline</title><p>{why}</p>".encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/html; charset=utf-8"), *HEADERS]})
    await send({"type": "http.response.body", "body": body})
