"""A hostile peer: a loopback HTTP server whose only job is to attack the client (issue 12).

It is the other side of the wire, so it shares no code with the sandbox and imports nothing
from `svc`: the wire shapes below are written from the spec and docs/protocols.md. It speaks
just enough of the service for `svc submit` and `svc poll` to be believable:

* an unpaid `POST .../svc/tasks` gets a 402 with an x402 challenge (v2 `PAYMENT-REQUIRED`
  header, or a v1 JSON body), an MPP `WWW-Authenticate: Payment` challenge and the card
  `payment`/`card` blocks (payUrl and statusUrl on the peer itself);
* a request carrying a proof (`x-payment`, `Authorization: Payment`, `svc-payment-id`) is
  answered by `config.mode` (see `MODES`);
* `GET .../svc/tasks/{id}` returns the task the peer made, forever in `config.task_state`.

The test configures it in-process (`peer.config.mode = "bad_request"`), never over HTTP. Every
request is kept in `peer.books`, with each x402 authorization decoded (and its signer recovered)
and each MPP credential decoded, so a test asserts what the client actually sent.
"""

from __future__ import annotations

import base64
import contextlib
import json
import re
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"
PAY_TO = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"
PRICE_ATOMIC = 1_500_000  # the spec's 1.500000 USD task fee
PRICE_CENTS = 150
USDC_DOMAIN = {"name": "USD Coin", "version": "2"}
V1_CHAINS = {"base": 8453, "base-sepolia": 84532}
MODES = (
    "accept",  # 202 with a task (the same task for the same svc-request-id)
    "redirect",  # 307 to another path
    "bad_request",  # 400 invalid_request
    "codeless_402",  # 402 with a fresh challenge and no error code
    "settlement_failed",  # 402 settlement_failed + a fresh challenge, forever
    "payment_consumed",  # 402 payment_consumed
    "repeat_402",  # the very same unpaid 402 again
    "drop",  # close the connection without an answer: a lost answer
    "nested_json",  # 202 whose body nests 100000 levels deep
    "slow",  # sleep `slow_seconds` before answering any submit (paid: accept)
)
PROOF_HEADERS = ("x-payment", "payment-signature", "authorization", "svc-payment-id")
_TASK = re.compile(r"/svc/tasks/([^/?]+)$")
_CARD = re.compile(r"/svc/payments/([^/?]+)/(pay|status)$")


@dataclass
class PeerConfig:
    mode: str = "accept"
    version: int = 2  # x402 challenge: 2 = PAYMENT-REQUIRED header, 1 = JSON body
    pay_to: str = PAY_TO
    realm: str = "peer.example"
    network: str | None = None  # None: eip155:8453 (v2) or base (v1)
    max_timeout: int = 60
    slow_seconds: float = 2.0
    card_complete: bool = True  # what statusUrl reports
    task_state: str = "pending"
    # The amount each rail's offer states, as wire text (None: the honest 1.50 USD): a test
    # serves fullwidth digits or `1_0.5` here to see that it is refused, never paid.
    x402_amount: str | None = None
    mpp_amount: str | None = None
    card_amount: str | None = None

    def accepts_entry(self) -> dict[str, Any]:
        entry: dict[str, Any] = {"scheme": "exact", "asset": USDC, "payTo": self.pay_to}
        amount = str(PRICE_ATOMIC) if self.x402_amount is None else self.x402_amount
        if self.version == 1:
            entry.update(network=self.network or "base", maxAmountRequired=amount)
            entry.update(resource="/svc/tasks", description="Task fee", mimeType="application/json")
        else:
            entry.update(network=self.network or "eip155:8453", amount=amount)
        entry.update(maxTimeoutSeconds=self.max_timeout, extra=dict(USDC_DOMAIN))
        return entry


