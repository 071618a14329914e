"""A loopback server that puts terminal attacks in every string it sends (issue 13, item 5).

Standard library only, no code shared with the sandbox: it answers the task API, the 402 of a
submit (x402 body, MPP `WWW-Authenticate`, card block), the card checkout and status pages,
discovery, the advisor, and errors, and every string field of every answer carries `HOSTILE`:
OSC 0 (title), OSC 52 (clipboard), OSC 8 (link), CSI (clear screen, colours), DCS, APC, C1
controls, bidi overrides, zero-width and other format characters, BEL/BS/CR and rich markup. Header values cannot carry ESC or BEL
(HTTP forbids them and httpx refuses them), so they carry what HTTP lets through: C1 controls
as latin-1 bytes, and markup (`HEADER_HOSTILE`).

Each visible piece has a marker (`HX-...`) so a test can tell the field was shown (inert)
rather than dropped.
"""

from __future__ import annotations

import base64
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import quote, urlsplit

HOSTILE = (
    "HX-START"
    "\x1b]0;HX-TITLE\x07"  # OSC 0: window title, BEL-terminated
    "\x1b]52;c;cm0gLXJmIH4=\x1b\\"  # OSC 52: clipboard write ("rm -rf ~"), ST-terminated
    "\x1b]8;;https://evil.example/\x1b\\HX-LINK\x1b]8;;\x1b\\"  # OSC 8 live link
    "\x1b[2J\x1b[H\x1b[31;7mHX-RED\x1b[0m"  # CSI: clear screen, home, colours
    "\x1bP1$rHX-DCS\x1b\\"  # DCS
    "\x1b_HX-APC\x1b\\"  # APC
    "\x9b2J\x9d0;HX-C1TITLE\x07\x90HX-C1DCS\x9c"  # 8-bit CSI, OSC, DCS, ST
    "\u202eHX-BIDI\u2066\u2069"  # bidi override and isolates
    "HX-ZW\u200b\u2060\ufeff\u00ad\U000e0041"  # invisible format characters (Cf)
    "[link=https://evil.example/]HX-MARKUP[/link] [bold red]HX-BOLD[/bold red]"
    "\x07\x08\x00\x7f\rHX-END"
)
HEADER_HOSTILE = "HX-H\x9b2J\x9d0;HX-HTITLE\x9c\x85[link=https://evil.example/]HX-HMARK[/link]"
USDC_BASE = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"
PAY_TO = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"


SUBMITTED_ID = "tsk_HX-SUBMITTED"


def hostile_task(task_id: str, state: str = "completed") -> dict[str, Any]:
    event = {
        "id": "evt_" + HOSTILE,
        "type": "state_changed",
        "created_at": "2026-11-22T18:47:03Z",
        "from_state": "pending",
        "to_state": state,
        "payload": {"message": HOSTILE},
    }
    doc: dict[str, Any] = {
        "id": task_id,
        "state": state,
        "goal": HOSTILE,
        "flow": HOSTILE,
        "created_at": "2026-11-22T18:47:00Z",
        "updated_at": "2026-11-22T18:47:03Z",
        "events": [event, {**event, "type": HOSTILE}],
        "max_budget_usd": None,
        "webhook_url": None,
        "result": None,
        "error": None,
        "completed_at": None,
    }
    if state == "completed":
        doc["result"] = {"summary": HOSTILE, "output": {"text": HOSTILE}}
    elif state == "failed":
        doc.update(error=HOSTILE, reason=HOSTILE)
    elif state == "blocked_on_user":
        doc["info_request"] = {
            "requested_fields": ["seat"],
            "questions": [{"key": "meal", "question": HOSTILE, "options": [HOSTILE, "veg"]}],
            "note": HOSTILE,
            "expires_at": HOSTILE,
        }
    return doc


def x402_challenge() -> dict[str, Any]:
    offer = {
        "scheme": "exact",
        "network": "eip155:8453",
        "asset": USDC_BASE,
        "amount": "10000",
        "payTo": "0x" + HOSTILE,
        "maxTimeoutSeconds": 60,
        "extra": {"name": "USDC", "version": "2"},
    }
    odd_network = {**offer, "network": HOSTILE, "payTo": PAY_TO}
    return {
        "x402Version": 2,
        "error": HOSTILE,
        "resource": {"url": HOSTILE, "description": HOSTILE, "mimeType": "application/json"},
        "accepts": [offer, odd_network],
    }


def mpp_header() -> str:
    request = {"amount": "1", "currency": "usd", "description": HOSTILE, "recipient": HOSTILE}
    encoded = base64.urlsafe_b64encode(json.dumps(request).encode()).decode().rstrip("=")
    return (
        f'Payment id="ch_hostile", realm="{HEADER_HOSTILE}", method="stripe", '
        f'intent="charge", request="{encoded}", expires="2999-01-01T00:00:00Z"'
    )


