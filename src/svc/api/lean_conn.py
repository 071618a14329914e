"""One exchange on an HTTP/1.1 connection, without httpcore: the request out, the answer in
whole, under one deadline and the size cap (the lean route of a GET or a small POST, api/lean.py).

Each socket operation is bounded by its own timeout and by what is left of the answer's
deadline, as api/httpx_route.DeadlineTransport bounds httpcore's: a server that trickles a byte
just inside each read timeout cannot stretch an answer past it. Socket errors become httpx's
exceptions as httpcore maps them (a timeout is httpx's Timeout of that step, any other OSError
its ReadError, WriteError or ConnectError), so the retry loop sees what it always saw.
"""

from __future__ import annotations

import math
import select
import socket
import ssl
import time

import httpx  # svc/__init__.py has already kept httpx's CLI (click, rich) from loading

from svc.api.capped import ResponseTooLargeError
from svc.api.wire_rules import (
    BLANK_LINE,
    CHUNK_HEADER,
    MAX_HEAD,
    Head,
    broken,
    header_fields,
    parse_head,
)

_RECV = 64 * 1024
_CRLF = b"\r\n"
_DISCONNECTED = "Server disconnected without sending a response."
_CUT_CHUNKED = (
    "peer closed connection without sending complete message body (incomplete chunked read)"
)


class Clock:
    """What is left of one answer's deadline, for each step (its own timeout cut to it)."""

    def __init__(self, seconds: float, timeouts: dict[str, float | None]) -> None:
        self.until = time.monotonic() + seconds
        self.timeouts = timeouts

    def left(self, step: str, error: type[httpx.TimeoutException]) -> float:
        left = self.until - time.monotonic()
        if left <= 0:
            raise error("the whole answer took longer than its deadline")
        timeout = self.timeouts.get(step)
        return left if timeout is None else min(timeout, left)


def connect(host: str, port: int, clock: Clock) -> socket.socket:
    """A TCP connection as httpcore opens one (TCP_NODELAY on). The host goes to the resolver
    as bytes: it is ASCII already (httpx's raw host, an IDN in its xn-- form), and a str would
    be run through Python's IDNA codec first, whose import (with stringprep) was 5 ms of each
    command's first connection."""
    timeout = clock.left("connect", httpx.ConnectTimeout)
    try:
        # typeshed says str; CPython's resolver takes bytes as well (getaddrinfo)
        sock = socket.create_connection((host.encode("ascii"), port), timeout)  # type: ignore[arg-type]
    except TimeoutError as exc:
        raise httpx.ConnectTimeout(str(exc) or "timed out") from exc
    except OSError as exc:
        raise httpx.ConnectError(str(exc)) from exc
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def handshake(
    sock: socket.socket, context: ssl.SSLContext, host: str, clock: Clock
) -> ssl.SSLSocket:
    """TLS on a new connection, as httpcore starts it: `context` verifies (CERT_REQUIRED, the
    host name checked against `host`, which is also the SNI), errors mapped as httpcore maps
    them. The handshake is one call under one timeout, and CPython bounds a whole SSL call by
    its timeout (not each read inside it): a server trickling its handshake cannot stretch it
    past the answer's deadline. The socket is closed on any failure, nothing was sent on it."""
    try:
        sock.settimeout(clock.left("connect", httpx.ConnectTimeout))
        # bytes: ssl takes them as ASCII, where a str would load Python's IDNA codec
        return context.wrap_socket(sock, server_hostname=host.encode("ascii"))
    except TimeoutError as exc:
        sock.close()
        raise httpx.ConnectTimeout(str(exc) or "timed out") from exc
    except OSError as exc:  # ssl.SSLError (a refused certificate among them) is an OSError
        sock.close()
        raise httpx.ConnectError(str(exc)) from exc
    except BaseException:
        sock.close()
        raise