@dataclass
class Received:
    """One request, as the peer saw it."""

    at: float
    method: str
    path: str
    port: int
    request_id: str | None
    proofs: tuple[str, ...]  # names of the proof headers it carried
    x402: dict[str, Any] | None = None  # the decoded proof (x402Version, accepted?, payload)
    authorization: dict[str, str] | None = None  # EIP-3009 from, to, value, valid*, nonce
    signer: str | None = None  # recovered from the signature, None if it does not recover
    mpp_credential: str | None = None  # the Authorization value exactly as received
    mpp: dict[str, Any] | None = None  # the decoded credential (challenge echo, payload.spt)
    payment_id: str | None = None
    status: int | None = None  # what the peer answered; None: dropped (or not answered yet)


class HostilePeer:
    def __init__(self) -> None:
        self.config = PeerConfig()
        self.books: list[Received] = []
        self.tasks: dict[str, dict[str, Any]] = {}  # task id -> task
        self.by_request: dict[str, str] = {}  # svc-request-id -> task id
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)

    @property
    def port(self) -> int:
        return int(self.server.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> HostilePeer:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    # --- the books ---------------------------------------------------------------------------

    def requests(self, request_id: str | None = None) -> list[Received]:
        with self.lock:
            return [r for r in self.books if request_id is None or r.request_id == request_id]

    def proofs_received(self) -> list[Received]:
        return [r for r in self.requests() if r.proofs]

    def authorizations(self, request_id: str | None = None) -> list[dict[str, Any]]:
        """Every x402 authorization received (re-sends included), with its signer and port."""
        return [
            {
                **r.authorization,
                "signer": r.signer,
                "request_id": r.request_id,
                "port": r.port,
                "at": r.at,
            }
            for r in self.requests(request_id)
            if r.authorization is not None
        ]

    def distinct_nonces(self, request_id: str | None = None) -> set[str]:
        return {a["nonce"] for a in self.authorizations(request_id)}

    def live_authorizations(self, now: float | None = None) -> list[dict[str, Any]]:
        """One per nonce, still settleable by whoever holds it (validBefore > now)."""
        moment = time.time() if now is None else now
        unique = {a["nonce"]: a for a in self.authorizations()}
        return [a for a in unique.values() if _int(a.get("validBefore")) > moment]

    def total_live_value(self, now: float | None = None) -> int:
        return sum(_int(a.get("value")) for a in self.live_authorizations(now))

    def credentials(self, request_id: str | None = None) -> list[str]:
        return [r.mpp_credential for r in self.requests(request_id) if r.mpp_credential]

    def answered(self, status: int) -> list[Received]:
        return [r for r in self.requests() if r.status == status]

    def task_of(self, request_id: str) -> str | None:
        with self.lock:
            return self.by_request.get(request_id)


def _int(value: object) -> int:
    try:
        return int(str(value))
    except ValueError:
        return 0


# --- reading proofs --------------------------------------------------------------------------


def _b64json(value: str, urlsafe: bool = False) -> Any:
    text = value.strip()
    text += "=" * (-len(text) % 4)
    raw = base64.urlsafe_b64decode(text) if urlsafe else base64.b64decode(text)
    return json.loads(raw)


def _chain(network: str) -> int:
    if network in V1_CHAINS:
        return V1_CHAINS[network]
    return int(network.split(":", 1)[1])


def _fields(*pairs: str) -> list[dict[str, str]]:
    return [dict(zip(("name", "type"), pair.split(":"), strict=True)) for pair in pairs]


EIP712_TYPES = {
    "EIP712Domain": _fields(
        "name:string", "version:string", "chainId:uint256", "verifyingContract:address"
    ),
    "TransferWithAuthorization": _fields(
        "from:address",
        "to:address",
        "value:uint256",
        "validAfter:uint256",
        "validBefore:uint256",
        "nonce:bytes32",
    ),
}


def recover_signer(entry: dict[str, Any], payload: dict[str, Any]) -> str | None:
    """Who signed an EIP-3009 authorization for an accepts entry (None if it does not recover)."""
    try:
        from eth_account import Account
        from eth_account.messages import encode_typed_data

        auth = payload["authorization"]
        message = {
            "types": EIP712_TYPES,
            "primaryType": "TransferWithAuthorization",
            "domain": {
                **entry["extra"],
                "chainId": _chain(entry["network"]),
                "verifyingContract": entry["asset"],
            },
            "message": {
                **{k: auth[k] for k in ("from", "to", "nonce")},
                **{k: int(auth[k]) for k in ("value", "validAfter", "validBefore")},
            },
        }
        signable = encode_typed_data(full_message=message)
        return str(Account.recover_message(signable, signature=payload["signature"]))
    except Exception:  # a proof that does not recover is recorded as such, not a crash
        return None


def _read_x402(peer: HostilePeer, record: Received, value: str) -> None:
    try:
        proof = _b64json(value)
        payload = proof["payload"]
        record.x402 = proof
        record.authorization = {k: str(v) for k, v in payload["authorization"].items()}
    except (ValueError, KeyError, TypeError, AttributeError):
        return
    entry = proof.get("accepted") or peer.config.accepts_entry()  # v1 echoes no entry
    record.signer = recover_signer(entry, payload)


def _read_mpp(record: Received, value: str) -> None:
    record.mpp_credential = value
    scheme, _, token = value.partition(" ")
    if scheme.lower() != "payment":
        return
    with contextlib.suppress(ValueError, TypeError):
        record.mpp = _b64json(token, urlsafe=True)


def _record(peer: HostilePeer, handler: BaseHTTPRequestHandler) -> Received:
    headers = handler.headers
    names = tuple(h for h in PROOF_HEADERS if headers.get(h))
    if "authorization" in names and not headers["authorization"].lower().startswith("payment"):
        names = tuple(n for n in names if n != "authorization")  # a bearer is no proof
    record = Received(
        at=time.time(),
        method=handler.command,
        path=handler.path,
        port=peer.port,
        request_id=headers.get("svc-request-id"),
        proofs=names,
        payment_id=headers.get("svc-payment-id"),
    )
    for name in ("x-payment", "payment-signature"):
        if headers.get(name):
            _read_x402(peer, record, headers[name])
    if "authorization" in names:
        _read_mpp(record, headers["authorization"])
    with peer.lock:
        peer.books.append(record)
    return record


# --- answers ---------------------------------------------------------------------------------


@dataclass
class Answer:
    status: int
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)


