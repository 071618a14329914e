"""The payment policy: what may be paid, checked before anything is signed.

Price cap, allowed networks and assets, and the recipient pinned on first use. A refusal is a
`PolicyRefusal` (exit 5) whose message says which limit and how to change it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Protocol

from svc.api.errors import PaymentError
from svc.pay.x402 import PaymentRequirements, atomic_to_usd, usd_to_atomic


class PolicyRefusal(PaymentError):
    default_code = "policy_refused"


class RecipientPins(Protocol):
    """Where pins are kept (the ledger); an interface so the policy stays testable."""

    def pinned(self, network: str, asset: str) -> str | None: ...

    def pin(self, network: str, asset: str, pay_to: str) -> None: ...


@dataclass
class PaymentPolicy:
    max_price_usd: Decimal
    allowed_networks: Sequence[str]
    allowed_assets: Sequence[str]
    pins: RecipientPins
    # Asked when the pinned recipient changed; returns True to trust the new one.
    confirm_new_recipient: Callable[[str, str], bool] | None = None

    @property
    def max_atomic(self) -> int:
        return usd_to_atomic(self.max_price_usd)

    def choose(self, accepts: Sequence[PaymentRequirements]) -> PaymentRequirements:
        """The first offer the policy allows, or a refusal naming the closest miss."""
        if not accepts:
            raise PolicyRefusal("the 402 challenge offers no way to pay")
        refusals: list[str] = []
        for offer in accepts:
            problem = self._problem(offer)
            if problem is None:
                self._check_recipient(offer)
                return offer
            refusals.append(problem)
        raise PolicyRefusal(
            f"refusing to pay: {refusals[0]}",
            hint="nothing was signed or paid; change the limit with --max-price or "
            "`svc config set max_price_usd`, allowed_networks, allowed_assets",
        )

    def _problem(self, offer: PaymentRequirements) -> str | None:
        if offer.scheme != "exact":
            return f"scheme {offer.scheme!r} is not supported (only 'exact')"
        if offer.network not in self.allowed_networks:
            return f"network {offer.network} is not allowed ({', '.join(self.allowed_networks)})"
        allowed = {a.lower() for a in self.allowed_assets}
        if offer.asset.lower() not in allowed:
            return f"asset {offer.asset} is not an allowed asset"
        if offer.amount > self.max_atomic:
            return (
                f"price {atomic_to_usd(offer.amount)} USD is above the limit "
                f"{self.max_price_usd} USD"
            )
        return None

    def _check_recipient(self, offer: PaymentRequirements) -> None:
        pinned = self.pins.pinned(offer.network, offer.asset)
        if pinned is None or pinned.lower() == offer.pay_to.lower():
            return
        if self.confirm_new_recipient and self.confirm_new_recipient(pinned, offer.pay_to):
            return
        raise PolicyRefusal(
            f"refusing to pay: the payment recipient changed from {pinned} to {offer.pay_to}",
            code="recipient_changed",
            hint="nothing was signed; if you trust the new recipient, re-run with "
            "--trust-recipient",
        )

    def pin(self, offer: PaymentRequirements) -> None:
        if self.pins.pinned(offer.network, offer.asset) != offer.pay_to:
            self.pins.pin(offer.network, offer.asset, offer.pay_to)
