"""The task fee's 402 (x402, MPP and card at once), pympp's server, and the hosted card page.

- The 402 of an unpaid submit carries, beside x402, an MPP `WWW-Authenticate: Payment`
  challenge (method `stripe`, intent `charge`, HMAC-bound id, expiry on the sandbox clock,
  digest of the request body) and the `payment` + `card` blocks of the hosted card page.
- `Authorization: Payment <credential>` is verified by pympp's server (`mpp.server.Mpp` with its
  stripe method) against a sandbox card processor that accepts sandbox SPTs (`spt_test_...`).
- The hosted page (`payUrl`, `statusUrl`, `checkoutUrl`) completes a card payment that
  `svc-payment-id` then spends.

Paying is `svc_sandbox.paid` (one path) over `svc_sandbox.rails` (x402, MPP, card).
"""

from __future__ import annotations

import html
import secrets
from datetime import UTC, timedelta
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from svc_sandbox import x402
from svc_sandbox.config import SandboxConfig
from svc_sandbox.deps import sandbox_state
from svc_sandbox.errors import SandboxError, api_error
from svc_sandbox.money import usd, whole_cents
from svc_sandbox.payment_store import CardPayment, PaymentStore
from svc_sandbox.records import iso, new_id
from svc_sandbox.state import SandboxState

router = APIRouter(tags=["payments"])
admin_router = APIRouter(prefix="/_sandbox", tags=["sandbox"])
State = Annotated[SandboxState, Depends(sandbox_state)]

CHALLENGE_LIFETIME = timedelta(minutes=5)
NETWORK_ID = "bn_sandbox"
CARD_MIN_ATOMIC = 500_000


async def raw_body(request: Request) -> bytes:
    """The request body as sent (the MPP digest binds these bytes)."""
    return await request.body()


RawBody = Annotated[bytes, Depends(raw_body)]


# --- the 402 -------------------------------------------------------------------------------


def price_cents(config: SandboxConfig) -> int | None:
    """The price in cents, when MPP/card can charge it (whole cents, 0.50 USD or more)."""
    if config.price_atomic < CARD_MIN_ATOMIC:
        return None
    return whole_cents(config.price_atomic)


def wire_request(cents: int) -> dict[str, Any]:
    return {
        "amount": str(cents),
        "currency": "usd",
        "methodDetails": {"networkId": NETWORK_ID, "paymentMethodTypes": ["card"]},
    }


def realm_of(request: Request) -> str:
    return request.headers.get("host") or request.url.netloc


def mpp_challenge(state: SandboxState, request: Request, raw: bytes, cents: int) -> str:
    from mpp import BodyDigest, Challenge

    expires = state.clock.now().astimezone(UTC) + CHALLENGE_LIFETIME
    challenge = Challenge.create(
        secret_key=state.payments.hmac_secret,
        realm=realm_of(request),
        method="stripe",
        intent="charge",
        request=wire_request(cents),
        expires=expires.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        digest=BodyDigest.compute(raw),
        description=f"Task fee, {cents / 100:.2f} USD per submitted task",
        meta={"nonce": secrets.token_hex(8)},
    )
    return challenge.to_www_authenticate(realm_of(request))


def fee_challenge(
    state: SandboxState,
    config: SandboxConfig,
    request: Request,
    raw: bytes,
    note: str | None = None,
) -> SandboxError:
    """The 402 of an unpaid submit: x402, MPP and (0.50 USD or more) the hosted card page."""
    payment_id = new_id("pay")
    base = str(request.base_url).rstrip("/")
    cents = price_cents(config)
    card = None
    if cents is not None:
        state.payments.new_card(payment_id, config.price_atomic, state.clock.now())
        card = {
            "payUrl": f"{base}/svc/payments/{payment_id}/pay",
            "statusUrl": f"{base}/svc/payments/{payment_id}/status",
        }
    error = x402.challenge(
        config,
        amount_atomic=config.price_atomic,
        resource_url=str(request.url),
        description=f"Task fee: {usd(config.price_atomic)} USD per submitted task.",
        payment={
            "id": payment_id,
            "amountUsd": usd(config.price_atomic),
            "currency": "USD",
        },
        card=card,
        note=note,
    )
    if cents is not None:
        error.headers["WWW-Authenticate"] = mpp_challenge(state, request, raw, cents)
    return error


# --- MPP ----------------------------------------------------------------------------------


def mpp_server(store: PaymentStore, realm: str) -> Any:
    """pympp's server with its stripe method, over the sandbox card processor."""
    from mpp.methods.stripe import server as stripe
    from mpp.server.mpp import Mpp

    method = stripe.charge(network_id=NETWORK_ID, client=store.processor, currency="usd")
    return Mpp(methods=method, realm=realm, secret_key=store.hmac_secret)


