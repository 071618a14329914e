"""`svc submit --probe`: fetch the real 402 without paying, and say what would be paid.

The request goes out once, unpaid and without an idempotency key (an unpaid submit creates
nothing). Every challenge in the answer is shown, and the chosen rail's offer is checked against
the policy read-only: nothing is signed, no token is read, no recipient pinned, no budget
reserved.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from svc.api.jsonsafe import load_json
from svc.api.tasks import TASKS_PATH
from svc.context import AppContext
from svc.errors import ProtocolError, SvcError, error_from_response
from svc.money import atomic_to_usd
from svc.pay.chains import caip2
from svc.pay.policy import CARD_MIN_ATOMIC, PaymentPolicy, PolicyRefusal


def probe(app: AppContext, body: dict[str, Any], rail: str, cap: Decimal | None) -> dict[str, Any]:
    from svc.pay import card, mpp
    from svc.pay.x402 import X402Error, parse_challenge

    url = app.settings.base_url + TASKS_PATH
    response = app.http.send("POST", url, what="probe", json_body=body, resend_safe=True)
    if response.status_code != 402:
        if response.status_code >= 400:
            raise error_from_response(response.status_code, response.content, "probe")
        raise ProtocolError(f"probe: the service answered {response.status_code}, not 402")
    try:
        doc = load_json(response.content)
    except (ValueError, UnicodeDecodeError):
        doc = None
    offers: dict[str, Any] = {}
    try:
        x402 = parse_challenge(response.headers, response.content)
    except X402Error as exc:
        x402 = None
        offers["x402_error"] = str(exc)
    offers["x402"] = [
        {
            "network": caip2(o.network),  # a v1 name shown as the chain it is
            "asset": o.asset,
            "amount_usd": str(atomic_to_usd(o.amount)),
            "pay_to": o.pay_to,
            "scheme": o.scheme,
        }
        for o in (x402.accepts if x402 else [])
    ]
    challenges = mpp.parse_challenges(response.headers.get_list("www-authenticate"))
    offers["mpp"] = [
        {
            "method": c.method,
            "intent": c.intent,
            "amount_usd": str(atomic_to_usd(c.amount_atomic)) if c.request else None,
            "currency": c.currency,
            "realm": c.realm,
            "expires": c.expires,
            "usable": mpp.why_unusable(c) is None,
            "why_not": mpp.why_unusable(c),
        }
        for c in challenges
    ]
    card_offer = card.parse_offer(doc)
    offers["card"] = (
        {
            "payment_id": card_offer.payment_id,
            "amount_usd": str(atomic_to_usd(card_offer.amount_atomic)),
            "pay_url": card_offer.pay_url,
            "status_url": card_offer.status_url,
        }
        if card_offer
        else None
    )
    policy = app.policy(max_price_usd=cap)
    policy.confirm_new_recipient = None  # read-only: a changed recipient is reported, not asked
    verdict = _verdict(
        policy,
        rail,
        accepts=x402.accepts if x402 else [],
        challenges=challenges,
        card_offer=card_offer,
        app=app,
    )
    return {
        "probe": True,
        "request": {"method": "POST", "path": TASKS_PATH, "body": body},
        "status": 402,
        "challenges": offers,
        "would_pay": verdict,
        "max_price_usd": str(policy.max_price_usd),
        "sent": "one unpaid request; nothing was signed or paid",
    }


def _verdict(
    policy: PaymentPolicy,
    rail: str,
    *,
    accepts: list[Any],
    challenges: list[Any],
    card_offer: Any,
    app: AppContext,
) -> dict[str, Any]:
    from svc.pay import mpp

    out: dict[str, Any] = {"rail": rail}
    try:
        policy.check_rail(rail)
        if rail == "x402":
            problems = [policy._problem(o) for o in accepts]
            chosen = next((o for o, p in zip(accepts, problems, strict=True) if p is None), None)
            if chosen is None:
                raise PolicyRefusal(
                    "refusing to pay: "
                    + (next((p for p in problems if p), None) or "no x402 challenge offered")
                )
            policy.check_recipient(caip2(chosen.network), chosen.asset, chosen.pay_to)
            out.update(amount_usd=str(atomic_to_usd(chosen.amount)), pay_to=chosen.pay_to)
            out["network"], out["asset"] = caip2(chosen.network), chosen.asset
        elif rail == "mpp":
            picked = mpp.choose(challenges, app.settings.mpp_methods)
            policy.check_price(picked.amount_atomic)
            policy.check_recipient(f"mpp:{picked.method}", "usd", picked.realm)
            out.update(amount_usd=str(atomic_to_usd(picked.amount_atomic)), pay_to=picked.realm)
            out["method"] = picked.method
        else:
            if card_offer is None:
                raise PolicyRefusal("the service offers no card payment for this call")
            if card_offer.amount_atomic < CARD_MIN_ATOMIC:
                raise PolicyRefusal("card needs a price of 0.50 USD or more")
            policy.check_price(card_offer.amount_atomic)
            policy.check_recipient("card", "usd", card_offer.recipient)
            out.update(
                amount_usd=str(atomic_to_usd(card_offer.amount_atomic)),
                pay_to=card_offer.recipient,
            )
        out["within_policy"] = True
    except SvcError as exc:
        out["within_policy"] = False
        out["refusal"] = exc.message
    return out


def show_probe(app: AppContext, body: dict[str, Any], rail: str, cap: Decimal | None) -> None:
    from svc.ui import views

    doc = probe(app, body, rail, cap)
    verdict = doc["would_pay"]
    app.output.show(doc, views.probe)
    if not verdict["within_policy"]:
        raise PolicyRefusal(str(verdict["refusal"]), json_report=False)
