"""The documents operations return, as the library's models: what `--json` prints for each,
its known members typed and every other member kept (a newer server never breaks an older
program). `svc mcp` derives its tools' output schemas from the same models.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from svc.money import AmountError, parse_usd

__all__ = [
    "BudgetLine",
    "Budgets",
    "DailyCap",
    "DoctorReport",
    "Finding",
    "Guide",
    "IdentityStatus",
    "Outstanding",
    "PaidTask",
    "Price",
    "Quote",
    "Receipt",
    "Spend",
    "Sums",
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
    priceUsd: str  # the service's own member names, as it sent them
    guide: str
    guideUrl: str

    @property
    def price_usd(self) -> Decimal | None:
        """The quoted price, read by svc's one amount parser (None: not an amount; a free
        quote moves no money, so its guide is still worth reading)."""
        try:
            return parse_usd(self.priceUsd, "priceUsd")
        except AmountError:
            return None


class Guide(_Document):
    """The wallet-free guide (`svc guide --json`): the service's object, or its Markdown."""

    guide: Any = None


class TaskRow(_Document):
    """One submission in this machine's ledger (`svc tasks --json`): never its proof."""

    request_id: str
    task_id: str | None = None
    status: str
    state: str | None = None


class Sums(_Document):
    """A day's, a rail's or a runner's charges: paid, refunded and their difference."""

    paid_usd: Decimal
    refunded_usd: Decimal
    net_usd: Decimal


class PaidTask(_Document):
    """One charge of the window (`svc spend --tasks`): never its proof."""

    day: str
    request_id: str
    task_id: str | None = None
    rail: str | None = None
    amount_usd: Decimal
    refunded_usd: Decimal
    pay_to: str | None = None
    payer: str | None = None
    billing: str | None = None
    runner: str | None = None


class Outstanding(_Document):
    """A signed authorization not known spent, void or expired: money that may still leave."""

    request_id: str
    rail: str
    amount_usd: Decimal
    status: str
    origin: str | None = None
    pay_to: str | None = None
    network: str | None = None
    signed_at: str | None = None
    valid_until: str | None = None
    runner: str | None = None


class DailyCap(_Document):
    """Today's exposure (every runner's) against the daily cap, and who holds it."""

    daily_cap_usd: Decimal | None = None
    exposed_today_usd: Decimal
    left_today_usd: Decimal | None = None
    by_runner: dict[str, Decimal]
    signed_not_charged_usd: Decimal
    signed_not_charged_until: str | None = None
    source: str | None = None


class BudgetLine(_Document):
    """One budget: its scope and window, limit, used and left, and when it resets."""

    scope: str
    name: str
    per: str
    limit_usd: Decimal
    used_usd: Decimal
    left_usd: Decimal
    percent: int
    resets_at: str | None = None
    applies: bool
    warn: bool


class Spend(_Document):
    """What was paid, from the ledger (`svc spend --json`): amounts are exact Decimals."""

    paid_usd: Decimal
    paid_count: int
    refunded_usd: Decimal
    total_usd: Decimal
    outstanding_usd: Decimal
    by_day: dict[str, Sums] = Field(default_factory=dict)
    by_rail: dict[str, Sums] = Field(default_factory=dict)
    by_runner: dict[str, Sums] = Field(default_factory=dict)
    tasks: list[PaidTask] = Field(default_factory=list)
    outstanding: list[Outstanding] = Field(default_factory=list)
    unknown_outcome: list[str]
    awaiting_card: list[str] = Field(default_factory=list)
    cap: DailyCap
    budgets: list[BudgetLine] = Field(default_factory=list)


class Budgets(_Document):
    """The budgets (`svc budget --json`): each with its scope, window, limit, used and left,
    when it resets and whether it binds this client's payments; the breaker and the hourly
    rate. A refusal by one is `svc.PolicyRefused` (budget_exceeded, breaker_open,
    rate_limited)."""

    budgets: list[BudgetLine]
    breaker: dict[str, Any]
    max_paid_per_hour: int | None = None
    warn_percent: int = 80
    session_budget_usd: Decimal | None = None


class Finding(_Document):
    check: str
    status: Literal["ok", "warn", "fail"]
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
    amount_usd: Decimal | None = None
    at: str | None = None


class Receipt(_Document):
    """What the ledger says was paid for one request or task (`svc receipt ID --json`):
    amounts exact Decimals, times ISO 8601 UTC."""

    request_id: str
    task_id: str | None = None
    status: str
    rail: str
    amount_usd: Decimal | None = None
    payer: str | None = None
    recipient: str | None = None
    network: str | None = None
    asset: str | None = None
    settlement: Settlement
    billing: str | None = None
    paid_at: str | None = None
    refund: Refund | None = None
    net_usd: Decimal | None = None
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
