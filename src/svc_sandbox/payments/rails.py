"""The three ways to pay for a task (x402, MPP, card) behind one small interface.

The paid path (`svc_sandbox.payments.paid`) drives every rail the same way:

1. the rail is built from the request: its proof is parsed (a malformed one is a 400);
2. `identify()` proves who pays (x402: the signature recovers `authorization.from`);
3. a request id paid before by this payer replays its task, whatever became of the proof;
4. otherwise `take()` checks the terms and takes the money (MPP: the SPT is charged; card:
   the hosted payment is spent; x402: the terms are checked and the store moves the funds);
5. `settled()` lets the rail note the outcome (a spent card payment becomes `consumed`).

Refusals are `SandboxError`s in the spec's shapes; the paid path books settlement failures.
"""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, ClassVar

from fastapi import Request

from svc_sandbox.errors import SandboxError, api_error
from svc_sandbox.payments import challenges, x402
from svc_sandbox.payments.store import CardPayment, SptDeclined
from svc_sandbox.state.config import SandboxConfig
from svc_sandbox.state.sandbox import OnChain, SandboxState, Settlement

PAYMENT_ID_HEADER = "svc-payment-id"


@dataclass(frozen=True)
class Taken:
    """What a rail took: the amount, its fields in the books, and the receipt headers."""

    amount_atomic: int
    book: dict[str, str]
    receipt: dict[str, str] = field(default_factory=dict)
    onchain: OnChain | None = None


class Rail:
    method: ClassVar[str]
    # The spec refunds a failed delivery on the card rails (`#fail-delivery`, MPP and card).
    refunds_failed_delivery: ClassVar[bool] = True

    def __init__(self, state: SandboxState, config: SandboxConfig, request: Request) -> None:
        self.state = state
        self.config = config
        self.request = request
        self.payer = ""

    def identify(self) -> None:
        """Prove who pays before anything else is looked at (nothing to do for most rails)."""

    def take(self) -> Taken:
        raise NotImplementedError

    def refused(self, reason: str) -> SandboxError:
        """The answer when the store refuses the transfer (only x402 moves funds there)."""
        raise AssertionError(f"{self.method}: the store refused a charge it never checks")

    def settled(self, settlement: Settlement, request_id: str | None) -> None:
        """Note the booked outcome (charged or refunded) on the rail's own records."""

    def failure_book(self) -> dict[str, Any]:
        """How a settlement failure of this rail is written in the books."""
        return {"payer": self.method, "nonce": "", "amount_atomic": self.config.price_atomic}


def method_of(headers: Mapping[str, str]) -> str | None:
    """The one proof a paid request is settled by; x402 first, so only one is ever charged."""
    if headers.get(x402.TASK_PROOF_HEADER):
        return "x402"
    if headers.get("authorization", "").lower().startswith("payment "):
        return "mpp"
    if headers.get(PAYMENT_ID_HEADER):
        return "card"
    return None


def rail_for(
    method: str, state: SandboxState, config: SandboxConfig, request: Request, raw: bytes
) -> Rail:
    if method == "x402":
        return X402Rail(state, config, request)
    if method == "mpp":
        return MppRail(state, config, request, raw)
    return CardRail(state, config, request)


# --- x402 ----------------------------------------------------------------------------------


class X402Rail(Rail):
    method = "x402"
    refunds_failed_delivery = False  # on chain, a refund would be a new transfer

    def __init__(self, state: SandboxState, config: SandboxConfig, request: Request) -> None:
        super().__init__(state, config, request)
        self.proof = x402.decode_proof(request.headers[x402.TASK_PROOF_HEADER], config)

    def identify(self) -> None:
        self.payer = x402.verify_signature(self.proof)

    def take(self) -> Taken:
        problem = x402.settlement_problem(self.proof, self.config, self.config.price_atomic)
        if problem is not None:
            raise x402.settlement_error(problem, self.proof)
        nonce = self.proof.authorization.nonce
        return Taken(
            amount_atomic=self.config.price_atomic,
            book={"nonce": nonce},
            receipt=x402.receipt(self.proof, success=True),
            onchain=OnChain(nonce=nonce, pay_to=self.config.pay_to),
        )

    def refused(self, reason: str) -> SandboxError:
        return x402.settlement_error(reason, self.proof)

    def failure_book(self) -> dict[str, Any]:
        auth = self.proof.authorization
        return {"payer": auth.from_, "nonce": auth.nonce, "amount_atomic": auth.value}


# --- MPP -----------------------------------------------------------------------------------


def _unb64url(text: str | None) -> Any:
    if not text:
        return None
    return json.loads(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))


