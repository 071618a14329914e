"""The documents operations return, as the library's models: what `--json` prints for each,
its known members typed and every other member kept (a newer server never breaks an older
program). `svc mcp` derives its tools' output schemas from the same models. An operation
served whole from its own module (spend, receipt, price) keeps its result model there.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict

from svc.money import AmountError, parse_usd

__all__ = [
    "BudgetLine",
    "Budgets",
    "DoctorReport",
    "Finding",
    "Guide",
    "IdentityStatus",
    "Quote",
    "ResultModel",
    "TaskRow",
]


class ResultModel(BaseModel):
    """A document `--json` prints, its known members typed and every other kept."""

    model_config: ClassVar[ConfigDict] = ConfigDict(extra="allow")

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_unset=True)


class Quote(ResultModel):
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


class Guide(ResultModel):
    """The wallet-free guide (`svc guide --json`): the service's object, or its Markdown."""

    guide: Any = None


class TaskRow(ResultModel):
    """One submission in this machine's ledger (`svc tasks --json`): never its proof."""

    request_id: str
    task_id: str | None = None
    status: str
    state: str | None = None


class BudgetLine(ResultModel):
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


class Budgets(ResultModel):
    """The budgets (`svc budget --json`): each with its scope, window, limit, used and left,
    when it resets and whether it binds this client's payments; the breaker and the hourly
    rate. A refusal by one is `svc.PolicyRefused` (budget_exceeded, breaker_open,
    rate_limited)."""

    budgets: list[BudgetLine]
    breaker: dict[str, Any]
    max_paid_per_hour: int | None = None
    warn_percent: int = 80
    session_budget_usd: Decimal | None = None


class Finding(ResultModel):
    check: str
    status: Literal["ok", "warn", "fail"]
    detail: str
    fix: str | None = None
    exit_code: int = 0


class DoctorReport(ResultModel):
    """`svc doctor --json`: every check, and the exit code the first failure gives."""

    ok: bool
    exit_code: int
    checks: list[Finding]


class IdentityStatus(ResultModel):
    """The agent credential as `svc identity status --json` shows it: never a secret."""

    registered: bool
    auth_base: str
    id: str | None = None
    type: str | None = None
    claimed: bool | None = None
    email: str | None = None
