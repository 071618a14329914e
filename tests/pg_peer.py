"""A scripted PostgreSQL server on loopback for the lean client's hostile tests: each
connection runs the test's `script(peer)`, which reads the client's messages and writes any
bytes it likes (a lying length, a close mid-message, a forged SCRAM signature, silence).
What every connection sent is kept (`received`), to show what the client did next."""

from __future__ import annotations

import base64
import hashlib
import hmac
import socket
import struct
import threading
from collections.abc import Callable

from tests.raw_peer import Listener


def msg(kind: bytes, payload: bytes = b"") -> bytes:
    return kind + struct.pack("!i", len(payload) + 4) + payload


def auth(code: int, data: bytes = b"") -> bytes:
    return msg(b"R", struct.pack("!i", code) + data)


READY_IDLE = msg(b"Z", b"I")
GREETING = (
    auth(0)
    + msg(b"S", b"client_encoding\0UTF8\0")
    + msg(b"K", struct.pack("!ii", 4242, 7))
    + READY_IDLE
)


def error(sqlstate: str, text: str, severity: str = "ERROR") -> bytes:
    body = f"S{severity}\0V{severity}\0C{sqlstate}\0M{text}\0\0".encode()
    return msg(b"E", body)


class PeerConnection:
    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.received: list[tuple[bytes, bytes]] = []  # (type, body) of each message read

    def startup(self) -> dict[str, str]:
        (length,) = struct.unpack("!i", self._exactly(4))
        body = self._exactly(length - 4)
        parts = body[4:].split(b"\0")
        return {parts[i].decode(): parts[i + 1].decode() for i in range(0, len(parts) - 2, 2)}

    def read(self) -> tuple[bytes, bytes]:
        kind = self._exactly(1)
        (length,) = struct.unpack("!i", self._exactly(4))
        body = self._exactly(length - 4)
        self.received.append((kind, body))
        return kind, body

    def until_sync(self) -> list[str]:
        """The client's statements (Parse's SQL) up to its Sync."""
        statements = []
        while True:
            kind, body = self.read()
            if kind == b"P":
                statements.append(body.split(b"\0")[1].decode())
            if kind == b"S":
                return statements

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def _exactly(self, count: int) -> bytes:
        data = b""
        while len(data) < count:
            chunk = self.sock.recv(count - len(data))
            if not chunk:
                raise EOFError
            data += chunk
        return data


Script = Callable[[PeerConnection], None]


class PgPeer(Listener):
    def __init__(self, script: Script) -> None:
        self.script = script
        self.peers: list[PeerConnection] = []
        self.done = threading.Event()
        super().__init__("postgresql")

    def ledger_url(self, database: str = "db", extra: str = "") -> str:
        port = self.listener.getsockname()[1]
        return f"postgresql://svc:secret@127.0.0.1:{port}/{database}?sslmode=disable{extra}"

    def _serve(self, conn: socket.socket, number: int) -> None:
        peer = PeerConnection(conn)
        self.peers.append(peer)
        conn.settimeout(30)
        try:
            self.script(peer)
        except (EOFError, OSError):
            pass
        finally:
            self.done.set()
            conn.close()


def scram_server(peer: PeerConnection, password: str, *, forge: bool = False) -> None:
    """A server's side of SCRAM-SHA-256 for `password`; `forge`: a wrong final signature (a
    server that does not know the password, pretending)."""
    peer.startup()
    peer.send(auth(10, b"SCRAM-SHA-256\0\0"))
    _, body = peer.read()
    mechanism_end = body.index(b"\0")
    first = body[mechanism_end + 5 :].decode()
    client_bare = first[3:]  # after "n,,"
    nonce = client_bare.split("r=", 1)[1] + "serverpart"
    salt, count = b"0123456789abcdef", 4096
    server_first = f"r={nonce},s={base64.b64encode(salt).decode()},i={count}"
    peer.send(auth(11, server_first.encode()))
    _, final = peer.read()
    without_proof = final.decode().rsplit(",p=", 1)[0]
    message = f"{client_bare},{server_first},{without_proof}".encode()
    salted = hashlib.pbkdf2_hmac("sha256", password.encode(), salt, count)
    server_key = hmac.digest(salted, b"Server Key", "sha256")
    signature = hmac.digest(server_key, message, "sha256")
    if forge:
        signature = bytes(32)
    peer.send(auth(12, b"v=" + base64.b64encode(signature)))
    peer.send(GREETING)
    peer.until_sync()  # only a client that accepted the signature gets here
    peer.send(msg(b"1") + msg(b"2") + msg(b"n") + msg(b"C", b"SELECT 0\0") + READY_IDLE)
