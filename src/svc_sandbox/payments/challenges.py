"""The task fee's 402 (x402, MPP and card at once) and pympp's server.

- The 402 of an unpaid submit carries, beside x402, an MPP `WWW-Authenticate: Payment`
  challenge (method `stripe`, intent `charge`, HMAC-bound id, expiry on the sandbox clock,
  digest of the request body) and the `payment` + `card` blocks of the hosted card page.
- `Authorization: Payment <credential>` is verified by pympp's server (`mpp.server.Mpp` with its
  stripe method) against a sandbox card processor that accepts sandbox SPTs (`spt_test_...`).

Paying is `payments.paid` (one path) over `payments.rails` (x402, MPP, card).
"""

from __future__ import annotations

import secrets
from datetime import UTC, timedelta
from typing import Any

from fastapi import Request

from svc_sandbox.errors import SandboxError
from svc_sandbox.payments import x402
from svc_sandbox.payments.money import usd, whole_cents
from svc_sandbox.payments.store import PaymentStore
from svc_sandbox.state.config import SandboxConfig
from svc_sandbox.state.records import new_id
from svc_sandbox.state.sandbox import SandboxState

CHALLENGE_LIFETIME = timedelta(minutes=5)
NETWORK_ID = "bn_sandbox"
CARD_MIN_ATOMIC = 500_000


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


def mpp_challenge(
    state: SandboxState, request: Request, raw: bytes, cents: int, description: str | None = None
) -> str:
    """One `WWW-Authenticate: Payment` challenge (stripe, charge) for `cents`, bound to the body
    (the free advisor's is for 0: payments.free_mpp)."""
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
        description=description or f"Task fee, {cents / 100:.2f} USD per submitted task",
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
