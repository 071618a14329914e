"""`svc submit --probe`: fetch the real 402 without paying, and say what would be paid.

The request goes out once, unpaid and without an idempotency key (an unpaid submit creates
nothing). Every challenge in the answer is shown, and the chosen rail's offer is checked against
the policy read-only: nothing is signed, no token is read, no recipient pinned, no budget
reserved.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from svc.api.headers import MPP_CHALLENGE
from svc.api.response import expect_status
from svc.api.status import json_or_none
from svc.api.tasks import TASKS_PATH
from svc.context import AppContext
from svc.engines.validate import task_body
from svc.errors import PaymentFailed, SvcError
from svc.money import atomic_to_usd
from svc.origin import TrustedURL
from svc.pay import card, mpp
from svc.pay.offer import Offer, card_offer, mpp_offer, x402_offers
from svc.pay.policy import PaymentPolicy, PolicyRefusal
from svc.pay.x402 import X402Error, parse_challenge
from svc.rail_table import CARD, MPP, X402
from svc.settings import usd_amount

if TYPE_CHECKING:
    import httpx


def probe(app: AppContext, body: dict[str, Any], rail: str, cap: Decimal | None) -> dict[str, Any]:
    response = _unpaid_402(app, body)
    return {
        "probe": True,
        "request": {"method": "POST", "path": TASKS_PATH, "body": body},
        **offered(app, response, rail, cap, app.base),
        "sent": "one unpaid request; nothing was signed or paid",
    }


def offered(
    app: AppContext, response: httpx.Response, rail: str, cap: Decimal | None, anchor: TrustedURL
) -> dict[str, Any]:
    """A 402's offers, every rail's, and the policy's verdict on the chosen rail's, read-only:
    nothing is signed, no token read, no recipient pinned. `anchor`: the URL the 402 answered
    (its origin is the one whose pins and card links count)."""
    offers: dict[str, Any] = {}
    try:
        x402 = parse_challenge(response.headers, response.content)
    except X402Error as exc:
        x402 = None
        offers["x402_error"] = str(exc)
    accepts = x402_offers(x402.accepts) if x402 else []
    challenges = mpp.parse_challenges(response.headers.get_list(MPP_CHALLENGE))
    card_terms = _card_terms(app, response, offers, anchor)
    offers |= {
        X402: [_x402_view(o) for o in accepts],
        MPP: [_mpp_view(c) for c in challenges],
        CARD: _card_view(card_terms) if card_terms else None,
    }
    policy = app.policy(max_price_usd=cap, origin=anchor.origin)
    policy.confirm_new_recipient = None  # read-only: a changed recipient is reported, not asked
    card_terms_offer = card_offer(card_terms) if card_terms else None
    found = Offered(accepts, challenges, card_terms_offer, offers.get("card_error"))
    return {
        "status": 402,
        "challenges": offers,
        "would_pay": _verdict(policy, rail, found, app),
        "max_price_usd": str(policy.max_price_usd),
    }


def _unpaid_402(app: AppContext, body: dict[str, Any]) -> httpx.Response:
    url = app.base.join(TASKS_PATH)
    response = app.http.send("POST", url, what="probe", json_body=body, resend_safe=True)
    return expect_status(response, "probe", ok=(402,))


def _card_terms(
    app: AppContext, response: httpx.Response, offers: dict[str, Any], anchor: TrustedURL
) -> Any:
    """The card offer, or None; an unreadable amount is shown as `card_error`, like an
    unreadable x402 challenge, so the other rails' offers are still shown."""
    try:
        return card.parse_offer(json_or_none(response.content), anchor, app.trusts_link_host)
    except PaymentFailed as exc:
        offers["card_error"] = exc.message
        return None


def _x402_view(offer: Offer) -> dict[str, Any]:
    return {
        "network": offer.network,  # a v1 name shown as the chain it is
        "asset": offer.asset,
        "amount_usd": str(atomic_to_usd(offer.amount_atomic)),
        "pay_to": offer.pay_to,
        "scheme": offer.scheme,
    }


