"""The payment policy: what may be paid, checked before anything is signed.

Allowed rails, price cap, an optional daily cap (across processes, from the ledger), allowed
networks and assets, and the recipient pinned on first use. A refusal is a `PolicyRefusal`
(exit 5) whose message says which limit and how to change it. Every rail asks the policy before
it signs or reads a token: x402 through `choose`, MPP and card through `check_payment`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Protocol

from svc.errors import PaymentError
from svc.money import atomic_for_people, for_people, usd_to_atomic
from svc.pay.chains import caip2
from svc.pay.x402 import PaymentRequirements, validity_window


class PolicyRefusal(PaymentError):
    default_code = "policy_refused"


class RecipientPins(Protocol):
    """Where pins are kept (the ledger); an interface so the policy stays testable."""

    def pinned(self, network: str, asset: str) -> str | None: ...

    def pin(self, network: str, asset: str, pay_to: str) -> None: ...


class DailyBudget(Protocol):
    """Holds an amount against today's cap before a signature (the journal, shared by every
    process); it counts until spent, void or, for x402, past `valid_before`."""

    def reserve(self, rail: str, amount_atomic: int, valid_before: float | None) -> None: ...


RAILS = ("x402", "mpp", "card")
CARD_MIN_ATOMIC = 500_000  # the spec: card only for calls of 0.50 USD or more


@dataclass
class PaymentPolicy:
    max_price_usd: Decimal
    allowed_networks: Sequence[str]
    allowed_assets: Sequence[str]
    pins: RecipientPins
    # Asked when the pinned recipient changed; returns True to trust the new one.
    confirm_new_recipient: Callable[[str, str], bool] | None = None
    allowed_rails: Sequence[str] = RAILS
    # The request's own budget (its journal), given by `holding_against` for one request.
    budget: DailyBudget | None = None
    # The longest validity we sign into an x402 authorization, whatever the server asks.
    max_validity_seconds: int = 300
    # Asked last, after every other check passed and before the cap is held or anything is
    # signed: (rail, amount in µUSD, recipient) -> True to pay. None: no one to ask.
    approve_payment: Callable[[str, int, str], bool] | None = None

    def holding_against(self, budget: DailyBudget | None) -> PaymentPolicy:
        """This policy for one request: every hold it takes goes to that request's budget
        (the journal, which knows the request id a hold belongs to)."""
        return replace(self, budget=budget)

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
                self._approve("x402", offer.amount, offer.pay_to)
                window = validity_window(offer, self.max_validity_seconds)
                self.reserve("x402", offer.amount, time.time() + window)
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
        if caip2(offer.network) not in {caip2(n) for n in self.allowed_networks}:
            return (
                f"network {caip2(offer.network)} is not allowed "
                f"({', '.join(caip2(n) for n in self.allowed_networks)})"
            )
        allowed = {a.lower() for a in self.allowed_assets}
        if offer.asset.lower() not in allowed:
            return f"asset {offer.asset} is not an allowed asset"
        if offer.amount > self.max_atomic:
            return (
                f"price {atomic_for_people(offer.amount)} is above the limit "
                f"{for_people(self.max_price_usd)}"
            )
        return None

    def _check_recipient(self, offer: PaymentRequirements) -> None:
        self.check_recipient(caip2(offer.network), offer.asset, offer.pay_to)

    def check_recipient(self, network: str, asset: str, pay_to: str) -> None:
        pinned = self.pins.pinned(network, asset)
        if pinned is None or pinned.lower() == pay_to.lower():
            return
        if self.confirm_new_recipient and self.confirm_new_recipient(pinned, pay_to):
            return
        raise PolicyRefusal(
            f"refusing to pay: the payment recipient changed from {pinned} to {pay_to}",
            code="recipient_changed",
            hint="nothing was signed; if you trust the new recipient, re-run with "
            "--trust-recipient",
        )

    def pin(self, offer: PaymentRequirements) -> None:
        self.pin_recipient(caip2(offer.network), offer.asset, offer.pay_to)

    def pin_recipient(self, network: str, asset: str, pay_to: str) -> None:
        if self.pins.pinned(network, asset) != pay_to:
            self.pins.pin(network, asset, pay_to)

    # --- rail-neutral checks (MPP, card) -----------------------------------------------------

    def check_rail(self, rail: str) -> None:
        if rail not in self.allowed_rails:
            raise PolicyRefusal(
                f"refusing to pay: the {rail} rail is not allowed "
                f"(allowed_rails: {', '.join(self.allowed_rails) or 'none'})",
                code="rail_not_allowed",
                hint="nothing was signed or paid; change it with `svc config set allowed_rails "
                "x402,mpp,card` or pay with another --pay",
            )

    def check_price(self, amount_atomic: int) -> None:
        if amount_atomic > self.max_atomic:
            raise PolicyRefusal(
                f"refusing to pay: price {atomic_for_people(amount_atomic)} is above the limit "
                f"{for_people(self.max_price_usd)}",
                hint="nothing was signed or paid; change the limit with --max-price or "
                "`svc config set max_price_usd`",
            )

    def check_payment(self, rail: str, amount_atomic: int, network: str, pay_to: str) -> None:
        """Everything but x402's network/asset rules, for a rail paying `amount_atomic` µUSD."""
        self.check_rail(rail)
        if rail == "card" and amount_atomic < CARD_MIN_ATOMIC:
            raise PolicyRefusal(
                f"refusing to pay by card: the price {atomic_for_people(amount_atomic)} is below "
                "the card minimum of 0.50 USD",
                code="card_unavailable",
                hint="pay with --pay x402 or --pay mpp",
            )
        self.check_price(amount_atomic)
        self.check_recipient(network, "usd", pay_to)
        self._approve(rail, amount_atomic, pay_to)
        self.reserve(rail, amount_atomic, None)  # counts until spent or proven void

    def _approve(self, rail: str, amount_atomic: int, pay_to: str) -> None:
        if amount_atomic == 0 or self.approve_payment is None:
            return
        if not self.approve_payment(rail, amount_atomic, pay_to):
            raise PolicyRefusal(
                f"refusing to pay: the payment of {atomic_for_people(amount_atomic)} "
                f"to {pay_to} was not approved",
                code="payment_not_approved",
                hint="nothing was signed or paid",
            )

    def reserve(self, rail: str, amount_atomic: int, valid_before: float | None) -> None:
        if self.budget is not None:
            self.budget.reserve(rail, amount_atomic, valid_before)
