"""`svc budget` (and the budgets in `svc spend`) on a terminal (issue 35.6): a bar for each
budget with the same in words (used of limit, left, when it resets), then the breaker and the
hourly rate. JSON is drawn elsewhere; money cells are never cut.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from svc.money import parse_usd, usd_to_atomic
from svc.ui.views_spend import bar
from svc.ui.words import usd

if TYPE_CHECKING:
    from svc.ui.output import Output

BAR_CELLS = 20


def draw(out: Output, doc: dict[str, Any]) -> None:
    budgets = doc["budgets"]
    if not budgets:
        out.line("no budgets: `svc budget set 50 --per week` sets one", style="dim")
    bars(out, budgets)
    breaker = doc["breaker"]
    if breaker["open"]:
        out.line(
            "breaker OPEN: the last {after} paid requests failed or were refunded; nothing is "
            "paid until {closes} or `svc budget reset-breaker`",
            "bold red",
            after=breaker["after"],
            closes=breaker["closes_at"] or "-",
        )
    elif breaker["after"]:
        out.line(
            "breaker: closed (opens after {after} failed or refunded paid requests in a row)",
            "dim",
            after=breaker["after"],
        )
    if doc.get("max_paid_per_hour"):
        out.line("rate: at most {n} paid requests an hour", "dim", n=doc["max_paid_per_hour"])


def bars(out: Output, budgets: list[dict[str, Any]]) -> None:
    """One line per budget: `weekly budget of profile default ███░░ 1.50 USD of 3.00 USD`."""
    for item in budgets:
        used = usd_to_atomic(parse_usd(item["used_usd"], "used_usd"))
        limit = usd_to_atomic(parse_usd(item["limit_usd"], "limit_usd"))
        resets = item["resets_at"] or "as payments age out"
        style = "yellow" if item["warn"] else ""
        if not item["applies"]:
            style = "dim"
        out.line(
            "{what} {bar} {used} of {limit}: {left} left ({percent} %), resets {resets}"
            + ("" if item["applies"] else " (not this profile or runner)"),
            style,
            what=item["what"],
            bar=bar(used, limit, BAR_CELLS),
            used=usd(item["used_usd"]),
            limit=usd(item["limit_usd"]),
            left=usd(item["left_usd"]),
            percent=item["percent"],
            resets=resets,
        )


def changed(out: Output, doc: dict[str, Any]) -> None:
    """After `svc budget set`: the budget as it stands now."""
    bars(out, [doc])
