"""Test-only readers of payment messages: what a service (or an auditor) does with a proof or
a receipt, which the client itself never needs (moved out of svc.pay by issue 17.3)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from svc.pay.x402 import (
    _AUTHORIZATION_FIELDS,
    _SIGNATURE,
    PaymentRequirements,
    X402Error,
    _b64decode,
    _loads,
    typed_data,
)


def decode_receipt(value: str) -> dict[str, Any]:
    """Decode a ``PAYMENT-RESPONSE`` / ``X-PAYMENT-RESPONSE`` header into its JSON object."""
    what = "the x402 payment receipt"
    if not isinstance(value, str):
        raise X402Error(f"{what} is not text.")
    obj = _loads(_b64decode(value, what), what)
    if not isinstance(obj, dict):
        raise X402Error(f"{what} is not a JSON object.")
    if "success" in obj and not isinstance(obj["success"], bool):
        raise X402Error(f"{what} has a 'success' that is not true or false.")
    return obj


def recover_payer(requirements: PaymentRequirements, payload: Mapping[str, Any]) -> str:
    """The checksummed address that signed ``payload`` for ``requirements``."""
    if not isinstance(payload, Mapping):
        raise X402Error("the x402 payload is not an object.")
    signature = payload.get("signature")
    authorization = payload.get("authorization")
    if not isinstance(signature, str) or not _SIGNATURE.fullmatch(signature):
        raise X402Error("the x402 payload's signature is not 0x followed by 65 bytes of hex.")
    if not isinstance(authorization, Mapping) or set(authorization) != set(_AUTHORIZATION_FIELDS):
        raise X402Error(
            "the x402 payload's authorization does not have exactly the EIP-3009 fields."
        )
    message = typed_data(requirements, authorization)
    from eth_account import Account
    from eth_account.messages import encode_typed_data

    try:
        return str(
            Account.recover_message(
                encode_typed_data(full_message=message), signature=bytes.fromhex(signature[2:])
            )
        )
    except Exception as exc:
        raise X402Error(f"the x402 signature cannot be recovered: {str(exc)[:200]}") from None


def read_receipt(value: str | None) -> dict[str, Any] | None:
    """The `Payment-Receipt` as a plain dict (None when absent or unreadable)."""
    if not value:
        return None
    from mpp import Receipt
    from mpp._parsing import ParseError

    try:
        receipt = Receipt.from_payment_receipt(value)
    except (ParseError, ValueError):
        return None
    return {
        "status": receipt.status,
        "method": receipt.method,
        "reference": receipt.reference,
        "timestamp": receipt.timestamp.isoformat(),
    }
