"""One exception type for everything that ends a command, carrying the contract's exit code.

Every failure a user can meet becomes an `SvcError`: the CLI's top level prints its one-line
message (and, in JSON mode, `{"error", "detail", "exit_code"}`) and exits with `exit_code`.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any


class ExitCode(IntEnum):
    OK = 0
    ERROR = 1
    USAGE = 2
    TASK_FAILED = 3
    AUTH = 4
    PAYMENT = 5
    HUMAN_NEEDED = 6
    NOT_FOUND = 7
    CONFLICT = 8
    UNAVAILABLE = 9
    OUTCOME_UNKNOWN = 10
    INTERRUPTED = 130


class SvcError(Exception):
    """A failure with a machine code, a human message and the exit code the contract promises."""

    exit_code: ExitCode = ExitCode.ERROR
    default_code = "error"

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        status: int | None = None,
        reason: str | None = None,
        hint: str | None = None,
        body: Any = None,
        exit_code: ExitCode | None = None,
        json_report: bool = True,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = code or self.default_code
        self.status = status
        self.reason = reason
        self.hint = hint
        self.body = body
        if exit_code is not None:
            self.exit_code = exit_code
        # False when stdout already carries the answer (a task whose state sets the exit code).
        self.json_report = json_report

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "error": self.code,
            "detail": self.message,
            "exit_code": int(self.exit_code),
        }
        if self.status is not None:
            doc["status"] = self.status
        if self.reason:
            doc["reason"] = self.reason
        if self.hint:
            doc["hint"] = self.hint
        return doc


class UsageError(SvcError):
    exit_code = ExitCode.USAGE
    default_code = "usage_error"


class TaskEndedError(SvcError):
    exit_code = ExitCode.TASK_FAILED
    default_code = "task_not_completed"


class AuthError(SvcError):
    exit_code = ExitCode.AUTH
    default_code = "unauthorized"


class PaymentError(SvcError):
    exit_code = ExitCode.PAYMENT
    default_code = "payment_failed"


class HumanNeededError(SvcError):
    exit_code = ExitCode.HUMAN_NEEDED
    default_code = "human_needed"


class NotFoundError(SvcError):
    exit_code = ExitCode.NOT_FOUND
    default_code = "not_found"


class ConflictError(SvcError):
    exit_code = ExitCode.CONFLICT
    default_code = "conflict"


class UnavailableError(SvcError):
    exit_code = ExitCode.UNAVAILABLE
    default_code = "unavailable"


class OutcomeUnknownError(SvcError):
    exit_code = ExitCode.OUTCOME_UNKNOWN
    default_code = "outcome_unknown"


class ProtocolError(SvcError):
    """The server answered something that is not what the spec promises."""

    default_code = "bad_response"


# Payment and access codes from the spec whose exit code does not follow from the HTTP status.
_CODE_EXIT: dict[str, type[SvcError]] = {
    "bearer_required": AuthError,
    "invalid_token": AuthError,
    "identity_invalid": PaymentError,
    "settlement_failed": PaymentError,
    "payment_refunded": PaymentError,
    "payment_consumed": PaymentError,
    "payment_failed": PaymentError,
    "payment_released": PaymentError,
    "payment_incomplete": HumanNeededError,
    "payment_unknown": PaymentError,
    "payment_provider_unavailable": UnavailableError,
    "payment_request_mismatch": PaymentError,
    "payment_amount_mismatch": PaymentError,
    "rate_limit_exceeded": UnavailableError,
    "invalid_request": UsageError,
    "payg_not_purchasable": UsageError,
}

_STATUS_EXIT: dict[int, type[SvcError]] = {
    400: UsageError,
    401: AuthError,
    402: PaymentError,
    403: AuthError,
    404: NotFoundError,
    409: ConflictError,
    410: ConflictError,
    422: UsageError,
    429: UnavailableError,
}

# What the user should do next, per spec code; shown under the error line.
HINTS: dict[str, str] = {
    "bearer_required": "register an agent identity: svc identity register",
    "settlement_failed": "the payment did not settle; nothing was charged. Fund the wallet or "
    "retry to pay a fresh challenge",
    "identity_invalid": "the payment signature was refused; retry to sign a fresh challenge",
    "rate_limit_exceeded": "the service is rate limiting; wait and try again",
    "payment_request_mismatch": "this payment belongs to another request; pay a fresh 402",
}


def _json_or_none(raw: bytes) -> Any:
    from svc.api.jsonsafe import load_json  # here: jsonsafe imports this module

    try:
        return load_json(raw)
    except (ValueError, UnicodeDecodeError):
        return None


def describe_validation(detail: list[Any]) -> str:
    """Turn the spec's validation error body into one readable sentence."""
    parts: list[str] = []
    for item in detail[:5]:
        if not isinstance(item, dict):
            continue
        loc = [str(p) for p in item.get("loc", []) if p not in ("body", "query", "path")]
        where = ".".join(loc) or "request"
        parts.append(f"{where}: {item.get('msg', 'invalid')}")
    return "; ".join(parts) or "the request failed validation"


def error_from_response(status: int, content: bytes, what: str = "request") -> SvcError:
    """Map an HTTP error response to the SvcError the contract asks for."""
    body = _json_or_none(content)
    code: str | None = None
    detail: str | None = None
    reason: str | None = None
    if isinstance(body, dict):
        raw_detail = body.get("detail")
        if status == 422 and isinstance(raw_detail, list):
            detail = describe_validation(raw_detail)
            code = "validation_error"
        elif isinstance(raw_detail, str):
            detail = raw_detail
        if isinstance(body.get("error"), str):
            code = body["error"]
        for key in ("reason", "settlementReason"):
            if isinstance(body.get(key), str):
                reason = body[key]
    cls = _CODE_EXIT.get(code or "") or _STATUS_EXIT.get(status)
    if cls is None:
        cls = UnavailableError if status >= 500 else SvcError
    message = f"{what} failed: HTTP {status}"
    if code:
        message += f" {code}"
    if reason:
        message += f" ({reason})"
    if detail:
        message += f": {detail}"
    return cls(
        message,
        code=code or f"http_{status}",
        status=status,
        reason=reason,
        hint=HINTS.get(code or ""),
        body=body,
    )
