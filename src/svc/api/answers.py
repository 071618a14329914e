"""Typed answers of the task API.

A submit's answer carries money facts in headers: the billing line, the payment receipt and a
usage-billing error. They are read here, once, so no flow names a header, and the raw body is
kept for byte-exact output and for the payment error table (`svc.pay.errors.classify`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from svc.api import headers
from svc.api.ids import is_id
from svc.api.response import json_body
from svc.errors import ProtocolError
from svc.money import AmountError, atomic_to_usd, parse_usd, usd_to_atomic

if TYPE_CHECKING:
    import httpx

ACCEPTED_STATUSES = (200, 202)
FINAL_STATES = frozenset({"completed", "failed", "cancelled"})  # as svc.api.models, no pydantic


@dataclass(frozen=True)
class Task:
    """A task object (submit, reply) or detail (poll), its shape checked (`require_task_shape`:
    an id that is an id, a state). `raw` is the JSON as the server sent it, for byte-exact
    output; the accessors are what flows read, so none of them indexes the raw document."""

    raw: dict[str, Any]

    @property
    def id(self) -> str:
        return str(self.raw["id"])

    @property
    def state(self) -> str:
        return str(self.raw["state"])

    @property
    def is_final(self) -> bool:
        return self.state in FINAL_STATES

    @property
    def events(self) -> list[dict[str, Any]]:
        items = self.raw.get("events")
        return [e for e in items if isinstance(e, dict)] if isinstance(items, list) else []

    @property
    def ask(self) -> dict[str, Any] | None:
        """The open ask (`info_request`), when the task waits on its user."""
        ask = self.raw.get("info_request")
        return ask if isinstance(ask, dict) else None

    def without_events(self) -> dict[str, Any]:
        """The task object of a submit's answer, from a poll's detail."""
        return {key: value for key, value in self.raw.items() if key != "events"}


@dataclass(frozen=True)
class Billing:
    """The `svc-billing` header: `status=charged; method=x402; amount_usd=1.500000; ...`."""

    raw: str
    fields: dict[str, str] = field(default_factory=dict)

    @classmethod
    def parse(cls, value: str) -> Billing:
        return cls(value, parse_billing(value))

    @property
    def status(self) -> str | None:
        """charged, replayed, refunded, ... (None when the server sent no status)."""
        return self.fields.get("status")

    @property
    def amount_atomic(self) -> int | None:
        """The amount in µUSD, or None when absent or not a plain decimal USD amount (a
        hostile header is not money: no NaN, exponent, sign or sub-µUSD digits)."""
        try:
            return usd_to_atomic(parse_usd(self.fields.get("amount_usd"), "amount_usd"))
        except AmountError:
            return None

    @property
    def amount_usd(self) -> Decimal | None:
        atomic = self.amount_atomic
        return None if atomic is None else atomic_to_usd(atomic)


def parse_billing(value: str) -> dict[str, str]:
    """`status=charged; method=x402; amount_usd=1.500000; payment_id=pay_…` as a dict."""
    out: dict[str, str] = {}
    for part in value.split(";"):
        key, sep, val = part.strip().partition("=")
        if sep:
            out[key.strip().lower()] = val.strip()
    return out


@dataclass(frozen=True)
class SubmitAnswer:
    """One final answer to `POST /svc/tasks` (after transport retries)."""

    status: int
    content: bytes  # the body as sent, for byte-exact output and the error table
    content_type: str
    billing: Billing | None
    receipt: str | None  # MPP Payment-Receipt, x402 PAYMENT-RESPONSE (v2) or X-PAYMENT-RESPONSE
    usage_error: str | None

    @classmethod
    def of(cls, response: httpx.Response) -> SubmitAnswer:
        found = response.headers
        billing = found.get(headers.BILLING)
        return cls(
            status=response.status_code,
            content=response.content,
            content_type=found.get(headers.CONTENT_TYPE, ""),
            billing=Billing.parse(billing) if billing else None,
            receipt=found.get(headers.MPP_RECEIPT)
            or found.get(headers.X402_RECEIPT)
            or found.get(headers.X402_V1_RECEIPT),
            usage_error=found.get(headers.USAGE_ERROR),
        )

    @property
    def accepted(self) -> bool:
        return self.status in ACCEPTED_STATUSES

    @property
    def rate_limited(self) -> bool:
        """429: refused before anything was processed (a proof it carried is not spent)."""
        return self.status == 429

    @property
    def server_failed(self) -> bool:
        """5xx: the service failed; whether a paid request was processed is unknown."""
        return self.status >= 500

    @property
    def replayed(self) -> bool:
        """The service answered a request id it had already accepted: nothing charged again."""
        return self.billing is not None and self.billing.status == "replayed"

    def task(self) -> Task:
        """The task object of an accepted answer, checked (ProtocolError if it is not one)."""
        doc = json_body(self.content, self.content_type, "submit")
        return Task(require_task_shape(doc, "submit"))


def require_task_shape(doc: Any, what: str) -> dict[str, Any]:
    """The minimum every task object must have before anything reads it."""
    if (
        not isinstance(doc, dict)
        or not isinstance(doc.get("id"), str)
        or not isinstance(doc.get("state"), str)
    ):
        raise ProtocolError(f"{what}: the server's answer is not a task object")
    if not is_id(doc["id"]):  # it goes into the ledger and into every later URL
        raise ProtocolError(f"{what}: the server's task id is not an id")
    return doc
