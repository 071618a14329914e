"""Money in one place per step (issue 23.5): a 402 is read once into offers, the policy decides
on an offer (the same decision for x402, MPP and card, and the same judgement `--probe`
shows), and the rail pays the offer it was given: the amount the journal records is the
amount the policy judged, and nothing is approved or held before every rule passed."""

from __future__ import annotations

from decimal import Decimal

import httpx
import pytest
from tests.fakes import MemoryPins
from tests.unit.test_mpp import BODY, _challenge

from svc.api import headers
from svc.pay.offer import Offer, card_offer, x402_offers
from svc.pay.policy import PaymentPolicy, PolicyRefusal
from svc.pay.rails import MppRail
from svc.pay.x402 import PaymentRequirements
from svc_sandbox.payments.store import PaymentStore

USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"


class Steps:
    """Records the policy's approval question and its hold on the cap, in order."""

    def __init__(self, approve: bool = True) -> None:
        self.approve = approve
        self.log: list[tuple[str, str, int]] = []

    def ask(self, rail: str, amount: int, pay_to: str) -> bool:
        self.log.append(("approve", rail, amount))
        return self.approve

    def reserve(self, rail: str, amount_atomic: int, valid_before: float | None) -> None:
        self.log.append(("reserve", rail, amount_atomic))


def policy(steps: Steps, cap: str = "1.50", rails: tuple[str, ...] = ("x402", "mpp", "card")):  # type: ignore[no-untyped-def]
    return PaymentPolicy(
        Decimal(cap),
        ["eip155:8453"],
        [USDC],
        MemoryPins(),
        allowed_rails=rails,
        budget=steps,
        approve_payment=steps.ask,
    )


def x402_entry(amount: int = 1_500_000, network: str = "base") -> PaymentRequirements:
    raw = {
        "scheme": "exact",
        "network": network,
        "maxAmountRequired": str(amount),
        "asset": USDC,
        "payTo": "0x" + "11" * 20,
        "maxTimeoutSeconds": 300,
        "resource": "https://svc.test/svc/tasks",
        "extra": {"name": "USD Coin", "version": "2"},
    }
    return PaymentRequirements.from_entry(raw, 1)


def test_an_x402_challenge_is_read_once_into_offers_in_the_servers_order() -> None:
    entries = [x402_entry(2_000_000), x402_entry(1_000_000)]
    offers = x402_offers(entries)
    assert [o.amount_atomic for o in offers] == [2_000_000, 1_000_000]
    assert {o.network for o in offers} == {"eip155:8453"}  # a v1 name, as the chain it is
    assert [o.terms for o in offers] == entries  # what the rail signs is the entry judged


@pytest.mark.parametrize(
    "offer",
    [
        x402_offers([x402_entry()])[0],
        Offer("mpp", 1_500_000, "svc.test", "mpp:stripe", "usd"),
        Offer("card", 1_500_000, "merchant", "card", "usd"),
    ],
    ids=["x402", "mpp", "card"],
)
def test_every_rail_gets_the_same_decision_hold_then_approval(offer: Offer) -> None:
    """The hold on the cap comes first: no one is asked to approve what the cap refuses (a
    "no" is a refusal before a signature, whose hold the journal releases)."""
    steps = Steps()
    chosen = policy(steps).decide([offer])
    assert chosen == offer  # x402: with its window bounded, here the server's 300 s
    assert steps.log == [("reserve", offer.rail, 1_500_000), ("approve", offer.rail, 1_500_000)]
    paid = chosen.paid("proof", "payer")
    assert (paid.amount_atomic, paid.pay_to, paid.network) == (
        offer.amount_atomic,
        offer.pay_to,
        offer.network,
    )


@pytest.mark.parametrize(
    ("offer", "code"),
    [
        (x402_offers([x402_entry(1_500_001)])[0], "policy_refused"),
        (Offer("mpp", 1_500_001, "svc.test", "mpp:stripe", "usd"), "policy_refused"),
        (Offer("card", 400_000, "merchant", "card", "usd"), "card_unavailable"),
        (Offer("mpp", 1_000_000, "svc.test", "mpp:stripe", "usd", "exact"), "rail_not_allowed"),
    ],
    ids=["x402-over", "mpp-over", "card-minimum", "rail"],
)
def test_a_refused_offer_is_never_approved_nor_held(offer: Offer, code: str) -> None:
    steps = Steps()
    rails = ("x402", "card") if code == "rail_not_allowed" else ("x402", "mpp", "card")
    with pytest.raises(PolicyRefusal) as refused:
        policy(steps, rails=rails).decide([offer])
    assert refused.value.code == code
    assert steps.log == []


def test_judge_is_the_decision_without_asking_or_holding() -> None:
    steps = Steps()
    offers = x402_offers([x402_entry(9_000_000), x402_entry(1_000_000)])
    assert policy(steps).judge(offers) is offers[1]  # the first the rules allow
    assert steps.log == []
    assert policy(steps).judge([card_offer_of(1_000_000)]).rail == "card"
    assert steps.log == []


def card_offer_of(amount: int) -> Offer:
    return Offer("card", amount, "merchant", "card", "usd")


def test_card_offer_carries_the_card_terms() -> None:
    class Terms:
        amount_atomic = 1_500_000
        recipient = "merchant"

    offer = card_offer(Terms())  # type: ignore[arg-type]
    assert (offer.amount_atomic, offer.pay_to, offer.network, offer.asset) == (
        1_500_000,
        "merchant",
        "card",
        "usd",
    )


def test_the_mpp_rail_pays_the_amount_the_policy_judged() -> None:
    steps = Steps()
    store = PaymentStore()
    response = httpx.Response(
        402,
        headers={headers.MPP_CHALLENGE: _challenge(store, BODY)},
        request=httpx.Request("POST", "https://svc.test/svc/tasks", content=BODY),
    )
    rail = MppRail(policy(steps), lambda: "spt_test_" + "a" * 24)
    paid = rail.pay(response)
    assert steps.log == [("reserve", "mpp", 1_500_000), ("approve", "mpp", 1_500_000)]
    assert (paid.amount_atomic, paid.pay_to, paid.network) == (1_500_000, "svc.test", "mpp:stripe")


def test_a_declined_approval_reads_no_token_and_signs_nothing() -> None:
    steps = Steps(approve=False)
    store = PaymentStore()
    response = httpx.Response(
        402,
        headers={headers.MPP_CHALLENGE: _challenge(store, BODY)},
        request=httpx.Request("POST", "https://svc.test/svc/tasks", content=BODY),
    )

    def token() -> str:
        raise AssertionError("the token is read only after the policy allowed the payment")

    with pytest.raises(PolicyRefusal, match="not approved"):
        MppRail(policy(steps), token).pay(response)
    assert steps.log == [("reserve", "mpp", 1_500_000), ("approve", "mpp", 1_500_000)]


def test_the_policy_bounds_the_window_once_and_the_rail_signs_it() -> None:
    steps = Steps()
    offer = x402_offers([x402_entry()])[0]
    assert offer.timeout_seconds == 300  # the server's
    strict = policy(steps)
    strict.max_validity_seconds = 60
    assert strict.decide([offer]).timeout_seconds == 60  # what the rail signs


def test_the_policy_reads_no_rails_wire_format() -> None:
    import ast
    from pathlib import Path

    import svc.pay.policy as module

    tree = ast.parse(Path(str(module.__file__)).read_text())
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert not imported & {"svc.pay.x402", "svc.pay.mpp", "svc.pay.card"}, imported
