"""Each answer leaves the sandbox in one write (svc_sandbox.transport), with the same bytes."""

from __future__ import annotations

import asyncio
from typing import Any

import uvicorn
from uvicorn.server import ServerState

from svc_sandbox.app import create_app
from svc_sandbox.faults import middleware
from svc_sandbox.server import DroppableH11Protocol
from svc_sandbox.state.sandbox import SandboxState
from svc_sandbox.transport import FLUSH_AT, CoalescingTransport

PEER = ("127.0.0.1", 50123)


class FakeTransport(asyncio.Transport):
    """Records what reaches the socket: each write, and a close or abort, in order."""

    def __init__(self) -> None:
        super().__init__()
        self.events: list[Any] = []
        self.closing = False

    def write(self, data: Any) -> None:
        self.events.append(bytes(data))

    def close(self) -> None:
        self.events.append("close")
        self.closing = True

    def abort(self) -> None:
        self.events.append("abort")
        self.closing = True

    def is_closing(self) -> bool:
        return self.closing

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": PEER, "sockname": ("127.0.0.1", 8402)}.get(name, default)

    def pause_reading(self) -> None:
        self.events.append("pause_reading")

    def resume_reading(self) -> None:
        pass


def test_writes_in_one_turn_leave_together_at_the_next() -> None:
    async def scenario() -> list[Any]:
        inner = FakeTransport()
        coalescing = CoalescingTransport(inner, asyncio.get_running_loop())
        coalescing.write(b"head;")
        coalescing.write(b"")
        coalescing.write(bytearray(b"body"))
        assert inner.events == []  # not yet: the rest of this turn may add to it
        await asyncio.sleep(0)
        coalescing.write(b"more")
        coalescing.flush()
        await asyncio.sleep(0)  # the turn's scheduled flush finds nothing left
        return inner.events

    assert asyncio.run(scenario()) == [b"head;body", b"more"]


def test_a_large_buffer_goes_at_once_and_close_or_abort_send_what_is_left_first() -> None:
    async def scenario() -> list[Any]:
        inner = FakeTransport()
        coalescing = CoalescingTransport(inner, asyncio.get_running_loop())
        coalescing.write(b"x" * (FLUSH_AT - 1))
        coalescing.write(b"y")
        assert len(inner.events) == 1 and len(inner.events[0]) == FLUSH_AT
        coalescing.write(b"part")
        coalescing.abort()
        coalescing.write(b"late")
        coalescing.close()
        return inner.events[1:]

    assert asyncio.run(scenario()) == [b"part", "abort", b"late", "close"]


def test_the_protocol_writes_each_answer_once_and_registers_the_droppable_transport() -> None:
    config = uvicorn.Config(create_app(SandboxState()), lifespan="off", log_level="warning")
    config.load()
    request = b"GET /nope HTTP/1.1\r\nHost: sandbox\r\n\r\n"

    async def scenario() -> list[Any]:
        inner = FakeTransport()
        protocol = DroppableH11Protocol(config=config, server_state=ServerState(), app_state={})
        protocol.connection_made(inner)
        assert middleware._TRANSPORTS[PEER] is protocol.coalescing
        for _ in range(2):  # two answers on one kept connection
            protocol.data_received(request)
            for _ in range(20):
                await asyncio.sleep(0)
        protocol.connection_lost(None)
        assert PEER not in middleware._TRANSPORTS
        return [e for e in inner.events if e != "pause_reading"]

    events = asyncio.run(scenario())
    answers = [e for e in events if isinstance(e, bytes)]
    assert len(answers) == 2, events
    for answer in answers:
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 404 ") and b"content-length: " in head
        assert body == b'{"error":"not_found","detail":"Not Found"}'
