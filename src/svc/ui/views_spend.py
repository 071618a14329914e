"""`svc spend` on a terminal: the summary first (the window, the total, today
against the cap as a bar, spending by day as a bar chart, by rail and by runner), the per-task
list only with `--tasks`. Money cells are never cut or wrapped; JSON is drawn elsewhere.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import TYPE_CHECKING, Any

from svc.money import parse_usd, usd_to_atomic
from svc.ui import views_budget
from svc.ui.tables import ID_COLUMN, REQUEST_COLUMN, Column
from svc.words import not_charged, plural, usd, usd_atomic

if TYPE_CHECKING:
    from svc.ui.output import Output

FULL, EMPTY = "█", "░"
BAR_MAX = 30  # cells of the longest bar
MONEY = Column("paid", right=True, whole=True)
MANY_DAYS = 62  # a longer window charts only the days that paid


def _atomic(amount: object, name: str) -> int:
    return usd_to_atomic(parse_usd(amount, name))


def bar(part: int, whole: int, cells: int = BAR_MAX) -> str:
    """`███░░░`: `part` of `whole` in `cells` cells (a part above the whole fills them all)."""
    filled = cells if whole <= 0 or part >= whole else round(cells * max(part, 0) / whole)
    return FULL * filled + EMPTY * (cells - filled)


def draw(out: Output, doc: dict[str, Any]) -> None:
    _heading(out, doc)
    _today(out, doc.get("cap") or {})
    views_budget.bars(out, doc.get("budgets") or [])
    _by_day(out, doc)
    for label, key in (("rail", "by_rail"), ("runner", "by_runner")):
        _sums(out, doc[key], label)
    if doc["tasks"]:
        _tasks(out, doc["tasks"])
    elif doc["paid_count"]:
        out.line("`svc spend --tasks` lists each paid task.", style="dim")


def _heading(out: Output, doc: dict[str, Any]) -> None:
    span = doc.get("window") or {}
    since, until = span.get("since"), span.get("until")
    if span.get("whole_history"):
        where = "every day" + (f" up to {until}" if until else "")
    else:
        where = f"{since} to {until or 'today'}"
    out.line(
        "spent {total} net over {count} ({refunded} refunded), {where}",
        total=usd(doc["total_usd"]),
        count=plural(doc["paid_count"], "paid task"),
        refunded=usd(doc["refunded_usd"]),
        where=where,
    )


def _today(out: Output, cap: dict[str, Any]) -> None:
    """Today's exposure against the daily cap: a bar, and the same in words."""
    if not cap:
        return
    exposed = _atomic(cap["exposed_today_usd"], "exposed_today_usd")
    holders = cap.get("by_runner") or {}
    template = "today: {exposed} exposed, no daily cap"
    values: dict[str, object] = {"exposed": usd(cap["exposed_today_usd"])}
    if cap.get("daily_cap_usd"):
        limit = _atomic(cap["daily_cap_usd"], "daily_cap_usd")
        fleet = "the fleet's" if cap.get("source") == "fleet ledger" else "the"
        template = "today {bar} {exposed} exposed of " + fleet + " daily cap {cap}: {left} left"
        values |= {"bar": bar(exposed, limit, 20), "cap": usd(cap["daily_cap_usd"])}
        values["left"] = usd(cap["left_today_usd"])
    if len(holders) > 1:
        template += " ({held})"
        values["held"] = ", ".join(f"{name} {usd(amount)}" for name, amount in holders.items())
    out.line(template, "", **values)
    pending = cap.get("signed_not_charged_usd")
    if pending and _atomic(pending, "signed_not_charged_usd"):
        out.line(not_charged(pending, cap.get("signed_not_charged_until")), style="dim")


def _days(doc: dict[str, Any]) -> list[str]:
    """The days to chart: from the first that paid to the window's end, every one of them
    (a day without spending is a bar of nothing), or only those that paid over a long span."""
    paid = sorted(doc["by_day"])
    if not paid:
        return []
    last = (doc.get("window") or {}).get("until") or date.today().isoformat()
    first = date.fromisoformat(paid[0])
    count = (date.fromisoformat(max(last, paid[-1])) - first).days + 1
    if count > MANY_DAYS:
        return paid
    return [(first + timedelta(days=n)).isoformat() for n in range(count)]


def _by_day(out: Output, doc: dict[str, Any]) -> None:
    days = _days(doc)
    if not days:
        return
    nets = {d: _atomic(s["net_usd"], "net_usd") for d, s in doc["by_day"].items()}
    top = max(*nets.values(), 1)
    rows = [[day, bar(nets.get(day, 0), top), usd_atomic(nets.get(day, 0))] for day in days]
    chart = (Column("day", whole=True), Column("", drop=1), Column("net", right=True, whole=True))
    out.table(chart, rows, title="by day")


def _sums(out: Output, sums: dict[str, dict[str, str]], label: str) -> None:
    if not sums:
        return
    rows = [
        [name, usd(a["paid_usd"]), usd(a["refunded_usd"]), usd(a["net_usd"])]
        for name, a in sums.items()
    ]
    money = [Column(h, right=True, whole=True) for h in ("paid", "refunded", "net")]
    out.table((Column(label, drop=1), *money), rows, title="by " + label)


def _tasks(out: Output, tasks: list[dict[str, Any]]) -> None:
    """Every paid task of the window (the pager takes a long list)."""
    rows = [
        [
            item["day"],
            item["task_id"] or "-",
            item["rail"] or "-",
            usd(item["amount_usd"]),
            usd(item["refunded_usd"]) if parse_usd(item["refunded_usd"], "refunded_usd") else "",
            item["request_id"],
        ]
        for item in tasks
    ]
    refunds = Column("refunded", right=True, whole=True, drop=1)
    day, rail = Column("day", drop=2), Column("rail", drop=3)
    columns = (day, ID_COLUMN, rail, MONEY, refunds, REQUEST_COLUMN)
    out.table(columns, rows, title="paid tasks")
