"""svc's warnings and notes to the MCP client as log messages (`notifications/message`).

A flow says what it has to say through `Output` (a ledger it cannot write, a billing line, a
fleet's cap overruling this runner's), from the worker thread that runs it. Under `svc mcp`
that went to stderr only, which most hosts file away unread. `relay` hands each line also to
the client of the tool call that said it, at or above the level the client chose with
`logging/setLevel` (warning until it chooses), scrubbed by the server's vault like every other
word the client gets. stderr keeps every line as before.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import anyio.from_thread
import mcp_types as types
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from svc.redact import Vault

if TYPE_CHECKING:
    from mcp.server.context import ServerRequestContext

LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
DEFAULT_LEVEL = "warning"  # before the client sets one: what it should not miss
LOGGER = "svc"


@dataclass
class CallLog:
    """Where one tool call's lines go: its client, at the connection's level."""

    ctx: ServerRequestContext[Any]
    vault: Vault
    level: str

    def wants(self, level: str) -> bool:
        if self.ctx.session.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return True  # the request chose its own level, and the SDK filters by it
        return LEVELS.index(level) >= LEVELS.index(self.level)

    async def send(self, level: str, text: str) -> None:
        with contextlib.suppress(Exception), warnings.catch_warnings():
            # deprecated only from 2026-07-28, where the SDK applies the request's own opt-in
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            await self.ctx.session.send_log_message(
                level,  # type: ignore[arg-type]
                self.vault.scrub(text),
                logger=LOGGER,
                related_request_id=self.ctx.request_id,
            )


_CURRENT: ContextVar[CallLog | None] = ContextVar("svc_mcp_call_log", default=None)


class ClientLog:
    """The level the client set, and the relay `Output.for_protocol` calls."""

    def __init__(self) -> None:
        self.level: str = DEFAULT_LEVEL

    async def set_level(
        self, ctx: ServerRequestContext[Any], params: types.SetLevelRequestParams
    ) -> types.EmptyResult:
        self.level = str(params.level)
        return types.EmptyResult()

    @contextlib.contextmanager
    def during(self, ctx: ServerRequestContext[Any], vault: Vault) -> Iterator[None]:
        """Lines said while the body runs (its worker threads copy this context) go to
        `ctx`'s client."""
        token = _CURRENT.set(CallLog(ctx, vault, self.level))
        try:
            yield
        finally:
            _CURRENT.reset(token)

    @staticmethod
    def relay(level: str, text: str) -> None:
        """From a flow's worker thread: send and wait. Outside a tool call, or on the event
        loop's own thread (which must not block), the line stays on stderr only."""
        call = _CURRENT.get()
        if call is None or not call.wants(level):
            return
        with contextlib.suppress(RuntimeError):  # not a worker thread: stderr has the line
            anyio.from_thread.run(call.send, level, text)
