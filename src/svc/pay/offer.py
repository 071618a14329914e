"""One way to pay a 402, read once: what the policy decides on, the rail signs, the journal keeps.

Each rail parses its challenge into offers (x402: one per `accepts` entry; MPP: the challenge
its method preference picks; card: the hosted payment's terms). From then on nothing asks for
the amount, the recipient or the chain again: the policy judges the `Offer`, the rail signs
the offer's own `terms`, and `Offer.paid` makes the `Paid` the journal records.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from svc.pay.chains import caip2
from svc.rail_table import CARD, MPP, X402

if TYPE_CHECKING:
    from svc.pay.card import CardOffer
    from svc.pay.mpp import MppChallenge
    from svc.pay.x402 import PaymentRequirements


@dataclass(frozen=True)
class Paid:
    """A journaled payment proof and what it pays (amount in µUSD)."""

    rail: str
    proof: str
    amount_atomic: int
    pay_to: str
    payer: str
    network: str
    asset: str
    valid_before: float | None = None  # x402: the signed validBefore (exposure ends there)


@dataclass(frozen=True)
class Offer:
    """What one payment would be: the rail, µUSD, the recipient and where it settles.

    `network` is a chain (CAIP-2) for x402, `mpp:<method>` for MPP and `card` for a card;
    `asset` is the token contract for x402 and `usd` otherwise; `terms` is the rail's own
    parsed entry, which is what it signs or starts (x402 requirements, an MPP challenge, a
    card offer).
    """

    rail: str
    amount_atomic: int
    pay_to: str
    network: str
    asset: str
    scheme: str = "exact"
    terms: object = None
    # x402: how long the authorization may stay valid; the server's maxTimeoutSeconds until the
    # policy decides, then bounded by the person's max_validity_seconds (what the rail signs).
    timeout_seconds: int | None = None

    def paid(self, proof: str, payer: str, valid_before: float | None = None) -> Paid:
        """The proof that pays this offer, as the journal records it."""
        return Paid(
            self.rail,
            proof,
            self.amount_atomic,
            self.pay_to,
            payer,
            self.network,
            self.asset,
            valid_before,
        )


def x402_offers(accepts: Sequence[PaymentRequirements]) -> list[Offer]:
    """Every way an x402 challenge accepts payment, in the server's order."""
    return [
        Offer(
            X402,
            entry.amount,
            entry.pay_to,
            caip2(entry.network),  # the policy, the ledger and `svc spend` speak in chains
            entry.asset,
            entry.scheme,
            entry,
            entry.max_timeout_seconds,
        )
        for entry in accepts
    ]


def mpp_offer(challenge: MppChallenge) -> Offer:
    return Offer(
        MPP,
        challenge.amount_atomic,
        challenge.realm,
        f"mpp:{challenge.method}",
        "usd",
        terms=challenge,
    )


def card_offer(card: CardOffer) -> Offer:
    return Offer(CARD, card.amount_atomic, card.recipient, CARD, "usd", terms=card)
