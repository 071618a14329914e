"""A zero-amount MPP proof, as the free advisor takes it.

The spec: the quote "requires only a signed zero-amount wallet proof (x402 or MPP)". The
advisor's 402 carries an MPP challenge for amount 0 beside the x402 one; a credential for it
is authenticated as a paid one is (the challenge's HMAC id, realm, expiry and body digest, its
amount 0) but nothing is charged: the shared payment token is only checked for its shape, never
spent, so it still pays the task it was meant for (sandbox tokens are single use).
"""

from __future__ import annotations

import hmac
from typing import Any

from fastapi import Request

from svc_sandbox.errors import SandboxError, api_error
from svc_sandbox.payments import challenges
from svc_sandbox.payments.rails import _expired, _unb64url
from svc_sandbox.payments.store import SPT_SHAPE
from svc_sandbox.state.sandbox import SandboxState

FREE_DESCRIPTION = "Free advisor: a zero-amount proof, nothing is charged"


def offers_mpp(error: SandboxError, state: SandboxState, request: Request, raw: bytes) -> None:
    """Add the zero-amount MPP challenge to a free call's 402 (the x402 one is there)."""
    if error.status == 402:
        error.headers["WWW-Authenticate"] = challenges.mpp_challenge(
            state, request, raw, 0, FREE_DESCRIPTION
        )


def is_mpp(request: Request) -> bool:
    return request.headers.get("authorization", "").lower().startswith("payment ")


def free_mpp_payer(state: SandboxState, request: Request, raw: bytes) -> str:
    """Who proved it (`spt:<first 12>`), or the spec's refusal: 400 for a credential that does
    not parse, 409 for one made for another body or amount, 401 for a forged or expired one."""
    credential, wire, opaque = _parse(request.headers["authorization"])
    echo = credential.challenge
    if wire != challenges.wire_request(0):
        raise api_error(
            409, "payment_amount_mismatch", "the quote takes a zero-amount proof (amount 0)"
        )
    from mpp import BodyDigest, generate_challenge_id

    if echo.digest and not BodyDigest.verify(echo.digest, raw):
        raise api_error(
            409, "payment_request_mismatch", "the credential was issued for another request body"
        )
    if echo.expires and _expired(echo.expires, state.clock.now()):
        raise api_error(401, "identity_invalid", "the challenge has expired; get a fresh 402")
    expected = generate_challenge_id(
        secret_key=state.payments.hmac_secret,
        realm=challenges.realm_of(request),
        method=echo.method,
        intent=echo.intent,
        request=wire,
        expires=echo.expires,
        digest=echo.digest,
        opaque=opaque,
        header=echo.header,
    )
    if not hmac.compare_digest(expected, echo.id):
        raise api_error(401, "identity_invalid", "the challenge was not issued here")
    return _payer(credential.payload)


def _parse(header: str) -> tuple[Any, Any, Any]:
    from mpp import Credential
    from mpp._parsing import ParseError

    try:
        credential = Credential.from_authorization(header)
        echo = credential.challenge
        return credential, _unb64url(echo.request), _unb64url(echo.opaque)
    except (ParseError, ValueError):
        raise api_error(
            400, "invalid_request", "Authorization: malformed Payment credential"
        ) from None


def _payer(payload: Any) -> str:
    spt = payload.get("spt") if isinstance(payload, dict) else None
    if not isinstance(spt, str) or not spt.startswith("spt_test_") or len(spt) < 12:
        raise api_error(401, "identity_invalid", f"not a shared payment token: {SPT_SHAPE}")
    return f"spt:{spt[:12]}"
