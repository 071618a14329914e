"""The hosted card page: `payUrl` starts it, `statusUrl` reports it, the page's buttons (or a
test) pay or decline; a completed payment is then spent by `svc-payment-id`."""

from __future__ import annotations

import html
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from svc_sandbox.errors import api_error
from svc_sandbox.payments.money import usd
from svc_sandbox.payments.store import CardPayment
from svc_sandbox.routes.deps import sandbox_state
from svc_sandbox.state.records import iso
from svc_sandbox.state.sandbox import SandboxState

router = APIRouter(tags=["payments"])
admin_router = APIRouter(prefix="/_sandbox", tags=["sandbox"])
State = Annotated[SandboxState, Depends(sandbox_state)]

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


# One main landmark and a viewport (the link is often a QR code opened on a phone); checked by
# axe-core in a real browser (tests/e2e/test_browser_pages.py). The recipient is the host that
# takes the money: what svc pins for a card payment (the payment link's host and port).
_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Pay {amount} USD to {recipient} - svc sandbox</title>
<style>body{{font-family:system-ui,sans-serif;max-width:28rem;margin:4rem auto;padding:0 1rem}}
button{{font-size:1.1rem;padding:.6rem 1.6rem;margin-right:.5rem}}</style></head>
<body><main><h1>Pay {amount} USD</h1>
<p>To <strong id="recipient">{recipient}</strong>: the task fee of the svc sandbox.
No real card is charged.</p>
<p>Payment <code>{pid}</code>: <strong>{status}</strong></p>
{form}
</main></body></html>"""

_FORM = """<form method="post"><input type="hidden" name="action" value="pay">
<button type="submit">Pay</button></form>
<form method="post"><input type="hidden" name="action" value="fail">
<button type="submit">Decline</button></form>"""


@router.get("/svc/payments/{payment_id}/checkout", response_class=HTMLResponse)
def checkout_page(payment_id: str, request: Request, state: State) -> HTMLResponse:
    card = _card_or_404(state, payment_id)
    form = _FORM if card.status in ("open", "checkout") else "<p>You can close this page.</p>"
    page = _PAGE.format(
        amount=usd(card.amount_atomic, places=2),
        recipient=html.escape(request.url.netloc),
        pid=html.escape(card.id),
        status=html.escape(card.status),
        form=form,
    )
    return HTMLResponse(page)


@router.post("/svc/payments/{payment_id}/checkout")
async def complete_checkout(payment_id: str, request: Request) -> Response:
    """The page's buttons (form post), or a test (JSON `{action}`): pay or decline."""
    state = await sandbox_state(request)
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
    return checkout_page(payment_id, request, state)


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
