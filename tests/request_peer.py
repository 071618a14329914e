"""A small hostile origin for `svc request`: a loopback HTTP server that answers each request by
a function the test sets, and keeps every request it got (method, path, headers, body).

It shares no code with the sandbox or svc: its 402 is written from docs/protocols.md (x402 v2
`PAYMENT-REQUIRED`, the Base Sepolia test terms that svc accepts from loopback only).
"""

from __future__ import annotations

import base64
import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

SEPOLIA = "eip155:84532"
SEPOLIA_USDC = "0x036CbD53842c5426634e7929541eC2318f3dCF7e"
PAY_TO = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"
PROOF_HEADERS = ("payment-signature", "x-payment", "authorization")


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    @property
    def proof(self) -> str | None:
        return self.headers.get("payment-signature") or self.headers.get("x-payment")


@dataclass
class Reply:
    status: int
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    length: int | None = None  # the Content-Length declared; more than the body: cut off
    stall: float = 0  # seconds of silence between the headers and the body


HERE = "http://peer/"  # a challenge's resource: the peer answering it puts its own URL there


def challenge(amount_atomic: int = 10_000, url: str = HERE) -> Reply:
    """An x402 v2 402 for `amount_atomic` µUSDC on Base Sepolia, for the resource `url` (by
    default the one requested from the peer that answers it)."""
    required = {
        "x402Version": 2,
        "error": "payment_required",
        "resource": {"url": url},
        "accepts": [
            {
                "scheme": "exact",
                "network": SEPOLIA,
                "amount": str(amount_atomic),
                "asset": SEPOLIA_USDC,
                "payTo": PAY_TO,
                "maxTimeoutSeconds": 60,
                "extra": {"name": "USDC", "version": "2"},
            }
        ],
    }
    encoded = base64.b64encode(json.dumps(required).encode()).decode()
    return Reply(402, {"PAYMENT-REQUIRED": encoded}, b"{}")


def decoded(proof: str) -> dict[str, Any]:
    value = json.loads(base64.b64decode(proof + "=" * (-len(proof) % 4)))
    assert isinstance(value, dict)
    return value


class Peer:
    def __init__(self, answer: Callable[[Seen], Reply]) -> None:
        self.answer = answer
        self.seen: list[Seen] = []
        peer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _any(self) -> None:
                size = int(self.headers.get("content-length") or 0)
                got = Seen(
                    self.command,
                    self.path,
                    {k.lower(): v for k, v in self.headers.items()},
                    self.rfile.read(size),
                )
                peer.seen.append(got)
                reply = peer.own(peer.answer(got), got.path)
                self.send_response(reply.status)
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                declared = len(reply.body) if reply.length is None else reply.length
                self.send_header("content-length", str(declared))
                self.end_headers()
                if reply.stall:
                    self.wfile.flush()
                    time.sleep(reply.stall)
                self.wfile.write(reply.body)
                if declared != len(reply.body):
                    self.close_connection = True  # the rest of the body never comes

            do_GET = do_POST = do_PUT = do_DELETE = _any

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def own(self, reply: Reply, path: str) -> Reply:
        """A 402 naming HERE as its resource names this peer's URL instead."""
        required = reply.headers.get("PAYMENT-REQUIRED")
        if reply.status != 402 or required is None:
            return reply
        body = json.loads(base64.b64decode(required))
        if body.get("resource", {}).get("url") == HERE:
            body["resource"]["url"] = f"{self.url}{path}"
        encoded = base64.b64encode(json.dumps(body).encode()).decode()
        return Reply(402, {**reply.headers, "PAYMENT-REQUIRED": encoded}, reply.body)

    def proofs(self) -> list[str]:
        return [s.proof for s in self.seen if s.proof]

    def __enter__(self) -> Peer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def serving(answer: Callable[[Seen], Reply]) -> Iterator[Peer]:
    with Peer(answer) as peer:
        yield peer
