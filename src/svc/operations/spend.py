"""`spend`: what was paid over a window of days, by day, rail, runner and task, from the ledger.

The whole operation in one place: its arguments, its result, its words, and on each face.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any, NotRequired

from pydantic import Field
from typing_extensions import TypedDict

from svc.context import AppContext
from svc.engines.spend import Whose, spend_document, spend_window
from svc.errors import UsageError
from svc.operations.declare import Command, Document, Method, Operation, Tool
from svc.operations.fields import CLI_ONLY, DATE_PATTERN, WALLET_PATTERN, Flag, NotIn, Request
from svc.operations.results import BudgetLine, ResultModel
from svc.words import counted, plural, usd


class SpendRequest(Request):
    """The window, whose payments count, and on a terminal how they are shown (the CLI's
    `--format` and `--tasks`: the library and svc mcp return the document itself)."""

    since: Annotated[
        str | None,
        Flag("--since", "YYYY-MM-DD", help="From this day on (default: 29 days ago)."),
    ] = Field(
        None,
        pattern=DATE_PATTERN,
        description="Only days from this one on (YYYY-MM-DD); default: the last 30 days.",
    )
    until: Annotated[
        str | None,
        Flag("--until", "YYYY-MM-DD", help="Up to this day, included (default: today)."),
        NotIn(("mcp",)),
    ] = Field(None, pattern=DATE_PATTERN, description="Only days up to this one (YYYY-MM-DD).")
    whole: Annotated[
        bool, Flag("--all", help="Every day the ledger holds (not with --since)."), NotIn(("mcp",))
    ] = Field(False, description="Every day the ledger holds (not with since or until).")
    runner: Annotated[
        str | None,
        Flag("--runner", "NAME", help="Only what this runner paid (a shared ledger)."),
        NotIn(("mcp",)),
    ] = Field(
        None, min_length=1, max_length=64, description="One runner's share of a fleet ledger."
    )
    format: Annotated[str | None, Flag("--format", "FORMAT"), CLI_ONLY] = Field(
        None, description="Export the window: csv, beancount, ledger (hledger too) or json."
    )
    tasks: Annotated[bool, Flag("--tasks"), CLI_ONLY] = Field(
        False, description="List every paid task (a terminal)."
    )
    # On the CLI the global --profile, when named (flag or SVC_PROFILE), is this filter.
    profile: Annotated[str | None, Flag("--profile", "NAME"), NotIn(("mcp", "cli"))] = Field(
        None, min_length=1, max_length=64, description="What one config profile paid."
    )
    wallet: Annotated[
        str | None,
        Flag("--wallet", "ADDRESS", help="Only what this wallet (0x address) paid."),
        NotIn(("mcp",)),
    ] = Field(None, pattern=WALLET_PATTERN, description="What one wallet (its 0x address) paid.")


class Sums(ResultModel):
    """A day's, a rail's or a runner's charges: paid, refunded and their difference."""

    paid_usd: Decimal
    refunded_usd: Decimal
    net_usd: Decimal


class PaidTask(ResultModel):
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


class Outstanding(ResultModel):
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


class DailyCap(ResultModel):
    """Today's exposure (every runner's) against the daily cap, and who holds it."""

    daily_cap_usd: Decimal | None = None
    exposed_today_usd: Decimal
    left_today_usd: Decimal | None = None
    by_runner: dict[str, Decimal]
    signed_not_charged_usd: Decimal
    signed_not_charged_until: str | None = None
    source: str | None = None


class Spend(ResultModel):
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


class SpendShown(TypedDict):
    paid_usd: str
    paid_count: int
    refunded_usd: NotRequired[str]
    total_usd: str
    outstanding_usd: NotRequired[str]
    unknown_outcome: NotRequired[list[Any]]


def spend_text(doc: dict[str, Any]) -> str:
    text = (
        f"Paid {usd(doc['paid_usd'])} over {plural(doc['paid_count'], 'task')}, refunded "
        f"{usd(doc['refunded_usd'])}, net {usd(doc['total_usd'])}; outstanding "
        f"authorizations {usd(doc['outstanding_usd'])}."
    )
    if doc["unknown_outcome"]:
        unknown = counted(len(doc["unknown_outcome"]), "paid submission", "has", "have")
        text += f" {unknown} an unknown outcome."
    return text


def _spend(app: AppContext, request: SpendRequest) -> Document:
    if request.whole and (request.since or request.until):
        raise UsageError("whole takes every day: not with since or until")
    span = spend_window(request.since, request.until, whole=request.whole)
    whose = Whose(request.runner, request.profile, request.wallet)
    return spend_document(app, request.since, span=span, whose=whose)


SPEND = Operation(
    "spend",
    SpendRequest,
    cli=Command("spend"),
    mcp=Tool(
        "spend",
        "What was paid",
        "What the ledger says was paid, by day, task and rail, with refunds, outstanding "
        "authorizations (signed, may still be spent) and submissions with an unknown outcome.",
        SpendShown,
        read_only=True,
    ),
    library=Method(
        "spend",
        "What was paid over a window of days (YYYY-MM-DD `since` and `until`; the last 30 "
        "days by default; `whole` for every day), by everyone or only one `runner` of a fleet "
        "ledger, one config `profile` or one `wallet` address, from the ledger (`svc spend "
        "--json`); amounts are Decimals.",
    ),
    run=_spend,
    result=Spend,
    text=spend_text,
)