def _json(status: int, doc: Any, **headers: str) -> Answer:
    return Answer(status, json.dumps(doc).encode(), headers)


def _b64(doc: Any, urlsafe: bool = False) -> str:
    raw = json.dumps(doc, separators=(",", ":"), sort_keys=True).encode()
    if urlsafe:
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")
    return base64.b64encode(raw).decode()


def mpp_challenge(realm: str, amount: str | None = None) -> str:
    request = {
        "amount": str(PRICE_CENTS) if amount is None else amount,
        "currency": "usd",
        "methodDetails": {"networkId": "peer", "paymentMethodTypes": ["card"]},
    }
    expires = (datetime.now(UTC) + timedelta(minutes=5)).strftime("%Y-%m-%dT%H:%M:%SZ")
    return (
        f'Payment id="{secrets.token_hex(8)}", realm="{realm}", method="stripe", '
        f'intent="charge", request="{_b64(request, urlsafe=True)}", expires="{expires}"'
    )


def challenge(peer: HostilePeer, code: str | None = "payment_required", **extra: Any) -> Answer:
    """The 402 of an unpaid submit: x402 (v2 header or v1 body), MPP and card."""
    cfg = peer.config
    pid = "pay_" + secrets.token_hex(8)
    body: dict[str, Any] = {} if code is None else {"error": code}
    body.update(extra)
    amount_usd = "1.500000" if cfg.card_amount is None else cfg.card_amount
    body["payment"] = {"id": pid, "amountUsd": amount_usd, "currency": "USD"}
    base = f"{peer.url}/svc/payments/{pid}"
    body["card"] = {"payUrl": f"{base}/pay", "statusUrl": f"{base}/status"}
    headers = {"WWW-Authenticate": mpp_challenge(cfg.realm, cfg.mpp_amount)}
    if cfg.version == 1:
        body.update(x402Version=1, accepts=[cfg.accepts_entry()])
    else:
        doc = {
            "x402Version": 2,
            "resource": {"url": "/svc/tasks"},
            "accepts": [cfg.accepts_entry()],
        }
        headers["PAYMENT-REQUIRED"] = _b64(doc)
    return _json(402, body, **headers)


