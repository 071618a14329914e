"""A loopback peer that writes exactly the bytes a test gives it: the malformed answers an
`http.server` handler cannot send (bad framing, illegal header bytes, a close mid-answer), and a
record of each connection and the raw requests it carried (to compare two clients' bytes, and to
see whether a connection was kept)."""

from __future__ import annotations

import socket
import ssl
import threading
import time
from collections.abc import Callable
from typing import Self

# Given the request's index (0, 1, ... in arrival order, over every connection), the bytes to
# send and whether to close the connection afterwards; bytes may be a list, sent one after another with `gap`.
Script = Callable[[int], tuple[bytes | list[bytes], bool]]


class Listener:
    """A loopback listener serving each connection in a thread of its own (`_serve(conn,
    number)`, numbered from 1) until the `with` block ends."""

    # Its connection threads are the test's (tests/inproc.py): under load one may still be
    # reading the EOF of a connection the command closed as it returned.
    serves_the_test = True

    def __init__(self, scheme: str) -> None:
        self.connections = 0
        self.closing = threading.Event()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"{scheme}://127.0.0.1:{self.listener.getsockname()[1]}"

    def __enter__(self) -> Self:
        threading.Thread(target=self._accept, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.closing.set()
        self.listener.close()

    def _accept(self) -> None:
        while not self.closing.is_set():
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            self.connections += 1
            number = self.connections
            threading.Thread(target=self._serve, args=(conn, number), daemon=True).start()

    def _serve(self, conn: socket.socket, number: int) -> None:
        raise NotImplementedError


class RawPeer(Listener):
    def __init__(self, script: Script, gap: float = 0.0, tls: ssl.SSLContext | None = None) -> None:
        self.script = script
        self.tls = tls  # a server context: the peer speaks https (tests/tls_peer.py)
        self.handshakes = 0  # connections whose TLS handshake completed
        self.gap = gap
        # (connection number, the request's head and its body, if it has a Content-Length)
        self.requests: list[tuple[int, bytes]] = []
        self.lock = threading.Lock()
        super().__init__("https" if tls else "http")

    def _serve(self, conn: socket.socket, number: int) -> None:
        if self.tls is not None:
            try:
                conn.settimeout(10)
                conn = self.tls.wrap_socket(conn, server_side=True)
                conn.settimeout(None)
            except OSError:  # the client refused the certificate: nothing was sent
                conn.close()
                return
            with self.lock:
                self.handshakes += 1
        buf = b""
        with conn:
            while not self.closing.is_set():
                buf = _received(conn, buf, lambda b: b"\r\n\r\n" in b)
                if buf is None:
                    return
                head, _, buf = buf.partition(b"\r\n\r\n")
                length = _content_length(head)
                # a request's body (a POST's) is read whole
                buf = _received(conn, buf, lambda b: len(b) >= length)
                if buf is None:
                    return
                body, buf = buf[:length], buf[length:]
                with self.lock:
                    index = len(self.requests)
                    self.requests.append((number, head + b"\r\n\r\n" + body))
                answer, close = self.script(index)
                if not self._write(conn, answer):
                    return
                if close:
                    return

    def _write(self, conn: socket.socket, answer: bytes | list[bytes]) -> bool:
        parts = [answer] if isinstance(answer, bytes) else answer
        try:
            for part in parts:
                if self.closing.is_set():
                    return False
                conn.sendall(part)
                if self.gap:
                    time.sleep(self.gap)
        except OSError:
            return False
        return True


def _received(conn: socket.socket, buf: bytes, enough: Callable[[bytes], bool]) -> bytes | None:
    """`buf` read on until `enough` says so; None when the peer closed or the socket failed."""
    while not enough(buf):
        try:
            data = conn.recv(65536)
        except OSError:
            return None
        if not data:
            return None
        buf += data
    return buf


def _content_length(head: bytes) -> int:
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return int(value.strip())
    return 0


def json_answer(body: bytes = b'{"ok": true}', *extra: bytes) -> bytes:
    """A whole 200 JSON answer with its Content-Length (and any extra header lines)."""
    fields = b"".join(line + b"\r\n" for line in extra)
    return (
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
        + fields
        + b"Content-Length: %d\r\n\r\n" % len(body)
        + body
    )