def openapi() -> dict[str, Any]:
    op = {
        "summary": HOSTILE,
        "description": HOSTILE,
        "operationId": HOSTILE,
        "responses": {"200": {"description": HOSTILE}, HOSTILE: {"description": HOSTILE}},
        "x-payment-info": {"price": {"amount": HOSTILE, "currency": "USD"}},
    }
    return {
        "openapi": "3.1.0",
        "info": {"title": HOSTILE, "version": HOSTILE},
        "paths": {"/svc/tasks": {"post": op}, "/svc/" + HOSTILE: {"get": op}},
    }


class Handler(BaseHTTPRequestHandler):
    server_version = HEADER_HOSTILE.encode("latin-1").decode("latin-1")
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:
        pass

    # --- plumbing ------------------------------------------------------------------------

    def _send(self, status: int, doc: Any, headers: dict[str, str] | None = None) -> None:
        if isinstance(doc, str):
            body, kind = doc.encode(), "text/plain; charset=utf-8"
        else:
            body, kind = json.dumps(doc).encode(), "application/json"
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("X-Hostile", HEADER_HOSTILE)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def _body(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            return json.loads(raw) if raw else None
        except ValueError:
            return None

    def _error(self, status: int) -> None:
        doc = {"error": "conflict", "detail": HOSTILE, "reason": HOSTILE, "message": HOSTILE}
        self._send(status, doc)

    # --- routes --------------------------------------------------------------------------

    def do_GET(self) -> None:
        path = urlsplit(self.path).path
        if path.startswith("/svc/tasks/"):
            task_id = path.rsplit("/", 1)[1]
            if task_id.startswith("tsk_err"):
                return self._error(409)
            state = {"tsk_ask": "blocked_on_user", "tsk_fail": "failed"}.get(task_id, "completed")
            return self._send(200, hostile_task(task_id, state))
        if path == "/card/status":
            return self._send(200, {"status": "paid", "detail": HOSTILE})
        if path == "/services":
            svc = {k: HOSTILE for k in ("slug", "name", "priceUsd", "description")}
            return self._send(200, {"services": [svc]})
        if path.startswith("/services/") or path == "/openapi.json":
            return self._send(200, openapi())
        if path == "/manifest.json":
            row = {k: HOSTILE for k in ("slug", "name", "priceUsd", "service", "meter", "unit")}
            plan = {"id": HOSTILE, "accessMode": HOSTILE, "rates": [row]}
            return self._send(200, {"services": [row], "meters": [row], "plans": [plan]})
        if path in ("/llms.txt", "/llms-full.txt"):
            return self._send(200, HOSTILE + "\n# guide\n" + HOSTILE)
        if path == "/svc/agent/guide":
            return self._send(200, {"guide": "# " + HOSTILE + "\n\n" + HOSTILE, "goal": HOSTILE})
        return self._error(404)

    def do_POST(self) -> None:
        path = urlsplit(self.path).path
        self._body()
        if path == "/svc/tasks":
            return self._submit()
        if path.startswith("/svc/tasks/") and path.endswith("/reply"):
            task_id = path.split("/")[3]
            return self._send(200, {**hostile_task(task_id, "pending"), "state": HOSTILE})
        if path == "/card/pay":
            # Raw control characters in a link are refused by the origin gate (its own tests:
            # tests/e2e/test_origin_gate.py); here they arrive percent-encoded, with the rich
            # markup brackets left raw, so the page link is shown and must stay inert.
            query = quote(HOSTILE, safe="[]/=")
            link = f"http://127.0.0.1:{self.server.server_port}/checkout?{query}"
            return self._send(201, {"checkoutUrl": link, "detail": HOSTILE})
        if path == "/svc/agent/quote":
            doc = {k: HOSTILE for k in ("status", "priceUsd", "guide")}
            # A link passes the origin gate's shape or the quote is refused (tested there).
            doc["guideUrl"] = f"http://127.0.0.1:{self.server.server_port}/g?{quote(HOSTILE)}"
            return self._send(200, doc)
        if path == "/svc/agent/guide":
            return self._send(200, {"guide": HOSTILE})
        return self._error(404)

    def _submit(self) -> None:
        paid = any(
            self.headers.get(h)
            for h in ("payment-signature", "x-payment", "authorization", "svc-payment-id")
        )
        if paid:
            billing = {"svc-billing": HEADER_HOSTILE, "svc-usage-error": HEADER_HOSTILE}
            # A task id that is not an id is refused as an unreadable answer (issue 13.4, exit
            # 10 after payment): the 202's id carries only the marker; every other field
            # stays hostile.
            return self._send(202, hostile_task(SUBMITTED_ID, "pending"), billing)
        port = self.server.server_port
        body = {
            **x402_challenge(),
            "detail": HOSTILE,
            "payment": {"id": "pay_hostile", "amountUsd": "1.00", "currency": "USD"},
            "card": {
                "payUrl": f"http://127.0.0.1:{port}/card/pay",
                "statusUrl": f"http://127.0.0.1:{port}/card/status",
            },
        }
        self._send(402, body, {"WWW-Authenticate": mpp_header()})


class HostileTextServer:
    """The server on an ephemeral loopback port, in a daemon thread."""

    def __init__(self) -> None:
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_port}"
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> HostileTextServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
