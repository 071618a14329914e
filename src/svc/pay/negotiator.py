"""Paying a 402 as an `httpx.Auth` flow, so every command gets payment the same way.

The flow sends the request; on a 402 it parses the challenge, checks the policy, signs, journals
the proof, and re-sends the identical request with the proof. A request that already carries a
journaled proof re-sends that proof (a retry never signs again), and a 402 answered to a request
that carried a proof is returned to the caller, never paid a second time.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Protocol

import httpx

from svc.api.errors import PaymentError
from svc.pay.policy import PaymentPolicy
from svc.pay.x402 import PaymentRequirements, X402Error, X402Signer, encode_proof, parse_challenge

# Which header carries an x402 proof, per kind of endpoint (the spec mixes v1 and v2 names).
PROOF_HEADERS = {
    "task": "x-payment",
    "advisor": "Payment-Signature",
}


class ProofJournal(Protocol):
    """Where a request's proof is kept between attempts (the ledger for paid calls)."""

    def proof(self) -> str | None: ...

    def record(self, proof: str, offer: PaymentRequirements, payer: str) -> None: ...


class MemoryJournal:
    """For free calls (zero-amount proofs): nothing to reconcile, nothing to persist."""

    def __init__(self) -> None:
        self._proof: str | None = None
        self.offer: PaymentRequirements | None = None

    def proof(self) -> str | None:
        return self._proof

    def record(self, proof: str, offer: PaymentRequirements, payer: str) -> None:
        self._proof = proof
        self.offer = offer


class X402Payer:
    """Turns a 402 response into a signed proof: parse, policy, then (only then) sign."""

    def __init__(
        self,
        policy: PaymentPolicy,
        load_signer: Callable[[], X402Signer],
        on_pay: Callable[[PaymentRequirements], None] | None = None,
    ) -> None:
        self.policy = policy
        self.load_signer = load_signer
        self.on_pay = on_pay

    def proof_for(self, response: httpx.Response) -> tuple[str, PaymentRequirements, str]:
        try:
            challenge = parse_challenge(response.headers, response.content)
        except X402Error as exc:
            raise PaymentError(f"cannot read the 402 payment challenge: {exc}") from None
        if challenge is None:
            raise PaymentError(
                "the service asked for payment (402) but offered no x402 challenge",
                code="no_x402_challenge",
                hint="try another rail with --pay mpp or --pay card",
            )
        offer = self.policy.choose(challenge.accepts)
        signer = self.load_signer()
        if self.on_pay:
            self.on_pay(offer)
        try:
            payload = signer.sign(offer)
        except X402Error as exc:
            raise PaymentError(f"cannot sign the payment: {exc}") from None
        proof = encode_proof(challenge, offer, payload)
        self.policy.pin(offer)
        return proof, offer, signer.address


class X402Auth(httpx.Auth):
    requires_response_body = True

    def __init__(self, payer: X402Payer, journal: ProofJournal, header: str) -> None:
        self.payer = payer
        self.journal = journal
        self.header = header

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        proof = self.journal.proof()
        if proof:
            request.headers[self.header] = proof
        response = yield request
        if response.status_code != 402 or proof:
            return
        proof, offer, payer = self.payer.proof_for(response)
        self.journal.record(proof, offer, payer)
        request.headers[self.header] = proof
        yield request
