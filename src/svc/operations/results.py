"""The documents operations return, as the library's models: what `--json` prints for each,
its known members typed and every other member kept (a newer server never breaks an older
program). `svc mcp` derives its tools' output schemas from the same models.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict

__all__ = [
    "Budgets",
    "DoctorReport",
    "Finding",
    "Guide",
    "IdentityStatus",
    "Price",
    "Quote",
    "Receipt",
    "Spend",
    "TaskRow",
]


class _Document(BaseModel):
    """A document `--json` prints, its known members typed and every other kept."""

    model_config: ClassVar[ConfigDict] = ConfigDict(extra="allow")

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_unset=True)


class Quote(_Document):
    """The advisor's quote (`svc quote --json`); free: no funds move."""

    status: str
    priceUsd: str  # the service's own member names
    guide: str
    guideUrl: str


class Guide(_Document):
    """The wallet-free guide (`svc guide --json`): the service's object, or its Markdown."""

    guide: Any = None


class TaskRow(_Document):
    """One submission in this machine's ledger (`svc tasks --json`): never its proof."""

    request_id: str
    task_id: str | None = None
    status: str
    state: str | None = None


class Spend(_Document):
    """What was paid, from the ledger (`svc spend --json`): amounts are exact Decimals."""

    paid_usd: Decimal
    paid_count: int
    refunded_usd: Decimal
    total_usd: Decimal
    outstanding_usd: Decimal
    unknown_outcome: list[Any]
    cap: dict[str, Any]


class Budgets(_Document):
    """The budgets (`svc budget --json`): each with its scope, window, limit, used and left
    (exact USD strings), when it resets and whether it binds this client's payments; the
    breaker and the hourly rate. A refusal by one is `svc.PolicyRefused` (budget_exceeded,
    breaker_open, rate_limited)."""

    budgets: list[dict[str, Any]]
    breaker: dict[str, Any]
    max_paid_per_hour: int | None = None
    warn_percent: int = 80


class Finding(_Document):
    check: str
    status: str  # ok | warn | fail
    detail: str
    fix: str | None = None
    exit_code: int = 0


class DoctorReport(_Document):
    """`svc doctor --json`: every check, and the exit code the first failure gives."""

    ok: bool
    exit_code: int
    checks: list[Finding]


class IdentityStatus(_Document):
    """The agent credential as `svc identity status --json` shows it: never a secret."""

    registered: bool
    auth_base: str
    id: str | None = None
    type: str | None = None
    claimed: bool | None = None
    email: str | None = None


class Settlement(_Document):
    """How a payment settled: the rail's kind of reference and the reference itself (the
    x402 transaction, the MPP receipt's reference, the card payment id)."""

    kind: str | None = None
    reference: str | None = None
    payment_id: str | None = None
    receipt: dict[str, Any] | None = None  # the rail's receipt as the server sent it, decoded


class Refund(_Document):
    amount_usd: str | None = None
    at: str | None = None


class Receipt(_Document):
    """What the ledger says was paid for one request or task (`svc receipt ID --json`):
    amounts exact USD strings, times ISO 8601 UTC."""

    request_id: str
    task_id: str | None = None
    status: str
    rail: str
    amount_usd: str | None = None
    payer: str | None = None
    recipient: str | None = None
    network: str | None = None
    asset: str | None = None
    settlement: Settlement
    billing: str | None = None
    paid_at: str | None = None
    refund: Refund | None = None
    net_usd: str | None = None
    origin: str | None = None
    runner: str | None = None


class Price(_Document):
    """What paying for a task would cost, from the service's own 402, with nothing signed or
    paid (one unpaid request was sent): the rail's offer, whether the payment policy allows
    it (`refusal` says why not) and every rail's offers as the 402 listed them."""

    rail: str
    within_policy: bool
    amount_usd: Decimal | None = None
    pay_to: str | None = None
    network: str | None = None
    asset: str | None = None
    refusal: str | None = None
    max_price_usd: Decimal
    offers: dict[str, Any]
