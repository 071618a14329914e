"""The payment policy: what may be paid, checked before anything is signed.

Allowed rails, price cap, an optional daily cap (across processes, from the ledger), allowed
networks and assets, and the recipient pinned on first use. A refusal is a `PolicyRefusal`
(exit 5) whose message says which limit and how to change it. Every rail asks the policy before
it signs or reads a token, the same way: `decide` on the offers it read from the challenge.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Protocol

from svc import rail_table
from svc.errors import PolicyRefused
from svc.money import atomic_for_people, for_people, usd_to_atomic
from svc.next_step import step
from svc.pay.chains import caip2
from svc.pay.offer import Offer

# The policy's refusal is the public `svc.PolicyRefused` (a PaymentFailed: exit 5, code
# policy_refused unless a rule names its own); the old name stays for the engines that raise it.
PolicyRefusal = PolicyRefused


class RecipientPins(Protocol):
    """Where pins are kept (the ledger); an interface so the policy stays testable."""

    def pinned(self, network: str, asset: str) -> str | None: ...

    def pin(self, network: str, asset: str, pay_to: str) -> None: ...


class DailyBudget(Protocol):
    """Holds an amount against today's cap before a signature (the journal, shared by every
    process); it counts until spent, void or, for x402, past `valid_before`."""

    def reserve(self, rail: str, amount_atomic: int, valid_before: float | None) -> None: ...


# The offer the approval hook (or the new-recipient question) is being asked about, while it
# is asked: the hooks' own arguments are what svc mcp and the terminal show the person, and a
# library caller's approve(offer) is also told the network and asset (svc.client reads it here).
_APPROVING: ContextVar[Offer | None] = ContextVar("svc_offer_in_question", default=None)


def offer_in_question() -> Offer | None:
    """The offer `approve_payment` or `confirm_new_recipient` is being asked about (None
    outside the question)."""
    return _APPROVING.get()


RAILS = rail_table.NAMES
CARD_MIN_ATOMIC = rail_table.BY_NAME[rail_table.CARD].min_atomic  # the spec: 0.50 USD


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
    # (network, asset) pairs accepted beside the allowed lists, each as a pair: the test
    # network for a loopback origin (AppContext.policy), never one half beside a mainnet half.
    test_terms: Sequence[tuple[str, str]] = ()
    # The pin `check_recipient` read for each (network, asset), until `pin` uses it: a payment
    # reads its pin once (a fresh one per policy, so per request: `replace` makes a new one).
    _read: dict[tuple[str, str], str | None] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def holding_against(self, budget: DailyBudget | None) -> PaymentPolicy:
        """This policy for one request: every hold it takes goes to that request's budget
        (the journal, which knows the request id a hold belongs to)."""
        return replace(self, budget=budget)

    @property
    def max_atomic(self) -> int:
        return usd_to_atomic(self.max_price_usd)

    def decide(self, offers: Sequence[Offer], ready: Callable[[], None] | None = None) -> Offer:
        """The offer to pay, as it is to be signed: the first the rules allow (`judge`), then
        `ready` (the rail's own preconditions: a wallet to sign with), then the hold on the
        daily cap and budgets, and only then the person's approval, so no one is asked to pay
        what could not be paid (a "no" is a refusal before a signature: the journal releases
        the hold). Its validity window is bounded here, once, and the rail signs that window.
        Nothing is signed before this returns."""
        offer = self._bounded(self.judge(offers))
        if ready is not None:
            ready()
        valid_before = (
            None if offer.timeout_seconds is None else time.time() + offer.timeout_seconds
        )
        self.reserve(offer.rail, offer.amount_atomic, valid_before)  # counts until then
        self._approve(offer)
        return offer

    def judge(self, offers: Sequence[Offer]) -> Offer:
        """The first offer every rule allows, read-only (nothing approved or held: `svc submit
        --probe` asks this), else the refusal of the first offer."""
        if not offers:
            raise PolicyRefusal("the 402 challenge offers no way to pay")
        refusals = [self._refusal(offer) for offer in offers]
        for offer, refusal in zip(offers, refusals, strict=True):
            if refusal is None:
                token = _APPROVING.set(offer)  # a changed recipient's question sees the offer
                try:
                    self.check_recipient(offer.network, offer.asset, offer.pay_to)
                finally:
                    _APPROVING.reset(token)
                return offer
        raise next(r for r in refusals if r is not None)

    def _bounded(self, offer: Offer) -> Offer:
        """An x402 authorization is valid for the server's window, never longer than ours (an
        authorization can be settled by whoever holds it until then); the others have none
        and count until they are spent or proven void."""
        if offer.timeout_seconds is None:
            return offer
        window = max(1, min(offer.timeout_seconds, self.max_validity_seconds))
        return replace(offer, timeout_seconds=window)

    def _refusal(self, offer: Offer) -> PolicyRefusal | None:
        if offer.rail == rail_table.X402:
            # The rail itself was checked when the submit began (`check_rail`); a free
            # call's zero-amount proof is x402 whichever rails the person pays with.
            return self._x402_refusal(offer)
        if offer.rail not in self.allowed_rails:
            return _rail_refusal(offer.rail, self.allowed_rails)
        if offer.rail == rail_table.CARD and offer.amount_atomic < CARD_MIN_ATOMIC:
            return PolicyRefusal(
                f"refusing to pay by card: the price {atomic_for_people(offer.amount_atomic)} "
                "is below the card minimum of 0.50 USD",
                code="card_unavailable",
                next=step("choose_rail", "pay with ", rails=rail_table.others(rail_table.CARD)),
            )
        return self._price_refusal(offer)

    def _price_refusal(self, offer: Offer) -> PolicyRefusal | None:
        if offer.amount_atomic <= self.max_atomic:
            return None
        return PolicyRefusal(
            f"refusing to pay: {self._above_limit(offer.amount_atomic)}",
            next=step("raise_max_price", CHANGE_LIMIT),
        )

    def _x402_refusal(self, offer: Offer) -> PolicyRefusal | None:
        """Each refusal names the one setting that refused, and no other."""
        if offer.scheme != "exact":
            return PolicyRefusal(
                f"refusing to pay: scheme {offer.scheme!r} is not supported (only 'exact')",
                hint="nothing was signed or paid; no setting allows another scheme",
            )
        refusal = None if self._is_test_money(offer) else self._terms_refusal(offer)
        return refusal or self._price_refusal(offer)

    def _terms_refusal(self, offer: Offer) -> PolicyRefusal | None:
        allowed_networks = [caip2(n) for n in self.allowed_networks]
        if offer.network not in allowed_networks:
            return PolicyRefusal(
                f"refusing to pay: network {offer.network} is not allowed "
                f"({', '.join(allowed_networks)})",
                next=step("allow_network", CHANGE_IT),
            )
        if offer.asset.lower() not in {a.lower() for a in self.allowed_assets}:
            return PolicyRefusal(
                f"refusing to pay: asset {offer.asset} is not an allowed asset",
                next=step("allow_asset", CHANGE_IT),
            )
        return None

    def _is_test_money(self, offer: Offer) -> bool:
        pair = (offer.network, offer.asset.lower())
        return any(pair == (network, asset.lower()) for network, asset in self.test_terms)

    def _above_limit(self, amount_atomic: int) -> str:
        return (
            f"price {atomic_for_people(amount_atomic)} is above the limit "
            f"{for_people(self.max_price_usd)}"
        )

    def check_recipient(self, network: str, asset: str, pay_to: str) -> None:
        pinned = self.pins.pinned(network, asset)
        self._read[(network, asset.lower())] = pinned
        if pinned is None or pinned.lower() == pay_to.lower():
            return
        if self.confirm_new_recipient and self.confirm_new_recipient(pinned, pay_to):
            return
        raise PolicyRefusal(
            f"refusing to pay: the payment recipient changed from {pinned} to {pay_to}",
            code="recipient_changed",
            next=step(
                "trust_recipient",
                "nothing was signed; if you trust the new recipient, re-run with ",
            ),
        )

    def pin(self, offer: Offer) -> None:
        """After signing: the recipient this origin was paid is the one to expect next time.

        Compared with the pin this payment's check read, not read again (a statement less a
        payment): the two differ only if another run pinned a recipient in between, a race
        the second read did not close either (it wrote this payment's recipient over that
        pin; now that pin stays unless this payment was the origin's first)."""
        key = (offer.network, offer.asset.lower())
        pinned = self._read.pop(key) if key in self._read else self.pins.pinned(*key)
        if pinned != offer.pay_to:
            self.pins.pin(offer.network, offer.asset, offer.pay_to)

    def check_rail(self, rail: str) -> None:
        if rail not in self.allowed_rails:
            raise _rail_refusal(rail, self.allowed_rails)

    def _approve(self, offer: Offer) -> None:
        rail, amount_atomic, pay_to = offer.rail, offer.amount_atomic, offer.pay_to
        if amount_atomic == 0 or self.approve_payment is None:
            return
        token = _APPROVING.set(offer)  # the whole offer, for an approver that shows it all
        try:
            approved = self.approve_payment(rail, amount_atomic, pay_to)
        finally:
            _APPROVING.reset(token)
        if not approved:
            raise PolicyRefusal(
                f"refusing to pay: the payment of {atomic_for_people(amount_atomic)} "
                f"to {pay_to} was not approved",
                code="payment_not_approved",
                hint="nothing was signed or paid",
            )

    def reserve(self, rail: str, amount_atomic: int, valid_before: float | None) -> None:
        if self.budget is not None:
            self.budget.reserve(rail, amount_atomic, valid_before)


CHANGE_LIMIT = "nothing was signed or paid; change the limit with "
CHANGE_IT = "nothing was signed or paid; change it with "


def _rail_refusal(rail: str, allowed: Sequence[str]) -> PolicyRefusal:
    return PolicyRefusal(
        f"refusing to pay: the {rail} rail is not allowed "
        f"(allowed_rails: {', '.join(allowed) or 'none'})",
        code="rail_not_allowed",
        next=step("allow_rail", CHANGE_IT),
    )