class Exchange:
    """One request and its whole answer on `sock`; `leftover` says whether the server sent
    more than the answer (then the connection is not used again)."""

    def __init__(self, sock: socket.socket, clock: Clock, url: httpx.URL, limit: int) -> None:
        self.sock = sock
        self.clock = clock
        self.url = url
        self.limit = limit
        self.buf = bytearray()
        self.whole = False  # the whole request was written (else the connection is not kept)
        self.plain = not isinstance(sock, ssl.SSLSocket)
        if self.plain and sock.gettimeout() != 0.0:
            sock.setblocking(False)  # once a connection: see _wait

    def send(self, request: bytes) -> None:
        """The request's bytes (head and body) in one write, bounded as a whole. A write the
        connection refuses is not an error yet, as in httpcore: the server may have answered
        and closed before reading it all (a refusal of a large body), so the answer is read
        next, and a connection that had gone away ends there (no answer: its error); either
        way the request is never written again here."""
        try:
            if self.plain:
                self._send_plain(request)
            else:
                self.sock.settimeout(self.clock.left("write", httpx.WriteTimeout))
                self.sock.sendall(request)
        except TimeoutError as exc:
            raise httpx.WriteTimeout(str(exc) or "timed out") from exc
        except OSError:
            return
        self.whole = True

    def _send_plain(self, request: bytes) -> None:
        view = memoryview(request)
        while view:
            try:
                view = view[self.sock.send(view) :]
            except BlockingIOError:
                self._wait(select.POLLOUT, self.clock.left("write", httpx.WriteTimeout))

    def _fill(self) -> bool:
        """More bytes into the buffer; False when the server has closed its side."""
        try:
            data = self._recv_plain() if self.plain else self._recv_tls()
        except TimeoutError as exc:
            raise httpx.ReadTimeout(str(exc) or "timed out") from exc
        except OSError as exc:
            raise httpx.ReadError(str(exc)) from exc
        self.buf += data
        return bool(data)

    def _recv_plain(self) -> bytes:
        while True:
            self._wait(select.POLLIN, self.clock.left("read", httpx.ReadTimeout))
            try:
                return self.sock.recv(_RECV)
            except BlockingIOError:  # ready, then not (a spurious wake-up): wait again
                continue

    def _recv_tls(self) -> bytes:
        self.sock.settimeout(self.clock.left("read", httpx.ReadTimeout))
        return self.sock.recv(_RECV)

    def _wait(self, events: int, seconds: float) -> None:
        """Until the plain socket is ready for `events`, within `seconds` (TimeoutError, as a
        socket with a timeout raises it, past them). A plain connection stays non-blocking and
        is waited on here, where a timeout set before each step cost an ioctl a step, each a
        hand-off of the GIL among a batch's workers; a TLS one keeps its timeouts (its reads
        may need writes, which the SSL layer does inside one call)."""
        poller = select.poll()
        poller.register(self.sock, events)
        if not poller.poll(max(1, math.ceil(seconds * 1000))):
            raise TimeoutError("timed out")

    def head(self) -> Head:
        """The answer's head, informational (1xx) answers passed over as httpcore does. A
        `101 Switching Protocols` is no answer: this route never asks for an upgrade (a
        request that does goes to httpx's), so, as h11 judges it, the connection broke and
        what the request did is unknown; never a final answer read as the service's."""
        while True:
            head = parse_head(self._lines(_DISCONNECTED))
            if head.status == 101:
                raise broken("Received server _SWITCH_UPGRADE event without a pending proposal")
            if not 100 <= head.status < 200:
                return head

    def _lines(self, cut: str) -> bytes:
        """The bytes up to a blank line, taken off the buffer (`cut`: the error at EOF)."""
        searched = 0
        while True:
            match = BLANK_LINE.search(self.buf, max(0, searched - 2))
            if match is not None:
                block = bytes(self.buf[: match.start()])
                del self.buf[: match.end()]
                return block
            if len(self.buf) > MAX_HEAD:
                raise broken("Receive buffer too long")
            searched = len(self.buf)
            if not self._fill():
                raise broken(cut)

    def body(self, head: Head) -> bytes:
        if head.framing == "length":
            return self._counted(head.length)
        if head.framing == "chunked":
            return self._chunked()
        return self._until_close()

    def _too_large(self) -> ResponseTooLargeError:
        return ResponseTooLargeError(self.url, self.limit)

    def _counted(self, length: int) -> bytes:
        if length > self.limit:
            raise self._too_large()
        while len(self.buf) < length:
            if not self._fill():
                raise broken(
                    "peer closed connection without sending complete message body "
                    f"(received {len(self.buf)} bytes, expected {length})"
                )
        return self._take(length)

    def _take(self, size: int) -> bytes:
        """The first `size` bytes of the buffer, taken off it (copied once: a 16 MiB answer
        is not held three times)."""
        with memoryview(self.buf) as view:
            taken = bytes(view[:size])
        del self.buf[:size]
        return taken

    def _chunked(self) -> bytes:
        body = bytearray()  # not a list of chunks: a flood of 1-byte chunks stays its size
        while True:
            size = self._chunk_size()
            if size == 0:
                self._trailers()
                return bytes(body)
            while len(self.buf) < size + 2:
                # Counted as it arrives, as the httpx route counts: a chunk that declares more
                # than the cap and then stops is a cut answer on both, not a large one.
                if len(body) + len(self.buf) > self.limit:
                    raise self._too_large()
                if not self._fill():
                    raise broken(_CUT_CHUNKED)
            if len(body) + size > self.limit:
                raise self._too_large()
            if self.buf[size : size + 2] != b"\r\n":
                footer = self.buf[size : size + 2]
                raise broken(f"malformed chunk footer: {footer!r} (expected {_CRLF!r})")
            body += self._take(size)
            del self.buf[:2]

    def _chunk_size(self) -> int:
        while (end := self.buf.find(b"\r\n")) < 0:
            if len(self.buf) > MAX_HEAD:
                raise broken("Receive buffer too long")
            if not self._fill():
                raise broken(_CUT_CHUNKED)
        line = self.buf[: end + 2]  # a bytearray, as h11 names it in the error
        del self.buf[: end + 2]
        match = CHUNK_HEADER.fullmatch(line)
        if match is None:
            raise broken(f"illegal chunk header: {line!r}")
        return int(match["size"], 16)

    def _trailers(self) -> None:
        """The trailer fields after the last chunk, checked as h11 checks them, then dropped."""
        while len(self.buf) < 2 and self.buf[:1] != b"\n":
            if not self._fill():
                raise broken(_CUT_CHUNKED)
        for start in (b"\n", b"\r\n"):
            if self.buf.startswith(start):
                del self.buf[: len(start)]
                return
        lines = bytearray(self._lines(_CUT_CHUNKED)).split(b"\n")
        header_fields([line[:-1] if line.endswith(b"\r") else line for line in lines])

    def _until_close(self) -> bytes:
        while self._fill():
            if len(self.buf) > self.limit:
                raise self._too_large()
        return self._take(len(self.buf))
