"""What a ledger row says about how its payment settled: the rail's own reference.

x402's PAYMENT-RESPONSE and MPP's Payment-Receipt are base64 JSON the server sent (outside
text: read leniently, never trusted to be well formed); a card payment is named by its payment
id, which is also the proof. `svc receipt` and the exports both read it here.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from svc.api.answers import parse_billing
from svc.rail_table import CARD, MPP, X402
from svc.store.ledger import Submission


def decoded_receipt(raw: str | None) -> dict[str, Any]:
    """The receipt's JSON object ({} when absent or unreadable): standard or URL-safe base64."""
    if not raw:
        return {}
    text = raw.strip()
    padded = text + "=" * (-len(text) % 4)
    for decode in (base64.b64decode, base64.urlsafe_b64decode):
        try:
            value = json.loads(decode(padded))
        except (binascii.Error, ValueError):
            continue
        return value if isinstance(value, dict) else {}
    return {}


def payment_id(row: Submission) -> str | None:
    """The service's id of the payment (svc-billing's payment_id; a card's proof)."""
    found = parse_billing(row.billing or "").get("payment_id")
    if found:
        return found
    return row.proof if row.method == CARD else None


def settlement_reference(row: Submission) -> str | None:
    """The rail's reference: x402's transaction, MPP's receipt reference, the card payment."""
    receipt = decoded_receipt(row.receipt)
    key = {X402: "transaction", MPP: "reference"}.get(row.method or "")
    value = receipt.get(key) if key else None
    if isinstance(value, str) and value:
        return value
    return payment_id(row) if row.method == CARD else None


def settlement_kind(rail: str | None) -> str:
    return {
        X402: "x402 payment-response transaction",
        MPP: "MPP receipt reference",
        CARD: "card payment id",
    }.get(rail or "", "none")
