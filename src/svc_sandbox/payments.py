"""MPP and card payments for the task fee, the hosted card page, and payment fault switches.

- The 402 of an unpaid submit carries, beside x402, an MPP `WWW-Authenticate: Payment`
  challenge (method `stripe`, intent `charge`, HMAC-bound id, expiry on the sandbox clock,
  digest of the request body) and the `payment` + `card` blocks of the hosted card page.
- `Authorization: Payment <credential>` is verified by pympp's server (`mpp.server.Mpp` with its
  stripe method) against a sandbox card processor that accepts sandbox SPTs (`spt_test_...`).
- `svc-payment-id` spends a card payment completed on the hosted page.
- `#fail-delivery` in the task text: the charge is refunded in full at once and the caller
  gets a 502 with `svc-billing: status=refunded; ...`.
- `/_sandbox/payment-faults` makes the next paid request(s) answer a given payment error code.
"""

from __future__ import annotations

import asyncio
import base64
import html
import json
import re
import secrets
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from svc_sandbox import x402
from svc_sandbox.config import SandboxConfig
from svc_sandbox.deps import sandbox_state
from svc_sandbox.errors import SandboxError, api_error
from svc_sandbox.money import usd
from svc_sandbox.payment_store import FAULT_STATUS, PaymentFault, PaymentStore, SptDeclined
from svc_sandbox.records import iso, new_id
from svc_sandbox.state import SandboxState

router = APIRouter(tags=["payments"])
admin_router = APIRouter(prefix="/_sandbox", tags=["sandbox"])
State = Annotated[SandboxState, Depends(sandbox_state)]

PAYMENT_ID_HEADER = "svc-payment-id"
REQUEST_ID_HEADER = "svc-request-id"
CHALLENGE_LIFETIME = timedelta(minutes=5)
NETWORK_ID = "bn_sandbox"
CARD_MIN_ATOMIC = 500_000
_FAIL_DELIVERY = re.compile(r"#fail-delivery\b", re.IGNORECASE)


async def raw_body(request: Request) -> bytes:
    """The request body as sent (the MPP digest binds these bytes)."""
    return await request.body()


RawBody = Annotated[bytes, Depends(raw_body)]


# --- the 402 -------------------------------------------------------------------------------


def _cents(config: SandboxConfig) -> int | None:
    """The price in cents, when MPP/card can charge it (whole cents, 0.50 USD or more)."""
    if config.price_atomic < CARD_MIN_ATOMIC or config.price_atomic % 10_000:
        return None
    return config.price_atomic // 10_000


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
    state: SandboxState, config: SandboxConfig, request: Request, raw: bytes
) -> SandboxError:
    """The 402 of an unpaid submit: x402, MPP and (0.50 USD or more) the hosted card page."""
    payment_id = new_id("pay")
    base = str(request.base_url).rstrip("/")
    cents = _cents(config)
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
    )
    if cents is not None:
        error.headers["WWW-Authenticate"] = mpp_challenge(state, request, raw, cents)
    return error


# --- paid submits by MPP and card ------------------------------------------------------------


def rail_of(request: Request) -> str | None:
    """The one proof a paid request is settled by; x402 first, so only one is ever charged."""
    if request.headers.get("x-payment"):
        return "x402"
    authorization = request.headers.get("authorization", "")
    if authorization.lower().startswith("payment "):
        return "mpp"
    if request.headers.get(PAYMENT_ID_HEADER):
        return "card"
    return None


def handle_paid(
    state: SandboxState, config: SandboxConfig, request: Request, raw: bytes, goal: str
) -> Response | None:
    """Answer a submit paid by MPP or card; None leaves x402 (or an unpaid call) to the caller.

    An armed payment fault answers any paid submit, x402 included.
    """
    rail = rail_of(request)
    if rail is None:
        return None
    fault = state.payments.take_fault(rail)
    usage_error = False
    if fault is not None:
        if fault.code == "usage_error":
            usage_error = True
        else:
            raise fault_error(fault)
    if rail == "x402":
        return None  # usage_error is produced on the MPP and card answers only
    request_id = request.headers.get(REQUEST_ID_HEADER)
    with state.payments.settle_lock:
        failed = state.payments.failed_delivery(request_id)
        if failed is not None:
            return _refunded_answer(failed)
        if rail == "mpp":
            response = _pay_mpp(
                state, config, request=request, raw=raw, goal=goal, request_id=request_id
            )
        else:
            response = _pay_card(state, request, goal, request_id)
    if usage_error and 200 <= response.status_code < 300:
        response.headers["svc-usage-error"] = "invalid_usage_header"
    return response


