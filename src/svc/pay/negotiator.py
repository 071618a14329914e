"""Turning an x402 402 into a signed proof: parse the challenge, check the policy, then sign.

`X402Payer` is the x402 step of `svc.pay.rails.PaidAuth`, the one `httpx.Auth` flow every
rail and every free call (zero-amount proofs) goes through: it journals the proof before
sending, re-sends a journaled proof on every retry, and never pays a 402 answered to a request
that already carried a proof.
"""

from __future__ import annotations

from collections.abc import Callable

import httpx

from svc.api import headers
from svc.errors import PaymentError
from svc.pay.policy import PaymentPolicy
from svc.pay.x402 import PaymentRequirements, X402Error, X402Signer, encode_proof, parse_challenge

# Which header carries an x402 proof, per kind of endpoint (the spec mixes v1 and v2 names).
PROOF_HEADERS = {
    "task": headers.X402_TASK_PROOF,
    "advisor": headers.X402_ADVISOR_PROOF,
}


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

    def proof_for(self, response: httpx.Response) -> tuple[str, PaymentRequirements, str, float]:
        """The proof, the offer it pays, the payer and the signed validBefore."""
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
            payload = signer.sign(offer, max_window=self.policy.max_validity_seconds)
        except X402Error as exc:
            raise PaymentError(f"cannot sign the payment: {exc}") from None
        proof = encode_proof(challenge, offer, payload)
        self.policy.pin(offer)
        return proof, offer, signer.address, float(payload["authorization"]["validBefore"])
