"""A hostile peer for the origin gate (issue 21): identity discovery that names other hosts,
links for people with userinfo, IDN or bidi tricks, and card pages elsewhere.

Like tests/hostile_peer.py it is the other side of the wire and imports nothing from `svc`. It
speaks just enough of the identity platform (discovery, registration, claim, token,
entitlements) and of the card rail (a 402 with `payment`/`card`, payUrl, statusUrl) for `svc`
to reach the URL under attack. A second instance on another port is the thief: every request
it receives is a hole (`thief.books`).
"""

from __future__ import annotations

import json
import secrets
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

AUTH = "/auth"
EXPIRES = "2099-01-01T00:00:00Z"


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class LinksConfig:
    # discovery keys (`token_endpoint` or an `agent_auth` key) -> a URL to list instead
    endpoints: dict[str, str] = field(default_factory=dict)
    # the RFC 9728 document, or None for a 404
    protected_resource: dict[str, Any] | None = None
    verification_uri: str | None = None  # None: {auth}/verify/att_1 on this peer
    pay_url: str | None = None  # None: /svc/payments/pay_1/pay on this peer
    status_url: str | None = None
    checkout_url: str | None = None  # what POST payUrl answers with (None: no link)
    guide_url: str | None = None  # the quote's guideUrl (None: the guide on this peer)


class LinksPeer:
    def __init__(self) -> None:
        self.config = LinksConfig()
        self.books: list[Seen] = []
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    @property
    def auth(self) -> str:
        return self.url + AUTH

    def paths(self, method: str | None = None) -> list[str]:
        return [s.path for s in self.books if method is None or s.method == method]

    def start(self) -> LinksPeer:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _discovery(peer: LinksPeer) -> dict[str, Any]:
    auth = peer.auth
    agent = {
        "registration_endpoint": f"{auth}/agent/identity",
        "claim_endpoint": f"{auth}/agent/identity/claim",
        "claim_completion_endpoint": f"{auth}/agent/identity/claim/complete",
        "entitlements_endpoint": f"{auth}/agent/entitlements",
    }
    doc: dict[str, Any] = {"issuer": auth, "token_endpoint": f"{auth}/oauth2/token"}
    for key, value in peer.config.endpoints.items():
        (doc if key == "token_endpoint" else agent)[key] = value
    doc["agent_auth"] = agent
    return doc


def _registration() -> dict[str, Any]:
    return {
        "id": "agt_" + secrets.token_hex(8),
        "type": "anonymous",
        "claimed": False,
        "identity": {
            "assertion": "hostile-assertion-" + secrets.token_hex(8),
            "expires_at": EXPIRES,
        },
        "expires_at": EXPIRES,
        "claim": {"token": "clm_" + secrets.token_hex(8), "expires_at": EXPIRES},
    }


def _card_402(peer: LinksPeer) -> dict[str, Any]:
    base = f"{peer.url}/svc/payments/pay_1"
    return {
        "error": "payment_required",
        "payment": {"id": "pay_1", "amountUsd": "1.500000", "currency": "USD"},
        "card": {
            "payUrl": peer.config.pay_url or f"{base}/pay",
            "statusUrl": peer.config.status_url or f"{base}/status",
        },
    }


def _quote(peer: LinksPeer) -> dict[str, Any]:
    guide_url = peer.config.guide_url or f"{peer.url}/svc/agent/guide?goal=x"
    return {"status": "quoted", "priceUsd": "0", "guide": "# The guide", "guideUrl": guide_url}


def _route(peer: LinksPeer, method: str, path: str) -> tuple[int, Any]:
    cfg = peer.config
    routes: dict[tuple[str, str], Callable[[], tuple[int, Any]]] = {
        ("GET", f"{AUTH}/.well-known/oauth-authorization-server"): lambda: (200, _discovery(peer)),
        ("GET", f"{AUTH}/.well-known/oauth-protected-resource"): lambda: (
            (200, cfg.protected_resource)
            if cfg.protected_resource
            else (404, {"error": "not_found"})
        ),
        ("POST", f"{AUTH}/agent/identity"): lambda: (201, _registration()),
        ("POST", f"{AUTH}/agent/identity/claim"): lambda: (
            200,
            {
                "attempt": {
                    "verification_uri": cfg.verification_uri or f"{peer.auth}/verify/att_1",
                    "expires_at": EXPIRES,
                }
            },
        ),
        ("POST", f"{AUTH}/agent/identity/claim/complete"): lambda: (
            400,
            {"error": "claim_not_confirmed"},
        ),
        ("POST", f"{AUTH}/oauth2/token"): lambda: (
            200,
            {"access_token": "hostile-bearer", "token_type": "Bearer", "expires_in": 300},
        ),
        ("GET", f"{AUTH}/agent/entitlements"): lambda: (200, {"entitlements": []}),
        ("POST", "/svc/tasks"): lambda: (402, _card_402(peer)),
        ("POST", "/svc/payments/pay_1/pay"): lambda: (
            200,
            {"checkoutUrl": cfg.checkout_url} if cfg.checkout_url else {},
        ),
        ("GET", "/svc/payments/pay_1/status"): lambda: (200, {"status": "pending"}),
        ("POST", "/svc/agent/quote"): lambda: (200, _quote(peer)),
    }
    answer = routes.get((method, path))
    return answer() if answer else (404, {"error": "not_found"})


def _handler_for(peer: LinksPeer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _serve(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length) if length else b""
            path = self.path.split("?", 1)[0]
            with peer.lock:
                peer.books.append(Seen(self.command, path, dict(self.headers), body))
            status, doc = _route(peer, self.command, path)
            data = json.dumps(doc).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = _serve

    return Handler


@pytest.fixture
def links_peers() -> Iterator[tuple[LinksPeer, LinksPeer]]:
    """(the service, the thief): two origins on loopback, stopped after the test."""
    peer, thief = LinksPeer().start(), LinksPeer().start()
    yield peer, thief
    peer.stop()
    thief.stop()
