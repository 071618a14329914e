"""`svc mcp --http`'s guard is the last line of defence for a request the MCP SDK fails (a
loaded run caught one: a host's late answer reaching a session its DELETE was closing, and
uvicorn printed the SDK's traceback on the person's terminal). One line instead, and a 500 if
nothing was answered yet; the server goes on."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from svc.engines.mcp_token import TokenCheck
from svc.mcp.guard import Guard

TOKEN = "svcmcp_" + "t" * 40
HOST = "127.0.0.1:8765"


def request() -> dict[str, Any]:
    headers = [(b"host", HOST.encode()), (b"authorization", f"Bearer {TOKEN}".encode())]
    return {"type": "http", "method": "POST", "path": "/mcp", "query_string": b"",
            "headers": headers}  # fmt: skip


async def served(app: Any) -> tuple[list[dict[str, Any]], list[str]]:
    sent: list[dict[str, Any]] = []
    said: list[str] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"{}", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    guard = Guard(app, hosts=frozenset({HOST}), token=TokenCheck(lambda: TOKEN), warn=said.append)
    await guard(request(), receive, send)
    return sent, said


@pytest.mark.parametrize("answered_first", [True, False])
def test_a_request_the_sdk_fails_is_one_line_never_a_traceback(answered_first: bool) -> None:
    async def failing(scope: Any, receive: Any, send: Any) -> None:
        await receive()
        if answered_first:
            await send({"type": "http.response.start", "status": 202, "headers": []})
            await send({"type": "http.response.body", "body": b""})
        raise anyio.ClosedResourceError  # as the SDK's stream to a closed session does

    sent, said = anyio.run(served, failing)
    assert said == ["svc mcp: a request failed inside the MCP SDK (ClosedResourceError)"]
    statuses = [m["status"] for m in sent if m["type"] == "http.response.start"]
    assert statuses == ([202] if answered_first else [500])  # one answer, never two


def test_the_sdks_own_traceback_of_a_failed_request_is_one_line() -> None:
    """The SDK logs `Error handling POST request` with the whole traceback (the loaded run's
    second half of the same failure): on svc's logger filter it is one line naming the
    exception, whatever handler prints it."""
    import io
    import logging

    from svc.mcp.http import one_line_errors

    logger = logging.getLogger("mcp.server.streamable_http")
    one_line_errors(logger)
    one_line_errors(logger)  # once, however often a process serves
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    logger.addHandler(handler)
    try:
        try:
            raise anyio.ClosedResourceError
        except anyio.ClosedResourceError:
            logger.exception("Error handling POST request")
    finally:
        logger.removeHandler(handler)
    assert out.getvalue() == ("svc mcp: Error handling POST request (ClosedResourceError)\n"), (
        out.getvalue()
    )
