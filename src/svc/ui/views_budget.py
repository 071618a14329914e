"""`svc budget` (and the budgets in `svc spend`) on a terminal: a bar for each
budget with the same in words (used of limit, left, when it resets), then the breaker and the
hourly rate. JSON is drawn elsewhere; money cells are never cut.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from svc.money import parse_usd, usd_to_atomic
from svc.numbers import instant
from svc.words import budget_standing, not_charged, usd

if TYPE_CHECKING:
    from svc.ui.output import Output

BAR_CELLS = 20
FULL, EMPTY = "█", "░"  # as svc.ui.views_spend draws the daily cap


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
    pending = doc.get("signed_not_charged_usd")
    if pending and usd_to_atomic(parse_usd(pending, "signed_not_charged_usd")):
        words = not_charged(pending, doc.get("signed_not_charged_until"))
        out.line(f"{words}: the budgets count it too", "dim")


def bars(out: Output, budgets: list[dict[str, Any]]) -> None:
    """Two lines per budget, within 80 columns: the bar, then the same in words.

    budget week, profile default ██████████░░░░░░░░░░ 1.50 of 3.00 USD (50 %)
      1.50 USD left; resets Mon 30 Nov 00:00
    """
    for item in budgets:
        used = usd_to_atomic(parse_usd(item["used_usd"], "used_usd"))
        limit = usd_to_atomic(parse_usd(item["limit_usd"], "limit_usd"))
        style = "dim" if not item["applies"] else ("yellow" if item["warn"] else "")
        who = "the fleet" if item["scope"] == "fleet" else f"{item['scope']} {item['name']}"
        out.line(
            "budget {per}, {who} {bar} {used} of {limit} ({percent} %)",
            style,
            per=item["per"],
            who=who,
            bar=_bar(used, limit),
            used=usd(item["used_usd"]).removesuffix(" USD"),
            limit=usd(item["limit_usd"]),
            percent=item["percent"],
        )
        notes = [f"{usd(item['left_usd'])} left", f"resets {_when(item['resets_at'])}"]
        if item["warn"]:  # in words that match the percentage: 150 % is over, not near
            notes.append(budget_standing(used, limit))
        if not item["applies"]:
            notes.append("not this profile or runner")
        out.line("  " + "; ".join(notes), "dim")


def _when(stamp: object) -> str:
    moment = instant(stamp)
    if moment is None:
        return "as its payments age out"
    return datetime.fromtimestamp(moment).strftime("%a %d %b %H:%M")


def _bar(part: int, whole: int) -> str:
    """`███░░░`, as `svc spend` draws the cap (a part above the whole fills every cell)."""
    filled = BAR_CELLS if whole <= 0 or part >= whole else round(BAR_CELLS * part / whole)
    return FULL * filled + EMPTY * (BAR_CELLS - filled)


def changed(out: Output, doc: dict[str, Any]) -> None:
    """After `svc budget set`: the budget as it stands now."""
    bars(out, [doc])