def _task(peer: HostilePeer, request_id: str | None, goal: str) -> dict[str, Any]:
    with peer.lock:
        known = peer.by_request.get(request_id or "")
        if known:
            return peer.tasks[known]
        now = datetime.now(UTC).isoformat().replace("+00:00", "Z")
        task = {
            "id": "task_" + secrets.token_hex(8),
            "state": peer.config.task_state,
            "goal": goal,
            "flow": None,
            "max_budget_usd": None,
            "webhook_url": None,
            "result": None,
            "error": None,
            "created_at": now,
            "updated_at": now,
            "completed_at": None,
        }
        peer.tasks[task["id"]] = task
        if request_id:
            peer.by_request[request_id] = task["id"]
        return task


def _nested(depth: int = 100_000) -> bytes:
    return b'{"a":' * depth + b"1" + b"}" * depth


def _paid(peer: HostilePeer, record: Received, body: dict[str, Any]) -> Answer | None:
    """The answer to a request that carried a proof, by mode (None: drop the connection)."""
    mode = peer.config.mode
    if mode == "drop":
        return None
    if mode in ("accept", "slow"):
        return _json(202, _task(peer, record.request_id, str(body.get("task", ""))))
    if mode == "nested_json":
        return Answer(202, _nested(), {"Content-Type": "application/json"})
    simple = {
        "redirect": lambda: Answer(307, b"", {"Location": "/svc/elsewhere"}),
        "switch": lambda: Answer(101, b"", {}),  # Switching Protocols, no upgrade asked for
        "bad_request": lambda: _json(400, {"error": "invalid_request"}),
        "codeless_402": lambda: challenge(peer, None),
        "repeat_402": lambda: challenge(peer),
        "payment_consumed": lambda: _json(402, {"error": "payment_consumed"}),
        "settlement_failed": lambda: challenge(
            peer, "settlement_failed", settlementReason="insufficient_funds"
        ),
    }
    return simple[mode]()


def _route(peer: HostilePeer, record: Received, body: bytes) -> Answer | None:
    path = record.path.split("?", 1)[0]
    if record.method == "POST" and path.endswith("/svc/tasks"):
        try:
            doc = json.loads(body or b"{}")
        except ValueError:
            return _json(422, {"detail": []})
        if peer.config.mode == "slow":  # unpaid too: two clients are in flight at once
            time.sleep(peer.config.slow_seconds)
        return _paid(peer, record, doc) if record.proofs else challenge(peer)
    task = _TASK.search(path)
    if record.method == "GET" and task:
        found = peer.tasks.get(task.group(1))
        return _json(200, {**found, "events": []}) if found else _json(404, {"error": "not_found"})
    card = _CARD.search(path)
    if card and card.group(2) == "pay":
        return _json(200, {"checkoutUrl": f"{peer.url}/checkout/{card.group(1)}"})
    if card:
        return _json(200, {"status": "complete" if peer.config.card_complete else "pending"})
    return _json(404, {"error": "not_found"})


def _handler_for(peer: HostilePeer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # quiet: the books say it all
            pass

        def _serve(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length) if length else b""
            record = _record(peer, self)
            answer = _route(peer, record, body)
            if answer is None:  # drop: no status line at all, the answer is lost
                self.close_connection = True
                return
            record.status = answer.status
            self.send_response(answer.status)
            headers = {"Content-Type": "application/json", **answer.headers}
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(answer.body)))
            self.end_headers()
            self.wfile.write(answer.body)

        do_GET = do_POST = _serve

    return Handler


# --- fixtures --------------------------------------------------------------------------------


@pytest.fixture
def peer_factory() -> Iterator[Callable[[], HostilePeer]]:
    """Starts peers on fresh ports (a second one is another origin); stops them all after."""
    started: list[HostilePeer] = []

    def start() -> HostilePeer:
        peer = HostilePeer().start()
        started.append(peer)
        return peer

    yield start
    for peer in started:
        peer.stop()


@pytest.fixture
def hostile_peer(peer_factory: Callable[[], HostilePeer]) -> HostilePeer:
    return peer_factory()
