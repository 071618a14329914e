"""A small HTTP server on loopback that answers what the sandbox never would: bombs, trickles,
nesting. Each test gives it one function that writes the whole answer, and reads back the
requests it received.
"""

from __future__ import annotations

import functools
import struct
import threading
import time
import zlib
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Answer = Callable[[BaseHTTPRequestHandler], None]
GIB = 1 << 30


class Loopback:
    """`with Loopback(answer) as server:` serves on 127.0.0.1 until the block ends."""

    def __init__(self, answer: Answer) -> None:
        self.answer = answer
        self.requests: list[tuple[str, str]] = []  # (method, raw path) in arrival order
        self.closing = threading.Event()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def handle_one_request(self) -> None:
                try:
                    super().handle_one_request()
                except (BrokenPipeError, ConnectionResetError):
                    self.close_connection = True  # the client gave up: what is tested

            def _any(self) -> None:
                outer.requests.append((self.command, self.path))
                length = int(self.headers.get("content-length") or 0)
                self.body = self.rfile.read(length)  # the request's body, for an answer to echo
                outer.answer(self)

            do_GET = do_POST = do_PUT = do_DELETE = _any

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> Loopback:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.closing.set()
        self.server.shutdown()
        self.server.server_close()


def send(
    handler: BaseHTTPRequestHandler,
    body: bytes,
    *,
    status: int = 200,
    headers: dict[str, str] | None = None,
) -> None:
    """A whole answer with a Content-Length (JSON unless told otherwise)."""
    handler.send_response(status)
    all_headers = {"Content-Type": "application/json", **(headers or {})}
    for name, value in all_headers.items():
        handler.send_header(name, value)
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    for start in range(0, len(body), 1 << 16):
        handler.wfile.write(body[start : start + (1 << 16)])


def trickle(
    server: Loopback, handler: BaseHTTPRequestHandler, *, in_headers: bool, gap: float = 0.5
) -> None:
    """One byte every `gap` seconds, for up to a minute: in the body after prompt headers, or
    from the status line on. Ends when the client hangs up (the write then fails)."""
    head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n"
    slow = head + b" " * 1000
    if not in_headers:
        handler.wfile.write(head)
        slow = b" " * 1000
    deadline = time.monotonic() + 60
    for byte in slow:
        if server.closing.is_set() or time.monotonic() > deadline:
            break
        handler.wfile.write(bytes([byte]))
        handler.wfile.flush()
        time.sleep(gap)
    handler.close_connection = True


@functools.cache
def bomb(coding: str, size: int = GIB) -> bytes:
    """`size` zero bytes as a gzip or (zlib-wrapped) deflate stream: about 1 MiB for 1 GiB.

    Built in well under a second instead of compressing a gibibyte: after a full flush the
    compressor starts afresh, so every 1 MiB block of zeros compresses to the same bytes, which
    are repeated; the checksums are computed over the real data. tests/unit pins that it
    inflates to exactly `size` zeros.
    """
    block = bytes(1 << 20)
    packer = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    first, second, third = (packer.compress(block) + packer.flush(zlib.Z_FULL_FLUSH) for _ in "123")
    assert second == third, "zlib did not restart after a full flush"
    count = size // len(block)
    deflated = first + second * (count - 1) + packer.flush()
    crc, adler = 0, 1
    for _ in range(count):
        crc, adler = zlib.crc32(block, crc), zlib.adler32(block, adler)
    if coding == "gzip":
        head = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"
        return head + deflated + struct.pack("<II", crc, size & 0xFFFFFFFF)
    return b"\x78\xda" + deflated + struct.pack(">I", adler)


def nested(depth: int, opener: str = "[", closer: str = "]") -> str:
    return opener * depth + closer * depth