def fault_error(fault: PaymentFault) -> SandboxError:
    status = FAULT_STATUS[fault.code]
    body: dict[str, Any] = {"error": fault.code, "detail": f"sandbox payment fault: {fault.code}"}
    headers: dict[str, str] = {}
    if fault.code == "settlement_failed":
        body["settlementReason"] = fault.reason or "insufficient_funds"
    if fault.code == "rate_limit_exceeded":
        retry_after = fault.retry_after if fault.retry_after is not None else 1
        body["retry_after"] = retry_after
        headers["Retry-After"] = str(retry_after)
    return SandboxError(status, body, headers)


def _billing(status: str, method: str, amount_atomic: int, payment_id: str) -> str:
    return (
        f"status={status}; method={method}; amount_usd={usd(amount_atomic)}; "
        f"payment_id={payment_id}"
    )


def _settled(
    state: SandboxState,
    *,
    method: str,
    payer: str,
    amount_atomic: int,
    request_id: str | None,
    goal: str,
    reference: str,
    headers: dict[str, str],
) -> Response:
    deliver = not _FAIL_DELIVERY.search(goal)
    settled = state.settle_payment(
        method=method,
        payer=payer,
        amount_atomic=amount_atomic,
        request_id=request_id,
        goal=goal,
        reference=reference,
        deliver=deliver,
    )
    if settled.outcome == "mismatch":
        raise api_error(
            409,
            "payment_request_mismatch",
            f"{REQUEST_ID_HEADER} was already used with another payment; get a fresh 402",
        )
    if settled.outcome == "replayed":
        assert settled.task is not None
        current = state.peek(settled.task.id) or settled.task
        charge = state.charge_for(settled.task.id) or {}
        billing = _billing(
            "replayed", method, int(charge.get("amount_atomic", 0)), str(charge.get("id", ""))
        )
        return JSONResponse(current.to_wire(), status_code=202, headers={"svc-billing": billing})
    assert settled.charge is not None
    if settled.outcome == "failed":
        answer = {
            "status": 502,
            "body": {
                "error": "upstream_error",
                "detail": "the upstream service failed to accept the task; the payment was "
                "refunded in full",
            },
            "billing": _billing("refunded", method, amount_atomic, settled.charge["id"]),
        }
        state.payments.remember_failed_delivery(request_id, answer)
        return _refunded_answer(answer)
    assert settled.task is not None
    billing = _billing("charged", method, amount_atomic, settled.charge["id"])
    return JSONResponse(
        settled.task.to_wire(), status_code=202, headers={"svc-billing": billing, **headers}
    )


def _refunded_answer(answer: dict[str, Any]) -> Response:
    return JSONResponse(
        answer["body"], status_code=answer["status"], headers={"svc-billing": answer["billing"]}
    )


# --- MPP ---------------------------------------------------------------------------------


def _decode(b64: str | None) -> Any:
    if not b64:
        return None
    return json.loads(base64.urlsafe_b64decode(b64 + "=" * (-len(b64) % 4)))


def _pay_mpp(
    state: SandboxState,
    config: SandboxConfig,
    *,
    request: Request,
    raw: bytes,
    goal: str,
    request_id: str | None,
) -> Response:
    from mpp import BodyDigest, Credential
    from mpp._parsing import ParseError

    value = request.headers["authorization"]
    try:
        credential = Credential.from_authorization(value)
        echoed_request = _decode(credential.challenge.request)
        echoed_opaque = _decode(credential.challenge.opaque)
    except (ParseError, ValueError):
        raise api_error(
            400, "invalid_request", "Authorization: malformed Payment credential"
        ) from None
    spt = credential.payload.get("spt") if isinstance(credential.payload, dict) else None
    payer = f"spt:{str(spt)[:12]}"
    earlier = state.find_request(request_id)
    if earlier is not None:  # a retry: replay, whatever became of the challenge since
        return _settled(
            state,
            method="mpp",
            payer=payer,
            amount_atomic=config.price_atomic,
            request_id=request_id,
            goal=goal,
            reference="",
            headers={},
        )
    echo = credential.challenge
    if echo.digest and not BodyDigest.verify(echo.digest, raw):
        raise api_error(
            409, "payment_request_mismatch", "the credential was issued for another request body"
        )
    cents = _cents(config)
    if (
        cents is None
        or not isinstance(echoed_request, dict)
        or echoed_request.get("amount") != str(cents)
    ):
        raise api_error(
            409, "payment_amount_mismatch", "the credential's amount is not this call's price"
        )
    if echo.expires and _expired(echo.expires, state.clock.now()):
        raise api_error(
            401, "identity_invalid", "the payment challenge has expired; get a fresh 402"
        )
    receipt = _verify_with_pympp(
        state, request, credential=credential, raw=raw, cents=cents, opaque=echoed_opaque
    )
    return _settled(
        state,
        method="mpp",
        payer=payer,
        amount_atomic=config.price_atomic,
        request_id=request_id,
        goal=goal,
        reference=receipt.reference,
        headers={"Payment-Receipt": receipt.to_payment_receipt()},
    )


