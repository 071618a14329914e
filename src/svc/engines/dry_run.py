"""`svc submit --dry-run`: what would be sent and paid, and whether the policy allows it."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from svc.context import AppContext
from svc.errors import SvcError
from svc.money import parse_usd
from svc.pay.policy import PolicyRefusal


def listed_price(app: AppContext) -> tuple[str, str]:
    """The task price the manifest lists, else the spec's flat fee (said on stderr)."""
    from svc.api.discovery import DiscoveryClient, task_price
    from svc.engines.submit import TASK_PRICE_USD

    try:
        manifest = DiscoveryClient(app.http, app.settings.base_url).manifest()
    except SvcError as exc:
        app.report.warn(
            f"could not read the manifest ({exc.message}); assuming the spec's {TASK_PRICE_USD} USD"
        )
        return TASK_PRICE_USD, "spec"
    price = task_price(manifest)
    if price is None:
        app.report.warn(
            f"the manifest lists no price for tasks/task; assuming the spec's {TASK_PRICE_USD} USD"
        )
        return TASK_PRICE_USD, "spec"
    return f"{price:.6f}", "manifest"


def dry_run(
    app: AppContext, body: dict[str, Any], method: str, cap: Decimal | None
) -> dict[str, Any]:
    """What would be sent and paid, and whether the policy allows it (`refusal` says why not);
    `cap` None: the profile's max_price_usd."""
    cap = app.settings.max_price_usd if cap is None else cap
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
    return doc


def refusal(doc: dict[str, Any]) -> PolicyRefusal | None:
    """The policy's refusal of a dry run's price (raised by the face once it has shown the
    dry run), None when the price is within the limit."""
    if doc["within_policy"]:
        return None
    return PolicyRefusal(
        f"the price {doc['price_usd']} USD is above the limit {doc['max_price_usd']} USD"
    )
