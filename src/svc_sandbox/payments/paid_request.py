"""A generic paid endpoint (`/svc/paid/echo`): what `svc request` pays when it is not a task.

It charges the task fee, as a task does, by x402 (v2 by default, v1 with `?x402=1`) or MPP, and
answers the request itself: an echo of its method and body, or `?bytes=N` bytes streamed.

* x402 follows the transport of the version it announced (the x402 HTTP transport specs, not
  the service's task endpoint): v2's `PAYMENT-REQUIRED` is answered in `PAYMENT-SIGNATURE` and
  settled by `PAYMENT-RESPONSE`; v1's body in `X-PAYMENT`, settled by `X-PAYMENT-RESPONSE`.
* The v2 challenge declares the `payment-identifier` extension: a proof that names an id the
  endpoint settled before, from the same payer, is answered again and charged nothing (even
  when it carries a new authorization, as a client that lost its journal would sign).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from fastapi import Request
from fastapi.responses import JSONResponse, Response, StreamingResponse

from svc_sandbox.errors import SandboxError, api_error
from svc_sandbox.payments import challenges, rails, x402
from svc_sandbox.payments.money import usd
from svc_sandbox.payments.paid import BILLING_HEADER, billing
from svc_sandbox.state.config import SandboxConfig
from svc_sandbox.state.sandbox import Charge, OnChain, SandboxState, Settlement

PATH = "/svc/paid/echo"
PROOF_HEADERS = {1: "X-PAYMENT", 2: "PAYMENT-SIGNATURE"}
PAYMENT_IDENTIFIER = "payment-identifier"
DECLARATION = {
    "info": {"required": False},
    "schema": {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "required": {"type": "boolean"},
            "id": {"type": "string", "minLength": 16, "maxLength": 128},
        },
        "required": ["required"],
    },
}
CHUNK = b"x" * 65536
MAX_STREAM_BYTES = 2**40


def answer(
    state: SandboxState, request: Request, raw: bytes, version: int, size: int | None
) -> Response:
    config = state.get_config()
    header = request.headers.get(PROOF_HEADERS[version])
    if header:
        return _x402(state, config, request, raw, version=version, header=header, size=size)
    if request.headers.get("authorization", "").lower().startswith("payment "):
        return _mpp(state, config, request, raw, size)
    raise _challenge(state, config, request, raw, version)


def _challenge(
    state: SandboxState, config: SandboxConfig, request: Request, raw: bytes, version: int
) -> SandboxError:
    description = f"Paid echo: {usd(config.price_atomic)} USD per call."
    body: dict[str, Any] = {"error": "payment_required", "detail": description}
    headers: dict[str, str] = {}
    if version == 1:
        entry = x402.v1_accepts_entry(config, config.price_atomic, str(request.url), description)
        body |= {"x402Version": 1, "accepts": [entry]}
    else:
        required = {
            "x402Version": 2,
            "error": "payment_required",
            "resource": {"url": str(request.url), "description": description},
            "accepts": [x402.accepts_entry(config, config.price_atomic)],
            "extensions": {PAYMENT_IDENTIFIER: DECLARATION},
        }
        headers["PAYMENT-REQUIRED"] = x402.b64json(required)
    cents = challenges.price_cents(config)
    if cents is not None:
        headers["WWW-Authenticate"] = challenges.mpp_challenge(
            state, request, raw, cents, description
        )
    return SandboxError(402, body, headers)


def _payment_id(header: str) -> str | None:
    """The id a v2 proof names in its payment-identifier extension (None: none)."""
    try:
        proof = x402.unb64json(header)
    except ValueError:
        return None
    extensions = proof.get("extensions") if isinstance(proof, dict) else None
    declared = extensions.get(PAYMENT_IDENTIFIER) if isinstance(extensions, dict) else None
    info = declared.get("info") if isinstance(declared, dict) else None
    found = info.get("id") if isinstance(info, dict) else None
    return found if isinstance(found, str) and 16 <= len(found) <= 128 else None


def _x402(
    state: SandboxState,
    config: SandboxConfig,
    request: Request,
    raw: bytes,
    *,
    version: int,
    header: str,
    size: int | None,
) -> Response:
    proof = x402.decode_proof(header, config, PROOF_HEADERS[version])
    if proof.version != version:
        raise api_error(
            400, "invalid_request", f"an x402 v{proof.version} proof for a v{version} 402"
        )
    payer = x402.verify_signature(proof)
    payment_id = _payment_id(header) if version == 2 else None
    # A payment id settled before is answered again before the new authorization is looked
    # at: the payment it names was made, and this proof is only its retry.
    settled = state.by_payment_id(payment_id, payer)
    if settled is None:
        problem = x402.settlement_problem(proof, config, config.price_atomic)
        if problem is not None:
            raise x402.settlement_error(problem, proof)
        nonce = proof.authorization.nonce
        charge = Charge(
            "x402",
            payer,
            config.price_atomic,
            request.headers.get("svc-request-id"),
            f"{request.method} {PATH}",
            {"nonce": nonce},
            OnChain(nonce=nonce, pay_to=config.pay_to),
        )
        with state.payments.settle_lock:
            settled = state.charge_request(charge, payment_id)
    if settled.outcome == "failed":
        raise x402.settlement_error(settled.reason or "settlement_failed", proof)
    receipt = x402.receipt(proof, success=True)
    return _served(request, raw, settled, payer=payer, receipt=receipt, size=size)


def _mpp(
    state: SandboxState, config: SandboxConfig, request: Request, raw: bytes, size: int | None
) -> Response:
    rail = rails.MppRail(state, config, request, raw)
    with state.payments.settle_lock:
        taken = rail.take()
        charge = Charge("mpp", rail.payer, taken.amount_atomic, None, PATH, taken.book)
        settled = state.charge_request(charge, None)
    return _served(request, raw, settled, payer=rail.payer, receipt=taken.receipt, size=size)


def _served(
    request: Request,
    raw: bytes,
    settled: Settlement,
    *,
    payer: str,
    receipt: dict[str, str],
    size: int | None,
) -> Response:
    if settled.outcome == "mismatch":
        raise api_error(409, "payment_request_mismatch", "that payment id was another payer's")
    booked = settled.charge or {}
    status = "replayed" if settled.outcome == "replayed" else "charged"
    headers = {
        BILLING_HEADER: billing(status, booked["method"], booked["amount_atomic"], booked["id"]),
        **receipt,
    }
    if size is not None:
        return StreamingResponse(
            _bytes(size),
            media_type="application/octet-stream",
            headers={**headers, "content-length": str(size)},
        )
    echo = {
        "method": request.method,
        "body": raw.decode("utf-8", "replace"),
        "payer": payer,
        "charge_id": booked["id"],
        "replayed": status == "replayed",
    }
    return JSONResponse(echo, headers=headers)


def _bytes(size: int) -> Iterator[bytes]:
    left = min(size, MAX_STREAM_BYTES)
    while left > 0:
        piece = CHUNK[: min(left, len(CHUNK))]
        left -= len(piece)
        yield piece
