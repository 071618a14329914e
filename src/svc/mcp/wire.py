"""Malformed JSON-RPC lines get a JSON-RPC error, as JSON-RPC 2.0 asks, not silence.

The SDK's stdio transport hands a line it cannot read to the server as an exception, and the
server only logs it: a client that sent a broken request would wait for an answer forever.
`AnsweringReader` stands between the two and answers such a line itself: -32700 (parse error)
for text that is not JSON, -32600 (invalid request) for JSON that is not a JSON-RPC message,
with the request's id when one can be read, else null. Everything else passes through as is.
"""

from __future__ import annotations

import contextvars
from typing import Any, Self

import mcp_types as types
from mcp.shared.message import SessionMessage
from mcp_types import INVALID_REQUEST, PARSE_ERROR
from pydantic import ValidationError

Item = SessionMessage | Exception


class AnsweringReader:
    """A read stream (the SDK's ReadStream protocol) that answers what it cannot pass on."""

    def __init__(self, inner: Any, write: Any) -> None:
        self._inner = inner
        self._write = write

    @property
    def last_context(self) -> contextvars.Context | None:
        """The sender's context of the last item: the SDK's runner restores it per message."""
        found = getattr(self._inner, "last_context", None)
        return found if isinstance(found, contextvars.Context) else None

    async def receive(self) -> Item:
        while True:
            item: Item = await self._inner.receive()
            if not isinstance(item, ValidationError):
                return item  # a message, or another transport failure the SDK deals with
            await self._write.send(SessionMessage(rejection(item)))

    async def aclose(self) -> None:
        await self._inner.aclose()

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> Item:
        import anyio

        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


def rejection(error: ValidationError) -> types.JSONRPCError:
    """The JSON-RPC error for a line the transport could not read as a message."""
    problems = error.errors(include_url=False)
    if any(problem["type"] == "json_invalid" for problem in problems):
        code, message, request_id = PARSE_ERROR, "Parse error: the line is not JSON", None
    else:
        code, message = INVALID_REQUEST, "Invalid request: not a JSON-RPC 2.0 message"
        request_id = _request_id(problems)
    return types.JSONRPCError(
        jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=message)
    )


def _request_id(problems: list[Any]) -> str | int | None:
    """The id the sender gave, when the line was an object that carried a usable one."""
    for problem in problems:
        sent = problem.get("input")
        if isinstance(sent, dict):
            found = sent.get("id")
            if isinstance(found, str) or (isinstance(found, int) and not isinstance(found, bool)):
                return found
    return None