def _expired(expires: str, now: datetime) -> bool:
    try:
        moment = datetime.fromisoformat(expires.replace("Z", "+00:00"))
    except ValueError:
        return True
    return moment.tzinfo is None or moment <= now


def mpp_server(store: PaymentStore, realm: str) -> Any:
    """pympp's server with its stripe method, over the sandbox card processor."""
    from mpp.methods.stripe import server as stripe
    from mpp.server.mpp import Mpp

    method = stripe.charge(network_id=NETWORK_ID, client=store.processor, currency="usd")
    return Mpp(methods=method, realm=realm, secret_key=store.hmac_secret)


def _verify_with_pympp(
    state: SandboxState,
    request: Request,
    *,
    credential: Any,
    raw: bytes,
    cents: int,
    opaque: Any,
) -> Any:
    from mpp.errors import (
        CredentialReplayedError,
        PaymentError,
        VerificationFailedError,
    )

    server = mpp_server(state.payments, realm_of(request))
    meta = (
        {k: v for k, v in opaque.items() if k != "_mpp_nonce"} if isinstance(opaque, dict) else None
    )
    try:
        return asyncio.run(
            server.broadcast_credential(
                credential, request=wire_request(cents), body=raw, meta=meta or None
            )
        )
    except CredentialReplayedError:
        raise api_error(
            409, "payment_request_mismatch", "this credential already paid another request"
        ) from None
    except VerificationFailedError as exc:
        cause = exc.__cause__
        reason = cause.code if isinstance(cause, SptDeclined) else "card_declined"
        _note_failure(state, request, reason, "mpp")
        raise SandboxError(
            402,
            {
                "error": "settlement_failed",
                "settlementReason": reason,
                "detail": f"the shared payment token did not settle: {reason}",
            },
        ) from None
    except PaymentError as exc:  # bad HMAC, realm, binding, expiry (pympp's own checks)
        raise api_error(401, "identity_invalid", f"payment credential refused: {exc}") from None


def _note_failure(state: SandboxState, request: Request, reason: str, method: str) -> None:
    state.record_settlement_failure(
        reason=reason,
        payer=method,
        request_id=request.headers.get(REQUEST_ID_HEADER),
        nonce="",
        amount_atomic=state.get_config().price_atomic,
    )


# --- card ----------------------------------------------------------------------------------

_CARD_TERMINAL = {
    "refunded": "payment_refunded",
    "consumed": "payment_consumed",
    "failed": "payment_failed",
    "released": "payment_released",
}


def _pay_card(state: SandboxState, request: Request, goal: str, request_id: str | None) -> Response:
    payment_id = request.headers[PAYMENT_ID_HEADER]
    store = state.payments
    card = store.card(payment_id, state.clock.now())
    if card is None:
        raise api_error(402, "payment_unknown", f"no payment {payment_id!r} at this seller")
    payer = f"card:{payment_id}"

    def settle() -> Response:
        return _settled(
            state,
            method="card",
            payer=payer,
            amount_atomic=card.amount_atomic,
            request_id=request_id,
            goal=goal,
            reference=payment_id,
            headers={},
        )

    if state.find_request(request_id) is not None:
        return settle()  # a retry of a settled request: the original task, no new charge
    if card.status in _CARD_TERMINAL:
        code = _CARD_TERMINAL[card.status]
        raise api_error(402, code, f"payment {payment_id} is {card.status}: it can never be spent")
    if card.status != "paid":
        raise api_error(
            402, "payment_incomplete", f"payment {payment_id} is not finished; poll its statusUrl"
        )
    response = settle()
    if response.status_code == 202:
        store.consume_card(payment_id, request_id)
    elif response.status_code == 502:
        store.set_card(payment_id, "refunded")
    return response


class CheckoutStart(BaseModel):
    checkout: bool = True


def _card_or_404(state: SandboxState, payment_id: str) -> Any:
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
        data = await request.json()
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


# --- admin: payment faults and card completion -------------------------------------------


class FaultSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    code: str = Field(pattern="^(" + "|".join(FAULT_STATUS) + ")$")
    count: int = Field(default=1, ge=1)
    rail: str | None = Field(default=None, pattern="^(x402|mpp|card)$")
    reason: str | None = Field(default=None, max_length=64)
    retry_after: int | None = Field(default=None, ge=0)


class FaultList(BaseModel):
    model_config = ConfigDict(extra="forbid")
    faults: list[FaultSpec]


@admin_router.get("/payment-faults")
def get_payment_faults(state: State) -> dict[str, Any]:
    return {"faults": state.payments.list_faults()}


@admin_router.post("/payment-faults")
def add_payment_faults(faults: FaultList, state: State) -> dict[str, Any]:
    state.payments.add_faults([PaymentFault(**f.model_dump()) for f in faults.faults])
    return {"faults": state.payments.list_faults()}


@admin_router.delete("/payment-faults")
def clear_payment_faults(state: State) -> dict[str, Any]:
    state.payments.clear_faults()
    return {"faults": []}


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