class MppRail(Rail):
    method = "mpp"

    def __init__(
        self, state: SandboxState, config: SandboxConfig, request: Request, raw: bytes
    ) -> None:
        from mpp import Credential
        from mpp._parsing import ParseError

        super().__init__(state, config, request)
        self.raw = raw
        try:
            self.credential = Credential.from_authorization(request.headers["authorization"])
            self.echoed_request = _unb64url(self.credential.challenge.request)
            self.echoed_opaque = _unb64url(self.credential.challenge.opaque)
        except (ParseError, ValueError):
            raise api_error(
                400, "invalid_request", "Authorization: malformed Payment credential"
            ) from None
        payload = self.credential.payload
        spt = payload.get("spt") if isinstance(payload, dict) else None
        self.payer = f"spt:{str(spt)[:12]}"

    def take(self) -> Taken:
        cents = self._check_terms()
        receipt = self._broadcast(cents)
        return Taken(
            amount_atomic=self.config.price_atomic,
            book={"reference": receipt.reference},
            receipt={"Payment-Receipt": receipt.to_payment_receipt()},
        )

    def _check_terms(self) -> int:
        """The body digest, amount and expiry the credential echoes; the price in cents."""
        from mpp import BodyDigest

        echo = self.credential.challenge
        if echo.digest and not BodyDigest.verify(echo.digest, self.raw):
            raise api_error(
                409,
                "payment_request_mismatch",
                "the credential was issued for another request body",
            )
        cents = challenges.price_cents(self.config)
        amount = (
            self.echoed_request.get("amount") if isinstance(self.echoed_request, dict) else None
        )
        if cents is None or amount != str(cents):
            raise api_error(
                409, "payment_amount_mismatch", "the credential's amount is not this call's price"
            )
        if echo.expires and _expired(echo.expires, self.state.clock.now()):
            raise api_error(
                401, "identity_invalid", "the payment challenge has expired; get a fresh 402"
            )
        return cents

    def _broadcast(self, cents: int) -> Any:
        """pympp's own checks (HMAC, realm, expiry, binding), then the SPT is charged."""
        from mpp.errors import CredentialReplayedError, PaymentError, VerificationFailedError

        server = challenges.mpp_server(self.state.payments, challenges.realm_of(self.request))
        opaque = self.echoed_opaque
        meta = (
            {k: v for k, v in opaque.items() if k != "_mpp_nonce"}
            if isinstance(opaque, dict)
            else None
        )
        try:
            return asyncio.run(
                server.broadcast_credential(
                    self.credential,
                    request=challenges.wire_request(cents),
                    body=self.raw,
                    meta=meta or None,
                )
            )
        except CredentialReplayedError:
            raise api_error(
                409, "payment_request_mismatch", "this credential already paid another request"
            ) from None
        except VerificationFailedError as exc:
            cause = exc.__cause__
            reason = cause.code if isinstance(cause, SptDeclined) else "card_declined"
            why = cause.why if isinstance(cause, SptDeclined) and cause.why else ""
            detail = f"the shared payment token did not settle: {reason}" + (
                f" ({why})" if why else ""
            )
            body = {"error": "settlement_failed", "settlementReason": reason, "detail": detail}
            raise SandboxError(402, body) from None
        except PaymentError as exc:  # bad HMAC, realm, binding, expiry (pympp's own checks)
            raise api_error(401, "identity_invalid", f"payment credential refused: {exc}") from None


def _expired(expires: str, now: datetime) -> bool:
    try:
        moment = datetime.fromisoformat(expires.replace("Z", "+00:00"))
    except ValueError:
        return True
    return moment.tzinfo is None or moment <= now


# --- card ----------------------------------------------------------------------------------

_CARD_TERMINAL = {
    "refunded": "payment_refunded",
    "consumed": "payment_consumed",
    "failed": "payment_failed",
    "released": "payment_released",
}


class CardRail(Rail):
    method = "card"

    def __init__(self, state: SandboxState, config: SandboxConfig, request: Request) -> None:
        super().__init__(state, config, request)
        self.payment_id = request.headers[PAYMENT_ID_HEADER]
        card = state.payments.card(self.payment_id, state.clock.now())
        if card is None:
            raise api_error(
                402, "payment_unknown", f"no payment {self.payment_id!r} at this seller"
            )
        self.card: CardPayment = card
        self.payer = f"card:{self.payment_id}"

    def take(self) -> Taken:
        status, pid = self.card.status, self.payment_id
        if status in _CARD_TERMINAL:
            code = _CARD_TERMINAL[status]
            raise api_error(402, code, f"payment {pid} is {status}: it can never be spent")
        if status != "paid":
            raise api_error(
                402, "payment_incomplete", f"payment {pid} is not finished; poll its statusUrl"
            )
        return Taken(amount_atomic=self.card.amount_atomic, book={"reference": pid})

    def settled(self, settlement: Settlement, request_id: str | None) -> None:
        if settlement.outcome == "charged":
            self.state.payments.consume_card(self.payment_id, request_id)
        elif settlement.outcome == "refunded":
            self.state.payments.set_card(self.payment_id, "refunded")