# --- card pages -----------------------------------------------------------------------------


class CheckoutStart(BaseModel):
    checkout: bool = True


def _card_or_404(state: SandboxState, payment_id: str) -> CardPayment:
    card = state.payments.card(payment_id, state.clock.now())
    if card is None:
        raise api_error(404, "payment_unknown", f"no payment {payment_id!r} at this seller")
    return card


@router.post("/svc/payments/{payment_id}/pay")
def start_checkout(
    payment_id: str, body: CheckoutStart, request: Request, state: State
) -> dict[str, Any]:
    """`POST payUrl {checkout: true}`: start the hosted page."""
    card = _card_or_404(state, payment_id)
    if card.status == "open" and body.checkout:
        state.payments.set_card(payment_id, "checkout")
    return dict(card.to_wire(str(request.base_url).rstrip("/")))


@router.get("/svc/payments/{payment_id}/status")
def payment_status(payment_id: str, request: Request, state: State) -> dict[str, Any]:
    card = _card_or_404(state, payment_id)
    return dict(card.to_wire(str(request.base_url).rstrip("/")))


_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Pay {amount} USD - svc sandbox</title>
<style>body{{font-family:system-ui,sans-serif;max-width:28rem;margin:4rem auto;padding:0 1rem}}
button{{font-size:1.1rem;padding:.6rem 1.6rem;margin-right:.5rem}}</style></head>
<body><h1>Pay {amount} USD</h1>
<p>Task fee for the svc sandbox. No real card is charged.</p>
<p>Payment <code>{pid}</code>: <strong>{status}</strong></p>
{form}
</body></html>"""

_FORM = """<form method="post"><input type="hidden" name="action" value="pay">
<button type="submit">Pay</button></form>
<form method="post"><input type="hidden" name="action" value="fail">
<button type="submit">Decline</button></form>"""


@router.get("/svc/payments/{payment_id}/checkout", response_class=HTMLResponse)
def checkout_page(payment_id: str, state: State) -> HTMLResponse:
    card = _card_or_404(state, payment_id)
    form = _FORM if card.status in ("open", "checkout") else "<p>You can close this page.</p>"
    page = _PAGE.format(
        amount=usd(card.amount_atomic, places=2),
        pid=html.escape(card.id),
        status=html.escape(card.status),
        form=form,
    )
    return HTMLResponse(page)


@router.post("/svc/payments/{payment_id}/checkout")
async def complete_checkout(payment_id: str, request: Request) -> Response:
    """The page's buttons (form post), or a test (JSON `{action}`): pay or decline."""
    state = sandbox_state(request)
    card = _card_or_404(state, payment_id)
    ctype = request.headers.get("content-type", "")
    if "json" in ctype:
        try:
            data = await request.json()
        except ValueError:
            raise api_error(400, "invalid_request", "the body must be JSON {action}") from None
        action = data.get("action", "pay") if isinstance(data, dict) else "pay"
    else:
        from urllib.parse import parse_qs  # no python-multipart: a one-field form

        form = parse_qs((await request.body()).decode("utf-8", "replace"))
        action = (form.get("action") or ["pay"])[0]
    if card.status in ("open", "checkout"):
        state.payments.set_card(
            payment_id, "paid" if action == "pay" else "failed", state.clock.now()
        )
    if "json" in ctype:
        return JSONResponse(card.to_wire(str(request.base_url).rstrip("/")))
    return checkout_page(payment_id, state)


# --- admin: card completion -------------------------------------------------------------


class CardOutcome(BaseModel):
    model_config = ConfigDict(extra="forbid")
    status: str = Field(default="paid", pattern="^(paid|failed|released|refunded)$")


@admin_router.post("/payments/{payment_id}")
def set_card_payment(
    payment_id: str, change: CardOutcome, request: Request, state: State
) -> dict[str, Any]:
    """Tests: what the person did on the page (or what became of the payment)."""
    card = _card_or_404(state, payment_id)
    state.payments.set_card(payment_id, change.status, state.clock.now())
    return dict(card.to_wire(str(request.base_url).rstrip("/")))


@admin_router.get("/payments/{payment_id}")
def get_card_payment(payment_id: str, request: Request, state: State) -> dict[str, Any]:
    card = _card_or_404(state, payment_id)
    view = dict(card.to_wire(str(request.base_url).rstrip("/")))
    view["request_id"] = card.request_id
    view["created_at"] = iso(card.created_at)
    return view
