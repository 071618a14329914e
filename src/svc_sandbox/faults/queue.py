"""Faults on demand, as queues: transport faults (`/_sandbox/faults`, served by
`svc_sandbox.faults.middleware`) and payment faults (`/_sandbox/payment-faults`, served by the
paid path).

Each fault kind is one pydantic dataclass: the admin API validates requests against it and the
queue keeps it, so there is no second "spec" model to keep in step.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Iterable
from typing import Any, ClassVar, Generic, Literal, Protocol, TypeVar

from pydantic import ConfigDict, Field, model_validator
from pydantic.dataclasses import dataclass

_STRICT = ConfigDict(extra="forbid")

# Every kind has a handler in svc_sandbox.faults.middleware (a unit test keeps the two in step).
FaultKind = Literal[
    "status",
    "delay",
    "drop_before",
    "drop_after",
    "malformed_json",
    "truncate",
    "wrong_content_type",
    "oversized",
    "unknown_state",
    "repeat_402",
    "raw_body",
    "code",
]

# Payment error codes a payment fault can produce, with their HTTP status.
FAULT_STATUS: dict[str, int] = {
    "payment_provider_unavailable": 503,
    "settlement_failed": 402,
    "identity_invalid": 401,
    "payment_refunded": 402,
    "payment_consumed": 402,
    "payment_failed": 402,
    "payment_released": 402,
    "payment_incomplete": 402,
    "payment_unknown": 402,
    "payment_request_mismatch": 409,
    "payment_amount_mismatch": 409,
    "usage_not_priced": 409,
    "rate_limit_exceeded": 429,
    "usage_error": 202,  # served, but the svc-usage-error header says usage was not billed
}

# The spec's access and identity codes a `code` fault answers on any route, with the status the
# spec gives (or, where it gives none, the one the sandbox's own routes answer): the ones no
# real flow of the sandbox brings a client to (a purchase the sandbox does not sell, a seller
# setup it does not lack, a malformed header the client never sends) are reachable this way.
CODE_STATUS: dict[str, int] = {
    "bearer_required": 401,
    "invalid_token": 401,
    "entitlements_not_available": 501,
    "invalid_request": 400,
    "payg_not_purchasable": 400,
    "seller_not_found": 404,
    "plan_not_found": 404,
    "signing_secret_required": 409,
    "invalid_login_hint": 400,
    "anonymous_registration_disabled": 403,
    "service_auth_registration_disabled": 403,
    "issuer_not_enabled": 400,
    "replay_detected": 400,
    "login_required": 401,
    "interaction_required": 401,
    "missing_verified_email": 400,
    "invalid_audience": 400,
    "expired": 400,
    "invalid_signature": 400,
    "invalid_claim_token": 400,
    "too_many_attempts": 429,
    "claim_not_confirmed": 400,
    "invalid_user_code": 400,
    "user_code_expired": 400,
    "claim_denied": 403,
    "claim_expired": 400,
    "already_claimed": 409,
    "invalid_grant": 400,
    "unsupported_grant_type": 400,
    "invalid_refresh_token": 400,
}


@dataclass(config=_STRICT)
class Fault:
    """One transport fault; `count` requests matching method, path prefix and header take it."""

    kind: FaultKind
    method: str | None = None
    path: str | None = None
    count: int = Field(default=1, ge=1)
    status: int | None = Field(default=None, ge=100, le=599)
    retry_after: int | None = Field(default=None, ge=0)
    seconds: float | None = Field(default=None, ge=0)
    # only requests carrying this header (e.g. a paid retry)
    header: str | None = Field(default=None, min_length=1, max_length=100)
    size_bytes: int | None = Field(default=None, ge=1, le=1 << 30)  # oversized: how big
    detail: str | None = Field(default=None, max_length=1 << 20)  # status: the error's detail
    # code: which of CODE_STATUS to answer, and the `reason` it carries (invalid_token's)
    code: str | None = Field(default=None, pattern="^(" + "|".join(CODE_STATUS) + ")$")
    reason: str | None = Field(default=None, pattern="^[a-z_]{1,64}$")

    @model_validator(mode="after")
    def _code_needs_a_code(self) -> Fault:
        if (self.kind == "code") != (self.code is not None):
            raise ValueError("`code` goes with kind 'code', and kind 'code' needs one")
        return self

    def matches(self, method: str, path: str, headers: frozenset[str] = frozenset()) -> bool:
        return (
            (self.method is None or self.method.upper() == method.upper())
            and (self.path is None or path.startswith(self.path))
            and (self.header is None or self.header.lower() in headers)
        )


@dataclass(config=_STRICT)
class PaymentFault:
    """The next `count` paid requests (of `rail`, or any) answer payment error `code`."""

    code: str = Field(pattern="^(" + "|".join(FAULT_STATUS) + ")$")
    count: int = Field(default=1, ge=1)
    rail: Literal["x402", "mpp", "card"] | None = None
    reason: str | None = Field(default=None, max_length=64)  # settlementReason
    retry_after: int | None = Field(default=None, ge=0)


class _Counted(Protocol):
    __dataclass_fields__: ClassVar[dict[str, Any]]
    count: int


F = TypeVar("F", bound=_Counted)


class FaultQueue(Generic[F]):
    """Faults in arrival order; the first match is taken, and dropped once used `count` times."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._items: list[F] = []

    def add(self, faults: Iterable[F]) -> None:
        with self._lock:
            self._items.extend(faults)

    def view(self) -> list[dict[str, Any]]:
        with self._lock:
            return [dataclasses.asdict(f) for f in self._items]

    def clear(self) -> None:
        with self._lock:
            self._items.clear()

    def take(self, matches: Callable[[F], bool]) -> F | None:
        """A copy of the first matching fault, using up one of its `count`."""
        with self._lock:
            for fault in self._items:
                if matches(fault):
                    taken = dataclasses.replace(fault)
                    fault.count -= 1
                    if fault.count <= 0:
                        self._items.remove(fault)
                    return taken
        return None
