"""The spec's payment error table, in one place: what each code means for us and what we do.

Every rail (x402, MPP, card) answers a refused or failed payment with one of these codes. The
submit flow asks `classify` what to do next; nothing else in the client decides it. Actions:

- RETRY_UNCHANGED: re-send the identical request (same request id, same proof) after a backoff.
  Only `payment_provider_unavailable` (the spec: "the only payment error to retry unchanged").
- FRESH_CHALLENGE: the proof was refused and can never be charged; get a fresh 402 and pay it,
  once (`settlement_failed`, `identity_invalid`).
- START_OVER: the referenced payment is dead for good; send the request unpaid again and pay the
  new 402, once (`payment_refunded|consumed|failed|released`).
- FINISH_CARD: the card payment is not finished; wait on its `statusUrl`, then retry.
- STOP: show the error with its exit code; never retried.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from svc.api.errors import (
    ConflictError,
    ExitCode,
    HumanNeededError,
    PaymentError,
    SvcError,
    UnavailableError,
    error_from_response,
)
from svc.api.jsonsafe import load_json


class Action(enum.Enum):
    RETRY_UNCHANGED = "retry_unchanged"
    FRESH_CHALLENGE = "fresh_challenge"
    START_OVER = "start_over"
    FINISH_CARD = "finish_card"
    STOP = "stop"


@dataclass(frozen=True)
class Row:
    code: str
    action: Action
    error: type[SvcError]
    # What happened to the user's money, said plainly (appended to the error line).
    money: str
    hint: str


_NOT_CHARGED = "nothing was charged"

TABLE: dict[str, Row] = {
    row.code: row
    for row in (
        Row(
            "payment_provider_unavailable",
            Action.RETRY_UNCHANGED,
            UnavailableError,
            _NOT_CHARGED,
            "the payment provider is down; try again later with the same --request-id",
        ),
        Row(
            "settlement_failed",
            Action.FRESH_CHALLENGE,
            PaymentError,
            _NOT_CHARGED,
            "the payment did not settle: fund the wallet or use another token or card, then retry",
        ),
        Row(
            "identity_invalid",
            Action.FRESH_CHALLENGE,
            PaymentError,
            _NOT_CHARGED,
            "the payment proof was refused; retry to sign a fresh challenge",
        ),
        *(
            Row(
                code,
                Action.START_OVER,
                PaymentError,
                "that payment can never be spent",
                "run the submit again to pay a fresh 402",
            )
            for code in (
                "payment_refunded",
                "payment_consumed",
                "payment_failed",
                "payment_released",
            )
        ),
        Row(
            "payment_incomplete",
            Action.FINISH_CARD,
            HumanNeededError,
            "the card payment is not finished",
            "finish it on the payment page, then: svc pay card",
        ),
        Row(
            "payment_unknown",
            Action.STOP,
            PaymentError,
            "the service knows no such payment; nothing was charged for it",
            "run the submit again without the payment id to pay a fresh 402",
        ),
        Row(
            "payment_request_mismatch",
            Action.STOP,
            PaymentError,
            "that payment belongs to another request; nothing was charged for this one",
            "submit with a new --request-id to pay a fresh 402",
        ),
        Row(
            "payment_amount_mismatch",
            Action.STOP,
            PaymentError,
            _NOT_CHARGED,
            "the price changed since the challenge; run the submit again",
        ),
        Row(
            "usage_not_priced",
            Action.STOP,
            ConflictError,
            "the call could not be billed",
            "the service priced this usage wrongly; report it to the service",
        ),
        Row(
            "rate_limit_exceeded",
            Action.STOP,  # the HTTP layer already waited and retried within its bounds
            UnavailableError,
            _NOT_CHARGED,
            "the service is rate limiting; wait and run the same command again",
        ),
    )
}


def error_code(content: bytes) -> tuple[str | None, dict[str, Any]]:
    try:
        body = load_json(content)
    except (ValueError, UnicodeDecodeError):
        return None, {}
    if not isinstance(body, dict):
        return None, {}
    code = body.get("error")
    return (code if isinstance(code, str) else None), body


def classify(status: int, content: bytes) -> Row | None:
    """The table row for an error response, or None when it is not a payment error."""
    code, _ = error_code(content)
    return TABLE.get(code or "")


def to_error(status: int, content: bytes, row: Row | None, what: str = "submit") -> SvcError:
    """The SvcError for a final (not retried) payment error, with its exit code and money line."""
    error = error_from_response(status, content, what)
    if row is None:
        return error
    _, body = error_code(content)
    retry_after = body.get("retry_after")
    message = error.message
    if row.code == "rate_limit_exceeded" and isinstance(retry_after, int | float):
        message += f" (retry after {retry_after:g} s)"
    message += f"; {row.money}"
    return row.error(
        message,
        code=row.code,
        status=status,
        reason=error.reason,
        hint=row.hint,
        body=error.body,
        exit_code=ExitCode(row.error.exit_code),
    )
