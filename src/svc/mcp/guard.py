"""What stands before `svc mcp --http`: loopback names only, no foreign page, the token.

Anything on this machine can reach a loopback port, including a web page in the person's
browser (a form or `fetch` posting to http://127.0.0.1:PORT) and, through DNS rebinding, a
page whose own host name now resolves to 127.0.0.1. So every request, before the MCP SDK
reads a byte of it, must:

- name this server in `Host` (127.0.0.1, localhost or [::1], with our port): a rebound name
  is refused with 421, as the MCP spec asks of local servers;
- carry no `Origin`, or our own: a page of any other origin is refused with 403 (a browser
  always sends `Origin` on a cross-origin POST, and on a rebinding attack it is the
  attacker's);
- have no query string: a token in a URL ends up in logs, histories and Referer headers, so
  it is refused (400) even when right, and the person is told to rotate it;
- carry `Authorization: Bearer <token>`, compared in constant time: else 401;
- and, once let in, send a body of at most `MAX_BODY_BYTES` (413 otherwise: a declared
  Content-Length over it is refused before a byte is read, a chunked body is cut where it
  passes it; the guard reads the body whole before the SDK sees it), so even a holder of the
  token cannot make the server buffer without end.

The refusals are short JSON bodies with no detail an attacker could use.
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import parse_qsl

from svc.engines.mcp_token import TokenCheck
from svc.errors import UsageError

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
# The largest request a tool call makes is a 100,000-character task (the spec's bound), each
# character at most 6 bytes as a JSON escape, plus a sealed request state: 4 MiB is roomy.
MAX_BODY_BYTES = 4 * 1024 * 1024


def loopback_address(host: str) -> str:
    """The address to bind: a loopback one, else a usage error (exit 2). `localhost` is taken
    as 127.0.0.1 rather than looked up: a hosts file may point it elsewhere."""
    literal = "127.0.0.1" if host == "localhost" else host.strip("[]")
    try:
        loopback = ipaddress.ip_address(literal).is_loopback
    except ValueError:
        loopback = False
    if not loopback:
        raise UsageError(
            f"refusing to serve MCP on {host}: svc mcp --http listens on loopback only",
            hint="use --host 127.0.0.1 (the default) or ::1; a host on another machine should "
            "run its own svc",
        )
    return literal


def allowed_hosts(bound: str, port: int) -> frozenset[str]:
    """Host header values that name this server: the loopback names and the bound address."""
    names = {*LOOPBACK_NAMES, f"[{bound}]" if ":" in bound else bound}
    return frozenset(f"{name}:{port}" for name in names)


class Guard:
    """ASGI middleware: Host, Origin, query string and bearer token, in that order."""

    def __init__(
        self, app: ASGIApp, *, hosts: frozenset[str], token: TokenCheck, warn: Callable[[str], None]
    ) -> None:
        self._app = app
        self._hosts = hosts
        self._origins = frozenset(f"http://{host}" for host in hosts)
        self._token = token
        self._warn = warn

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":  # lifespan events pass; websockets are never served
            if scope["type"] == "lifespan":
                await self._app(scope, receive, send)
            return
        refusal = self._refusal(scope)
        if refusal is not None:
            status, code, message, extra = refusal
            await _answer(send, status, code, message, extra)
            return
        started = False

        async def sending(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await _capped(self._app, scope, receive, sending, MAX_BODY_BYTES)
        except Exception as exc:  # the last line of defence: one line, never a traceback
            # The SDK fails a request that reaches a session closing under it (a host's
            # DELETE racing its own late answer); uvicorn would print the traceback. Nothing
            # of the session's state depends on that request.
            self._warn(f"svc mcp: a request failed inside the MCP SDK ({type(exc).__name__})")
            if not started:
                await _answer(send, 500, "internal_error", "the request failed", [])

    def _refusal(self, scope: Scope) -> tuple[int, str, str, list[tuple[bytes, bytes]]] | None:
        headers = _headers(scope)
        if headers.get("host") not in self._hosts:
            return 421, "wrong_host", "this server answers only to its loopback address", []
        origin = headers.get("origin")
        if origin is not None and origin not in self._origins:
            return 403, "forbidden_origin", "requests from web pages are refused", []
        query = scope.get("query_string", b"")
        if query:
            self._warn_if_token_in(query)
            return 400, "query_refused", "no query string: send the token in a header", []
        if not self._token.authorizes(headers):
            challenge = [(b"www-authenticate", b'Bearer realm="svc mcp"')]
            return 401, "unauthorized", "a bearer token is required", challenge
        if _declared_length(headers) > MAX_BODY_BYTES:
            return 413, "body_too_large", TOO_LARGE, []
        return None

    def _warn_if_token_in(self, query: bytes) -> None:
        values = [value for _, value in parse_qsl(query.decode("latin-1"), keep_blank_values=True)]
        if any(self._token.matches(value) for value in values):
            self._warn(
                "a request carried the MCP bearer token in its URL, where logs and histories "
                "keep it; it was refused. Replace the token: svc mcp token --rotate"
            )


TOO_LARGE = f"a request body may hold at most {MAX_BODY_BYTES} bytes"


def _declared_length(headers: dict[str, str]) -> int:
    """The Content-Length a request declares (0 when none; a malformed one is the server's
    to refuse, and a chunked body is counted as it arrives)."""
    value = headers.get("content-length", "")
    return int(value) if value.isascii() and value.isdigit() else 0


async def _body_within(receive: Receive, limit: int) -> bytes | None:
    """The whole request body, read before the app sees it; None when it passes `limit` or
    the client went away (the app would have logged a half-read body as its own failure)."""
    parts: list[bytes] = []
    seen = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return None  # http.disconnect
        chunk = message.get("body", b"")
        seen += len(chunk)
        if seen > limit:
            return None
        parts.append(chunk)
        if not message.get("more_body", False):
            return b"".join(parts)


async def _capped(app: ASGIApp, scope: Scope, receive: Receive, send: Send, limit: int) -> None:
    """The app, given a body already read whole and within `limit` (413 otherwise)."""
    body = await _body_within(receive, limit)
    if body is None:
        await _answer(send, 413, "body_too_large", TOO_LARGE, [])
        return
    given = False

    async def replay() -> Message:
        nonlocal given
        if given:
            return await receive()  # after the body: the client's disconnect, when it comes
        given = True
        return {"type": "http.request", "body": body, "more_body": False}

    await app(scope, replay, send)


def _headers(scope: Scope) -> dict[str, str]:
    """The request's headers; a header sent twice counts as sent wrong (never the first)."""
    found: dict[str, str] = {}
    for raw_name, raw_value in scope.get("headers", []):
        name = raw_name.decode("latin-1").lower()
        found[name] = "" if name in found else raw_value.decode("latin-1")
    return found


async def _answer(
    send: Send, status: int, code: str, message: str, extra: list[tuple[bytes, bytes]]
) -> None:
    body = json.dumps({"error": code, "detail": message}).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        *extra,
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
