"""An HTTP error answer read once into the `SvcError` the contract asks for.

The status and the body's `error` code pick the row of `errors.CODES` (its class, so its exit
code, and its hint); `reason` and `detail` are kept for the message and `--json`. Every part
of svc that meets an error answer asks this module, so one code reads the same everywhere.
"""

from __future__ import annotations

from typing import Any

import httpx

from svc.api.jsonsafe import load_json
from svc.errors import (
    CODES,
    INVALID_TOKEN_HINTS,
    AuthError,
    Conflict,
    NotFound,
    PaymentFailed,
    SvcError,
    Unavailable,
    UsageError,
)

_STATUS_EXIT: dict[int, type[SvcError]] = {
    400: UsageError,
    401: AuthError,
    402: PaymentFailed,
    403: AuthError,
    404: NotFound,
    409: Conflict,
    410: Conflict,
    422: UsageError,
    429: Unavailable,
}


def json_or_none(raw: bytes) -> Any:
    """The body as JSON, or None when it is not JSON (an error page, a cut answer)."""
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
    body = json_or_none(content)
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
    known = CODES.get(code or "")
    cls = known.error if known else _STATUS_EXIT.get(status)
    if cls is None:
        cls = Unavailable if status >= 500 else SvcError
    message = f"{what} failed: HTTP {status}"
    if code:
        message += f" {code}"
    if reason:
        message += f" ({reason})"
    if detail:
        message += f": {detail}"
    hint = known.hint if known else None
    if code == "invalid_token" and reason in INVALID_TOKEN_HINTS:
        hint = INVALID_TOKEN_HINTS[reason]
    return cls(
        message,
        code=code or f"http_{status}",
        status=status,
        reason=reason,
        hint=hint,
        body=body,
        next=known.next if known else None,
    )


def auth_refusal(response: httpx.Response) -> tuple[str | None, str | None]:
    """(error code, reason) of a 401, for the bearer step to heal; (None, None) for any other
    answer, or a 401 whose body says nothing readable."""
    if response.status_code != 401:
        return None, None
    body = json_or_none(response.content)
    if not isinstance(body, dict):
        return None, None
    code, reason = body.get("error"), body.get("reason")
    return (code if isinstance(code, str) else None), (reason if isinstance(reason, str) else None)


def is_payment_challenge(response: httpx.Response) -> bool:
    """A 402: the request needs paying (sign the challenge and send it again)."""
    return response.status_code == 402
