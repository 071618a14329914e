"""What was paid, from the ledger: `svc spend` and the MCP `spend` tool."""

from __future__ import annotations

from typing import Any

from svc.context import AppContext
from svc.engines.budget import report as budget_report
from svc.errors import UsageError
from svc.store.ledger import EVERYONE, Whose
from svc.store.spend import BadDay, Window, load_spend, window

__all__ = ["EVERYONE", "Whose", "Window", "spend_document", "spend_window"]


def spend_window(
    since: str | None,
    until: str | None = None,
    *,
    whole: bool = False,
    names: tuple[str, str] = ("since", "until"),
) -> Window:
    """The days asked for (default: the last 30; `whole`: every day); `names` are what the
    caller calls the two days in an error (flags for the CLI, arguments for MCP)."""
    try:
        return window(since, until, whole=whole)
    except BadDay as bad:
        if bad.which == "order":
            raise UsageError(f"{names[1]} {until} is before {names[0]} {since}") from None
        name = names[0] if bad.which == "since" else names[1]
        raise UsageError(f"{name} must be a date like 2026-11-01, got {bad.value!r}") from None


def spend_document(
    app: AppContext,
    since: str | None,
    *,
    name: str = "since",
    whose: Whose = EVERYONE,
    span: Window | None = None,
    with_tasks: bool = True,
) -> dict[str, Any]:
    """The spend report of a window (`span`, else the last 30 days or from a `YYYY-MM-DD`
    day: `name` is what the caller calls it in an error), of one runner's, profile's or
    wallet's share (`whose`) or of all; no ledger yet means nothing paid."""
    span = span or spend_window(since, names=(name, "until"))
    cap = app.daily_cap()  # on a fleet: the fleet's one value
    ledger = app.ledger_to_read()
    doc = load_spend(ledger, span, whose, cap.atomic, with_tasks=with_tasks)
    doc["cap"]["source"] = cap.source
    # The budgets that bind this process, each with used, left and its reset.
    doc["budgets"] = [b for b in budget_report(app)["budgets"] if b["applies"]]
    return doc