def _mpp_view(challenge: Any) -> dict[str, Any]:
    why_not = mpp.why_unusable(challenge)
    return {
        "method": challenge.method,
        "intent": challenge.intent,
        "amount_usd": _mpp_amount(challenge),
        "currency": challenge.currency,
        "realm": challenge.realm,
        "expires": challenge.expires,
        "usable": why_not is None,
        "why_not": why_not,
    }


def _mpp_amount(challenge: Any) -> str | None:
    """The challenge's price, or None when it is not a plain amount (`why_not` names it)."""
    try:
        return str(atomic_to_usd(challenge.amount_atomic))
    except mpp.MppError:
        return None


def _card_view(offer: Any) -> dict[str, Any]:
    return {
        "payment_id": offer.payment_id,
        "amount_usd": str(atomic_to_usd(offer.amount_atomic)),
        "pay_url": str(offer.pay_url),
        "status_url": str(offer.status_url),
    }


@dataclass(frozen=True)
class Offered:
    """What the 402 offered, per rail, as the rails read it."""

    x402: list[Offer]
    mpp_challenges: list[Any]
    card: Offer | None
    card_error: str | None = None  # why the card block could not be read (its amount)


def _verdict(policy: PaymentPolicy, rail: str, offered: Offered, app: AppContext) -> dict[str, Any]:
    """What the chosen rail would pay: the policy's own judgement, read-only."""
    out: dict[str, Any] = {"rail": rail}
    try:
        policy.check_rail(rail)
        out |= _would_pay(policy.judge(_offers_for(rail, offered, app)))
        out["within_policy"] = True
    except SvcError as exc:
        out["within_policy"] = False
        out["refusal"] = exc.message
    return out


def _offers_for(rail: str, offered: Offered, app: AppContext) -> list[Offer]:
    """The offers the rail would put to the policy, exactly as it does when paying."""
    if rail == X402:
        return offered.x402
    if rail == MPP:
        return [mpp_offer(mpp.choose(offered.mpp_challenges, app.settings.mpp_methods))]
    if offered.card is None:
        raise PolicyRefusal(
            offered.card_error or "the service offers no card payment for this call"
        )
    return [offered.card]


def _would_pay(offer: Offer) -> dict[str, Any]:
    out = {"amount_usd": str(atomic_to_usd(offer.amount_atomic)), "pay_to": offer.pay_to}
    if offer.rail == X402:
        out |= {"network": offer.network, "asset": offer.asset}
    elif offer.rail == MPP:
        out["method"] = offer.network.removeprefix("mpp:")
    return out


def refusal(doc: dict[str, Any]) -> PolicyRefusal | None:
    """The policy's refusal of a probe's offer (raised by the face once it has shown the
    probe: the JSON answer is the probe, not an error object), None when it would pay."""
    verdict = doc["would_pay"]
    if verdict["within_policy"]:
        return None
    return PolicyRefusal(str(verdict["refusal"]), json_report=False)


def price_document(
    app: AppContext, task: str, email: str | None, rail: str | None, cap: object
) -> dict[str, Any]:
    """What paying for a task would cost, from a probe: the chosen rail's offer and the
    policy's verdict, flat, with every rail's offers beside them (the library's `price`)."""
    body = task_body(task, email or app.settings.email)
    limit = None if cap is None else usd_amount("max_price", cap)
    doc = probe(app, body, rail or app.settings.pay, limit)
    verdict = dict(doc["would_pay"])
    chosen = verdict.pop("rail")
    offered = _first_offer(doc["challenges"].get(chosen))
    return {
        "rail": chosen,
        "within_policy": verdict.pop("within_policy"),
        **{key: offered.get(key) for key in ("amount_usd", "pay_to", "network", "asset")},
        **verdict,  # what the policy would pay, when it would
        "max_price_usd": doc["max_price_usd"],
        "offers": doc["challenges"],
    }


def _first_offer(offers: object) -> dict[str, Any]:
    """The rail's first offer as the probe shows it (a refused price is still a price)."""
    if isinstance(offers, list):
        return dict(offers[0]) if offers else {}
    return dict(offers) if isinstance(offers, dict) else {}
