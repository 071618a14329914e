"""Faults on demand: a pure ASGI middleware that consumes faults queued via /_sandbox/faults.

Dropping a connection for real needs the socket: uvicorn does not expose it to the app, so
`server.DroppableH11Protocol` registers each connection's transport here, keyed by the peer
address that also appears in `scope["client"]`. Without a registered transport (for example
under Starlette's TestClient) a drop raises `ConnectionDropped` instead.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from svc_sandbox.faults.queue import CODE_STATUS, Fault
from svc_sandbox.state.sandbox import SandboxState

EXEMPT_PREFIX = "/_sandbox"  # the controls themselves never fail
MALFORMED_JSON = b'{"id": '
HTML_BODY = b"<!doctype html><html><body><h1>Gateway error</h1></body></html>"
EXTRA_CONTENT_LENGTH = 64
OVERSIZED_DEFAULT = 32 * 1024 * 1024  # twice the client's default cap on an answer
OVERSIZED_CHUNK = 256 * 1024
UNKNOWN_STATE = "quantum_superposition"  # a state, quote status and event type no spec has
UNKNOWN_EVENT = "wormhole_opened"

_TRANSPORTS: dict[tuple[str, int], asyncio.Transport] = {}


class ConnectionDropped(Exception):
    """The sandbox dropped the connection (raised only where no socket can be closed)."""


def register_transport(peer: Any, transport: asyncio.Transport) -> None:
    if isinstance(peer, tuple | list) and len(peer) >= 2:
        _TRANSPORTS[(str(peer[0]), int(peer[1]))] = transport


def unregister_transport(peer: Any, transport: asyncio.Transport) -> None:
    if isinstance(peer, tuple | list) and len(peer) >= 2:
        key = (str(peer[0]), int(peer[1]))
        if _TRANSPORTS.get(key) is transport:
            del _TRANSPORTS[key]


async def drop_connection(scope: Scope) -> None:
    """Abort the TCP connection under this request: the client gets no (more) bytes."""
    client = scope.get("client")
    transport = _TRANSPORTS.get((str(client[0]), int(client[1]))) if client else None
    if transport is None:
        raise ConnectionDropped("sandbox fault: connection dropped")
    transport.abort()
    for _ in range(3):  # let the server see connection_lost before the app returns
        await asyncio.sleep(0)


class FaultMiddleware:
    def __init__(self, app: ASGIApp, state: SandboxState) -> None:
        self.app = app
        self.state = state

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].startswith(EXEMPT_PREFIX):
            await self.app(scope, receive, send)
            return
        names = frozenset(name.decode("latin-1").lower() for name, _ in scope["headers"])
        fault = self.state.take_fault(scope["method"], scope["path"], names)
        if fault is None:
            await self.app(scope, receive, send)
            return
        await FAULT_HANDLERS[fault.kind](self.app, fault, scope, receive, send)


async def _status(app: ASGIApp, fault: Fault, scope: Scope, receive: Receive, send: Send) -> None:
    status = fault.status or 500
    headers: dict[str, str] = {}
    body: dict[str, Any]
    if status == 429:
        retry_after = fault.retry_after if fault.retry_after is not None else 1
        body = {"error": "rate_limit_exceeded", "retry_after": retry_after}
        headers["Retry-After"] = str(retry_after)
    elif status >= 500:
        body = {"error": "internal_error"}
        if fault.retry_after is not None:
            headers["Retry-After"] = str(fault.retry_after)
    else:
        body = {"error": "injected_fault", "detail": f"sandbox fault: status {status}"}
    if fault.detail is not None:
        body["detail"] = fault.detail
    await _respond(send, status, json.dumps(body).encode(), "application/json", headers)


async def _delay(app: ASGIApp, fault: Fault, scope: Scope, receive: Receive, send: Send) -> None:
    await asyncio.sleep(fault.seconds if fault.seconds is not None else 1.0)
    await app(scope, receive, send)


async def _drop_before(
    app: ASGIApp, fault: Fault, scope: Scope, receive: Receive, send: Send
) -> None:
    await drop_connection(scope)  # the request is never processed


async def _drop_after(
    app: ASGIApp, fault: Fault, scope: Scope, receive: Receive, send: Send
) -> None:
    start, body = await _run_captured(app, scope, receive)
    headers = _without_content_length(start)
    headers.append((b"content-length", str(len(body) + EXTRA_CONTENT_LENGTH).encode()))
    try:
        await send({"type": "http.response.start", "status": start["status"], "headers": headers})
        await send({"type": "http.response.body", "body": body, "more_body": True})
    finally:
        await drop_connection(scope)


async def _truncate(app: ASGIApp, fault: Fault, scope: Scope, receive: Receive, send: Send) -> None:
    start, body = await _run_captured(app, scope, receive)
    cut = body[: len(body) // 2]
    headers = _without_content_length(start)
    headers.append((b"content-length", str(len(cut)).encode()))
    await send({"type": "http.response.start", "status": start["status"], "headers": headers})
    await send({"type": "http.response.body", "body": cut, "more_body": False})


async def _malformed_json(
    app: ASGIApp, fault: Fault, scope: Scope, receive: Receive, send: Send
) -> None:
    await _respond(send, fault.status or 200, MALFORMED_JSON, "application/json", {})


async def _wrong_content_type(
    app: ASGIApp, fault: Fault, scope: Scope, receive: Receive, send: Send
) -> None:
    await _respond(send, fault.status or 200, HTML_BODY, "text/html; charset=utf-8", {})


async def _oversized(
    app: ASGIApp, fault: Fault, scope: Scope, receive: Receive, send: Send
) -> None:
    """A valid JSON task object padded to `size_bytes`, streamed (not processed)."""
    size = fault.size_bytes or OVERSIZED_DEFAULT
    head, tail = b'{"id": "tsk_oversized", "state": "pending", "padding": "', b'"}'
    pad = max(0, size - len(head) - len(tail))
    headers = [(b"content-type", b"application/json"), (b"content-length", str(size).encode())]
    await send({"type": "http.response.start", "status": fault.status or 200, "headers": headers})
    await send({"type": "http.response.body", "body": head, "more_body": True})
    chunk = b"x" * OVERSIZED_CHUNK
    while pad > 0:
        piece = chunk[: min(pad, OVERSIZED_CHUNK)]
        pad -= len(piece)
        await send({"type": "http.response.body", "body": piece, "more_body": True})
    await send({"type": "http.response.body", "body": tail, "more_body": False})


async def _unknown_state(
    app: ASGIApp, fault: Fault, scope: Scope, receive: Receive, send: Send
) -> None:
    """Processed; a JSON object's `state` (or `status`) becomes one no spec knows, and a task
    detail gains an event of an unknown type. Anything else passes unchanged."""
    start, body = await _run_captured(app, scope, receive)
    try:
        doc = json.loads(body)
    except ValueError:
        doc = None
    if isinstance(doc, dict):
        for key in ("state", "status"):
            if isinstance(doc.get(key), str):
                doc[key] = UNKNOWN_STATE
                break
        if isinstance(doc.get("events"), list):
            doc["events"].append(
                {
                    "id": "evt_unknown",
                    "type": UNKNOWN_EVENT,
                    "from_state": None,
                    "to_state": UNKNOWN_STATE,
                    "payload": {"portal": {"to": ["somewhere", 42, None]}},
                    "created_at": doc.get("updated_at"),
                }
            )
        body = json.dumps(doc).encode()
    headers = _without_content_length(start)
    headers.append((b"content-length", str(len(body)).encode()))
    await send({"type": "http.response.start", "status": start["status"], "headers": headers})
    await send({"type": "http.response.body", "body": body, "more_body": False})


async def _raw_body(app: ASGIApp, fault: Fault, scope: Scope, receive: Receive, send: Send) -> None:
    """`detail` verbatim as an application/json answer (fuzzing: any shape the test draws)."""
    body = (fault.detail or "").encode()
    await _respond(send, fault.status or 200, body, "application/json", {})


async def _code(app: ASGIApp, fault: Fault, scope: Scope, receive: Receive, send: Send) -> None:
    """One of the spec's access or identity codes, as the real route would answer it (not
    processed): `{error, detail, reason?}` with the code's status."""
    code = fault.code
    assert code is not None  # Fault's validator: kind "code" always carries one
    body: dict[str, Any] = {"error": code, "detail": fault.detail or f"sandbox fault: {code}"}
    headers: dict[str, str] = {}
    if fault.reason is not None:
        body["reason"] = fault.reason
    if code == "invalid_token":  # RFC 6750, as the sandbox's bearer check answers it
        headers["WWW-Authenticate"] = 'Bearer error="invalid_token"'
    if fault.retry_after is not None:
        body["retry_after"] = fault.retry_after
        headers["Retry-After"] = str(fault.retry_after)
    await _respond(send, CODE_STATUS[code], json.dumps(body).encode(), "application/json", headers)


