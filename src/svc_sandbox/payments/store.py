"""Payment state beyond x402: card payments, spent SPTs, the fake card processor, payment faults.

Kept apart from `state.py` (which keeps tasks and the books) and reset with it. Every method
takes the store's own lock; `settle_lock` serialises MPP and card settlements so a request id
is never settled twice, whatever the concurrency.
"""

from __future__ import annotations

import secrets
import threading
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from svc_sandbox.faults.queue import FaultQueue, PaymentFault
from svc_sandbox.payments.money import usd

CARD_RELEASE_AFTER = timedelta(minutes=30)  # an unpaid card payment is released after this


@dataclass
class CardPayment:
    id: str
    amount_atomic: int
    created_at: datetime
    status: str = "open"  # open, checkout, paid, failed, consumed, refunded, released
    request_id: str | None = None
    paid_at: datetime | None = None

    def to_wire(self, base: str) -> dict[str, Any]:
        return {
            "id": self.id,
            "status": self.status,
            "complete": self.status in ("paid", "consumed"),
            "amountUsd": usd(self.amount_atomic),
            "currency": "USD",
            "checkoutUrl": f"{base}/svc/payments/{self.id}/checkout",
            "statusUrl": f"{base}/svc/payments/{self.id}/status",
        }


class SptDeclined(Exception):
    """The fake card processor refused a shared payment token."""

    def __init__(self, code: str, why: str = "") -> None:
        super().__init__(code)
        self.code = code
        self.why = why  # for a person trying the sandbox: what the token should look like


SPT_SHAPE = "sandbox tokens look like spt_test_ followed by at least 3 characters, once each"


@dataclass
class _Intent:
    id: str
    status: str
    last_response: Any = None


@dataclass
class _Headers:
    headers: dict[str, str] = field(default_factory=dict)


class SandboxCardProcessor:
    """Duck-typed like a Stripe client (`payment_intents.create`) for pympp's stripe method.

    Sandbox tokens: `spt_test_<anything>`; each one works once. `..._declined...` and
    `..._insufficient...` tokens are refused (card_declined, insufficient_funds).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.used: set[str] = set()
        self._by_key: dict[str, _Intent] = {}
        self.payment_intents = self

    def create(self, body: dict[str, Any], options: dict[str, Any] | None = None) -> _Intent:
        key = str((options or {}).get("idempotency_key", ""))
        spt = str(body.get("shared_payment_granted_token", ""))
        with self._lock:
            if key and key in self._by_key:
                earlier = self._by_key[key]
                return _Intent(
                    earlier.id, earlier.status, _Headers({"idempotent-replayed": "true"})
                )
            if not spt.startswith("spt_test_") or len(spt) < 12:
                raise SptDeclined("invalid_token", SPT_SHAPE)
            if spt in self.used:
                raise SptDeclined("token_already_used")
            if "declined" in spt:
                raise SptDeclined("card_declined")
            if "insufficient" in spt:
                raise SptDeclined("insufficient_funds")
            self.used.add(spt)
            intent = _Intent(f"pi_{secrets.token_hex(8)}", "succeeded", _Headers())
            if key:
                self._by_key[key] = intent
            return intent


class PaymentStore:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.settle_lock = threading.Lock()
        self.hmac_secret = secrets.token_hex(32)
        self.processor = SandboxCardProcessor()
        self._cards: dict[str, CardPayment] = {}
        self.faults: FaultQueue[PaymentFault] = FaultQueue()
        # request id -> the refunded answer of a failed delivery (replayed on retry)
        self._failed_deliveries: dict[str, dict[str, Any]] = {}
        # request id -> the receipt headers of its settlement, sent again with every replay
        self._receipts: dict[str, dict[str, str]] = {}

    # --- card payments -------------------------------------------------------------------

    def new_card(self, payment_id: str, amount_atomic: int, now: datetime) -> CardPayment:
        with self._lock:
            card = CardPayment(payment_id, amount_atomic, now)
            self._cards[payment_id] = card
            return card

    def card(self, payment_id: str, now: datetime) -> CardPayment | None:
        with self._lock:
            card = self._cards.get(payment_id)
            if (
                card is not None
                and card.status in ("open", "checkout")
                and now - card.created_at > CARD_RELEASE_AFTER
            ):
                card.status = "released"
            return card

    def set_card(self, payment_id: str, status: str, now: datetime | None = None) -> None:
        with self._lock:
            card = self._cards[payment_id]
            card.status = status
            if status == "paid":
                card.paid_at = now

    def consume_card(self, payment_id: str, request_id: str | None) -> None:
        with self._lock:
            card = self._cards[payment_id]
            card.status = "consumed"
            card.request_id = request_id

    # --- failed deliveries ---------------------------------------------------------------

    def remember_failed_delivery(self, request_id: str | None, answer: dict[str, Any]) -> None:
        if request_id is None:
            return
        with self._lock:
            self._failed_deliveries[request_id] = answer

    def failed_delivery(self, request_id: str | None) -> dict[str, Any] | None:
        if request_id is None:
            return None
        with self._lock:
            return self._failed_deliveries.get(request_id)

    def remember_receipt(self, request_id: str | None, receipt: dict[str, str]) -> None:
        if request_id is not None and receipt:
            with self._lock:
                self._receipts[request_id] = dict(receipt)

    def receipt_for(self, request_id: str | None) -> dict[str, str]:
        """The receipt a request id's settlement was answered with ({} if none or unknown)."""
        if request_id is None:
            return {}
        with self._lock:
            return dict(self._receipts.get(request_id, {}))

    def take_fault(self, rail: str) -> PaymentFault | None:
        return self.faults.take(lambda fault: fault.rail is None or fault.rail == rail)
