"""`svc submit --dry-run`: what would be sent and paid, and whether the policy allows it."""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Any

from svc.context import AppContext
from svc.errors import SvcError
from svc.money import parse_usd
from svc.pay.policy import PolicyRefusal
from svc.ui.words import usd

if TYPE_CHECKING:
    from svc.ui.output import Output


def listed_price(app: AppContext) -> tuple[str, str]:
    """The task price the manifest lists, else the spec's flat fee (said on stderr)."""
    from svc.api.discovery import DiscoveryClient, task_price
    from svc.engines.submit import TASK_PRICE_USD

    try:
        manifest = DiscoveryClient(app.http, app.settings.base_url).manifest()
    except SvcError as exc:
        app.output.warn(
            f"could not read the manifest ({exc.message}); assuming the spec's {TASK_PRICE_USD} USD"
        )
        return TASK_PRICE_USD, "spec"
    price = task_price(manifest)
    if price is None:
        app.output.warn(
            f"the manifest lists no price for tasks/task; assuming the spec's {TASK_PRICE_USD} USD"
        )
        return TASK_PRICE_USD, "spec"
    return f"{price:.6f}", "manifest"


def dry_run(app: AppContext, body: dict[str, Any], method: str, cap: Decimal) -> int:
    """Show what would be sent and paid; a price above the cap is the policy's exit code."""
    listed, source = listed_price(app)
    within = parse_usd(listed, "the listed price") <= cap
    doc = {
        "dry_run": True,
        "request": {"method": "POST", "path": "/svc/tasks", "body": body},
        "price_usd": listed,
        "price_source": source,
        "pay": method,
        "max_price_usd": str(cap),
        "within_policy": within,
    }
    app.output.show(doc, _draw_dry_run)
    if not within:
        raise PolicyRefusal(f"the price {listed} USD is above the limit {cap} USD")
    return 0


def _draw_dry_run(out: Output, doc: dict[str, Any]) -> None:
    out.line(
        "Would submit a {size}-character task for {email} and pay {price} by {pay} "
        "({verdict} your limit of {cap}; price from the {source}). The task was not sent.",
        size=len(doc["request"]["body"]["task"]),
        email=doc["request"]["body"]["email"],
        price=usd(doc["price_usd"]),  # `1.50 USD` for people; the JSON keeps 1.500000
        pay=doc["pay"],
        verdict="within" if doc["within_policy"] else "ABOVE",
        cap=usd(doc["max_price_usd"]),
        source=doc["price_source"],
    )
