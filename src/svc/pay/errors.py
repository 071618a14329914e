"""How a paid request reads the spec's payment codes (rows of the one table, `svc.errors`).

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

from typing import Any

from svc import numbers
from svc.api.jsonsafe import load_json
from svc.api.status import error_from_response
from svc.errors import CODES, Action, Code, ExitCode, SvcError
from svc.next_step import Next

Row = Code  # a row of the one table, as the submit flow reads it

# The codes a paid request acts on: the payment rows of `svc.errors.CODES`.
TABLE: dict[str, Code] = {code: row for code, row in CODES.items() if row.money is not None}

__all__ = ["TABLE", "Action", "Row", "classify", "error_code", "to_error"]


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


def to_error(
    status: int,
    content: bytes,
    row: Row | None,
    what: str = "submit",
    *,
    hint: str | None = None,
    next: Next | None = None,
) -> SvcError:
    """The SvcError for a final (not retried) payment error, with its exit code and money line.

    `hint`, when given, is what to do next whatever the table says (the flow knows more: a
    kept proof, a resume command); otherwise the table's hint, else "nothing was charged".
    `next` is such a hint as a step each face words (svc.next_step)."""
    if next is not None:
        hint = next.neutral
    error = error_from_response(status, content, what)
    error.next = next
    if row is None:
        error.hint = hint or error.hint
        return error
    _, body = error_code(content)
    retry_after = numbers.seconds(body.get("retry_after"))
    message = error.message
    if row.code == "rate_limit_exceeded" and retry_after is not None:
        message += f" (retry after {retry_after:g} s)"
    message += f"; {row.money}"
    assert row.hint is not None  # every payment row says what to do next
    return row.error(
        message,
        code=row.code,
        status=status,
        reason=error.reason,
        hint=hint or row.hint,
        body=error.body,
        next=next,
        exit_code=ExitCode(row.error.exit_code),
    )
