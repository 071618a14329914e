"""One write to the socket per answer, where uvicorn's h11 protocol makes two.

uvicorn writes a response's head and its body in separate `transport.write` calls, and
asyncio sends each at once: two `sendto` calls an answer, and a client that may wake twice to
read one answer. Issue 34's batch is two answers a paid task, and the sandbox shares the cores
with the client. This transport sits between the protocol and asyncio's: what is written in
one turn of the event loop leaves in one write, at the end of the answer
(`DroppableH11Protocol.on_response_complete` calls `flush`) or, for an answer still streaming,
at the loop's next turn. Bytes and their order are unchanged; nothing waits longer than that
turn, and a buffer of `FLUSH_AT` bytes or more goes at once, so a large streamed answer (the
`oversized` fault) meets asyncio's flow control as before. `close` and `abort` send what is
buffered first: a fault that drops the connection after part of an answer still sends that
part, as when each write went out at once.
"""

from __future__ import annotations

import asyncio
from typing import Any

FLUSH_AT = 64 * 1024  # asyncio's default high-water mark for a transport's write buffer


class CoalescingTransport(asyncio.Transport):
    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__()
        self.inner = transport
        self._loop = loop
        self._pending: list[bytes] = []
        self._size = 0

    def write(self, data: bytes | bytearray | memoryview) -> None:
        if not data:
            return
        if not self._pending:
            self._loop.call_soon(self.flush)
        self._pending.append(bytes(data))
        self._size += len(data)
        if self._size >= FLUSH_AT:
            self.flush()

    def writelines(self, list_of_data: Any) -> None:
        for data in list_of_data:
            self.write(data)

    def flush(self) -> None:
        if self._pending:
            data = b"".join(self._pending)
            self._pending, self._size = [], 0
            self.inner.write(data)

    def close(self) -> None:
        self.flush()
        self.inner.close()

    def abort(self) -> None:
        self.flush()
        self.inner.abort()

    def write_eof(self) -> None:
        self.flush()
        self.inner.write_eof()

    def can_write_eof(self) -> bool:
        return self.inner.can_write_eof()

    def is_closing(self) -> bool:
        return self.inner.is_closing()

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return self.inner.get_extra_info(name, default)

    def is_reading(self) -> bool:
        return self.inner.is_reading()

    def pause_reading(self) -> None:
        self.inner.pause_reading()

    def resume_reading(self) -> None:
        self.inner.resume_reading()

    def set_protocol(self, protocol: asyncio.BaseProtocol) -> None:
        self.inner.set_protocol(protocol)

    def get_protocol(self) -> asyncio.BaseProtocol:
        return self.inner.get_protocol()

    def get_write_buffer_size(self) -> int:
        return self._size + self.inner.get_write_buffer_size()

    def get_write_buffer_limits(self) -> tuple[int, int]:
        return self.inner.get_write_buffer_limits()

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        self.inner.set_write_buffer_limits(high, low)