_PROOF_HEADERS = frozenset({b"x-payment", b"payment-signature", b"svc-payment-id"})


async def _repeat_402(
    app: ASGIApp, fault: Fault, scope: Scope, receive: Receive, send: Send
) -> None:
    """A server that asks again after being paid: the proof is stripped before the app sees
    the request, so the answer is a genuine fresh 402 challenge (nothing is charged)."""
    headers = [
        (k, v)
        for k, v in scope["headers"]
        if k.lower() not in _PROOF_HEADERS
        and not (k.lower() == b"authorization" and v.lower().startswith(b"payment "))
    ]
    await app({**scope, "headers": headers}, receive, send)


FAULT_HANDLERS = {
    "status": _status,
    "delay": _delay,
    "drop_before": _drop_before,
    "drop_after": _drop_after,
    "truncate": _truncate,
    "malformed_json": _malformed_json,
    "wrong_content_type": _wrong_content_type,
    "oversized": _oversized,
    "unknown_state": _unknown_state,
    "repeat_402": _repeat_402,
    "raw_body": _raw_body,
    "code": _code,
}


async def _run_captured(app: ASGIApp, scope: Scope, receive: Receive) -> tuple[Message, bytes]:
    """Run the request to completion, keeping its response instead of sending it."""
    start: Message = {"type": "http.response.start", "status": 500, "headers": []}
    chunks: list[bytes] = []

    async def capture(message: Message) -> None:
        nonlocal start
        if message["type"] == "http.response.start":
            start = message
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))

    await app(scope, receive, capture)
    return start, b"".join(chunks)


def _without_content_length(start: Message) -> list[tuple[bytes, bytes]]:
    return [(k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"]


async def _respond(
    send: Send, status: int, body: bytes, content_type: str, headers: dict[str, str]
) -> None:
    raw = [(b"content-type", content_type.encode()), (b"content-length", str(len(body)).encode())]
    raw += [(k.lower().encode(), v.encode()) for k, v in headers.items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body, "more_body": False})
