"""`budget` and `pay card`: the person's spending limits, and a card payment they complete.

Operations of the CLI alone (or written by hand on the library): their requests and declarations.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from svc.operations.declare import PERSON, Operation, by_hand
from svc.operations.fields import REQUEST_ID_PATTERN, Flag, Positional, Request


class BudgetRequest(Request):
    """No arguments: every stored budget is listed, those that bind this process first."""


class BudgetSetRequest(Request):
    """A limit for a scope over a window: the profile in effect, a `runner`, or the `fleet`."""

    amount: Annotated[str, Positional("AMOUNT")] = Field(description="USD, such as 50 or 12.50.")
    per: Annotated[str, Flag("--per", "WINDOW")] = Field(
        description="day, week, month, rolling:24h, rolling:7d."
    )
    runner: Annotated[str | None, Flag("--runner", "NAME")] = Field(
        None, description="Limit this runner (default: the profile)."
    )
    fleet: Annotated[bool, Flag("--fleet")] = Field(
        False, description="Limit the whole fleet (ledger_url)."
    )


class BudgetUnsetRequest(Request):
    """One window's budget of a scope (`per`), or every window of it."""

    per: Annotated[str | None, Flag("--per", "WINDOW")] = Field(
        None, description="Only this window's budget."
    )
    runner: Annotated[str | None, Flag("--runner", "NAME")] = Field(
        None, description="A runner's budget (default: the profile)."
    )
    fleet: Annotated[bool, Flag("--fleet")] = Field(
        False, description="The fleet's budget (ledger_url)."
    )


class BudgetResetBreakerRequest(Request):
    """This runner's breaker, or another's on a shared ledger."""

    runner: Annotated[str | None, Flag("--runner", "NAME")] = Field(
        None, description="Another runner's breaker (a shared ledger)."
    )


class PayCardRequest(Request):
    """The journaled submission whose card payment a person completes (default: the latest
    one waiting), and whether its page opens in a browser."""

    request_id: Annotated[str | None, Positional("REQUEST_ID")] = Field(
        None,
        pattern=REQUEST_ID_PATTERN,
        description="The submission (default: the latest pending one).",
    )
    no_browser: Annotated[bool, Flag("--no-browser")] = Field(
        False, description="Do not open a browser."
    )


BUDGET: tuple[Operation[Any], ...] = (
    by_hand("budget", PERSON, written_as="budgets", request=BudgetRequest),
    by_hand("budget set", PERSON, request=BudgetSetRequest),
    by_hand("budget unset", PERSON, request=BudgetUnsetRequest),
    by_hand("budget reset-breaker", PERSON, request=BudgetResetBreakerRequest),
    by_hand("pay card", "a person's page", written_as="pay_card", request=PayCardRequest),
)
