"""`price`: what paying for a task would cost, from the service's own 402, nothing signed.

The whole operation in one place: its arguments, its result, its words, and on which face.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any

from pydantic import Field

from svc.context import AppContext
from svc.engines.probe import price_document
from svc.operations.declare import Document, Method, Missing, Operation
from svc.operations.fields import Email, Positional, Rail, Request
from svc.operations.results import ResultModel
from svc.words import usd


class PriceRequest(Request):
    """What a submit would send, priced by the service's own 402 before anything is paid."""

    task: Annotated[str, Positional("TASK")] = Field(
        min_length=1, max_length=100_000, description="The task in natural language."
    )
    email: Email | None = Field(
        None, description="The person's e-mail address (default: the profile's email)."
    )
    pay: Rail | None = Field(None, description="Payment rail (default: the profile's).")
    max_price: Decimal | str | None = Field(
        None,
        description="The per-call limit to judge the price by (a Decimal or '1.50'); it can "
        "only lower the profile's max_price_usd.",
    )


class Price(ResultModel):
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


def price_text(doc: dict[str, Any]) -> str:
    verdict = "within the payment policy" if doc["within_policy"] else "refused by the policy"
    text = f"{usd(doc.get('amount_usd'))} by {doc['rail']}, {verdict}"
    return text + (f": {doc['refusal']}." if doc.get("refusal") else ".")


def _price(app: AppContext, request: PriceRequest) -> Document:
    return price_document(app, request.task, request.email, request.pay, request.max_price)


PRICE = Operation(
    "price",
    PriceRequest,
    cli=Missing("svc submit --probe shows the 402's offers and the verdict"),
    mcp=Missing("submit_task's dry_run gives the price; the offer itself: not yet"),
    library=Method(
        "price",
        "What paying for `task` would cost, from the service's own 402, with nothing signed "
        "or paid (one unpaid request is sent): the rail's amount, recipient, network and "
        "asset, and whether the payment policy allows it (`refusal` says why not).",
    ),
    run=_price,
    result=Price,
    text=price_text,
)
