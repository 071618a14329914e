"""The three ways to pay a 402 behind one `httpx.Auth` flow: x402, MPP and card.

`PaidAuth` sends the request; a 402 to a request without proof is paid by the chosen rail
(policy first, then signature or token), the proof journaled, and the identical request re-sent
with it. A request that already has a journaled proof re-sends that proof, so a retry never pays
again; a 402 to a request that carried a proof goes back to the caller (the submit flow decides
with the payment error table).

What "proof" means per rail: x402 the signed `x-payment` value; MPP the `Authorization: Payment`
credential; card the completed payment's id (`svc-payment-id`).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import urlsplit

import httpx

from svc import rail_table
from svc.api import headers
from svc.api.jsonsafe import load_json
from svc.api.status import is_payment_challenge
from svc.errors import HumanNeeded, PaymentFailed, UsageError
from svc.money import atomic_for_people
from svc.next_step import step
from svc.origin import origin_of
from svc.pay import mpp
from svc.pay.card import PAYMENT_ID_HEADER
from svc.pay.offer import Offer, Paid, card_offer, mpp_offer, x402_offers
from svc.pay.policy import PaymentPolicy
from svc.pay.x402 import (
    PaymentRequirements,
    X402Challenge,
    X402Error,
    encode_proof,
    parse_challenge,
    proof_version,
)
from svc.rail_table import CARD, MPP, X402
from svc.testing_hooks import crash_point

if TYPE_CHECKING:
    from svc.origin import TrustedURL
    from svc.pay.card import CardCheckout, CardOffer
    from svc.pay.signers import PaymentSigner

AGENT_BEARER_HEADER = headers.AGENT_AUTHORIZATION


class Journal(Protocol):
    def proof(self) -> str | None: ...

    def record(self, paid: Paid) -> None: ...

    def sending(self, with_proof: bool) -> None: ...

    def check_origin(self, url: object) -> None: ...


class Rail(Protocol):
    name: str

    def pay(self, response: httpx.Response) -> Paid: ...

    def attach(self, request: httpx.Request, proof: str) -> None: ...


class MemoryJournal:
    """For free calls (zero-amount proofs): nothing to reconcile, so nothing is persisted."""

    def __init__(self) -> None:
        self._proof: str | None = None

    def proof(self) -> str | None:
        return self._proof

    def record(self, paid: Paid) -> None:
        self._proof = paid.proof

    def sending(self, with_proof: bool) -> None:
        pass

    def check_origin(self, url: object) -> None:
        pass  # a zero-amount proof is made for, and sent on, this one request


class PaidAuth(httpx.Auth):
    """Sends the request; pays a 402 once; re-sends a journaled proof, only to its origin."""

    requires_response_body = True

    def __init__(self, rail: Rail, journal: Journal) -> None:
        self.rail = rail
        self.journal = journal
        self.carried_proof: bool = False  # did the last request sent carry a proof?

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        proof = self.journal.proof()
        if proof:
            self._attach(request, proof)
        else:
            self.journal.sending(False)
            self.carried_proof = False
        response = yield request
        if not is_payment_challenge(response) or proof:
            return
        crash_point("challenge_received")
        paid = self.rail.pay(response)
        self.journal.record(paid)  # before the proof leaves: every retry re-sends this one
        crash_point("proof_journaled")
        self._attach(request, paid.proof)
        yield request
        crash_point("proof_sent")

    def _attach(self, request: httpx.Request, proof: str) -> None:
        self.journal.check_origin(request.url)
        self.rail.attach(request, proof)
        self.journal.sending(True)
        self.carried_proof = True


class StreamedPaidAuth(PaidAuth):
    """`PaidAuth` for an answer its caller streams (`svc request`): only a 402 is read (within
    the size cap) before the flow looks at it; any other answer is handed back unread, so a
    body of any size goes to its file without being held."""

    requires_response_body = False

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        flow = super().auth_flow(request)
        outgoing = next(flow)
        while True:
            response = yield outgoing
            if is_payment_challenge(response):
                response.read()
            try:
                outgoing = flow.send(response)
            except StopIteration:
                return


class ChosenRail:
    """A free call's zero-amount proof by a rail chosen only when the 402 comes (no secret is
    read for a call the service answers without one): `choose` returns the rail to use."""

    name = "free"

    def __init__(self, choose: Callable[[], Rail]) -> None:
        self.choose = choose
        self.rail: Rail | None = None

    def pay(self, response: httpx.Response) -> Paid:
        self.rail = self.choose()
        return self.rail.pay(response)

    def attach(self, request: httpx.Request, proof: str) -> None:
        assert self.rail is not None  # a proof exists only once pay() chose the rail
        self.rail.attach(request, proof)


# --- x402 ------------------------------------------------------------------------------------


# Which header carries an x402 proof, per kind of endpoint (the spec mixes v1 and v2 names).
PROOF_HEADERS = {
    "task": headers.X402_TASK_PROOF,
    "advisor": headers.X402_ADVISOR_PROOF,
}


class X402Rail:
    """Turns a 402 into a signed proof: the challenge read once into offers, the policy's
    decision on them, and only then the signature of the offer it chose."""

    name = X402

    def __init__(
        self,
        policy: PaymentPolicy,
        load_signer: Callable[[], PaymentSigner],
        header: str,
        on_pay: Callable[[Offer], None] | None = None,
    ) -> None:
        self.policy = policy
        self.load_signer = load_signer
        self.header = header
        self.on_pay = on_pay

    def pay(self, response: httpx.Response) -> Paid:
        challenge = _x402_challenge(response)
        self.vet(challenge)
        signers: list[PaymentSigner] = []

        def load() -> None:  # once the rules chose an offer, before the person is asked
            signers.append(self.load_signer())

        offer = self.policy.decide(x402_offers(challenge.accepts), load)
        terms = offer.terms
        assert isinstance(terms, PaymentRequirements)  # x402_offers carries the entry
        signer = signers[0]
        if self.on_pay:
            self.on_pay(offer)
        try:
            payload = signer.sign(terms, max_window=offer.timeout_seconds)  # the decided window
        except X402Error as exc:
            raise PaymentFailed(f"cannot sign the payment: {exc}") from None
        proof = self.encode(challenge, terms, payload)
        self.policy.pin(offer)
        return offer.paid(proof, signer.address, float(payload["authorization"]["validBefore"]))

    def vet(self, challenge: X402Challenge) -> None:
        """A challenge refused before the policy sees it (none for the service's own)."""

    def encode(self, challenge: X402Challenge, terms: PaymentRequirements, payload: Any) -> str:
        return encode_proof(challenge, terms, payload)

    def attach(self, request: httpx.Request, proof: str) -> None:
        request.headers[self.header] = proof


# The header of a proof to any other origin, by the version of the challenge it answers.
VERSION_PROOF_HEADERS = {1: headers.X402_V1_PROOF, 2: headers.X402_V2_PROOF}


class OriginX402Rail(X402Rail):
    """x402 for any origin (`svc request`): the proof goes in its version's header (v2
    `PAYMENT-SIGNATURE`, v1 `X-PAYMENT`), read again from a journaled proof on a resume, and
    names the request's payment id where the challenge declares `payment-identifier`, so
    every signature of one request id is the same payment to the server."""

    def __init__(
        self,
        policy: PaymentPolicy,
        load_signer: Callable[[], PaymentSigner],
        payment_id: str,
        origin: str,
        on_pay: Callable[[Offer], None] | None = None,
    ) -> None:
        super().__init__(policy, load_signer, headers.X402_V2_PROOF, on_pay)
        self.payment_id = payment_id
        self.origin = origin

    def vet(self, challenge: X402Challenge) -> None:
        """The challenge is for this origin's resource: an EIP-3009 proof pays whoever holds
        it, so a server that copied another origin's 402 could spend what svc signs there."""
        if challenge.version == 2:
            named = [(challenge.resource or {}).get("url")]
        else:  # v1 names the resource in each entry
            named = [entry.raw.get("resource") for entry in challenge.accepts]
        for resource in named:
            refuse_foreign(str(resource or ""), self.origin, "x402 resource")

    def encode(self, challenge: X402Challenge, terms: PaymentRequirements, payload: Any) -> str:
        return encode_proof(challenge, terms, payload, self.payment_id)

    def attach(self, request: httpx.Request, proof: str) -> None:
        version = proof_version(proof) or 2
        request.headers[VERSION_PROOF_HEADERS[version]] = proof


def _x402_challenge(response: httpx.Response) -> X402Challenge:
    try:
        challenge = parse_challenge(response.headers, response.content)
    except X402Error as exc:
        reason = str(exc).rstrip(".")
        raise PaymentFailed(
            f"cannot read the 402 payment challenge: {reason}; nothing was paid"
        ) from None
    if challenge is None:
        raise PaymentFailed(
            "the service asked for payment (402) but offered no x402 challenge",
            code="no_x402_challenge",
            next=step("choose_rail", "try another rail with ", rails=rail_table.others(X402)),
        )
    return challenge


# --- MPP -------------------------------------------------------------------------------------


class MppRail:
    name = MPP

    def __init__(
        self,
        policy: PaymentPolicy,
        token: Callable[[], str],
        preference: Sequence[str] = ("stripe",),
        *,
        on_pay: Callable[[str], None] | None = None,
        ready: Callable[[], None] | None = None,
        bound_to: str | None = None,
    ) -> None:
        """`ready`: refuses when no token could come, before the person is asked to pay;
        `bound_to`: the origin a request to any server goes to (its challenge's realm must be
        that host: a token given for another realm could be spent there)."""
        self.policy = policy
        self.token = token
        self.preference = preference
        self.on_pay = on_pay
        self.ready = ready
        self.bound_to = bound_to

    def pay(self, response: httpx.Response) -> Paid:
        challenges = mpp.parse_challenges(response.headers.get_list(headers.MPP_CHALLENGE))
        chosen = mpp.choose(challenges, self.preference)
        if self.bound_to is not None:
            refuse_foreign_realm(chosen.realm, self.bound_to)
        offer = self.policy.decide([mpp_offer(chosen)], self.ready)
        spt = self.token()  # only now: the policy allowed this payment
        if self.on_pay:
            self.on_pay(
                f"paying {atomic_for_people(offer.amount_atomic)} with MPP ({chosen.method}) "
                f"to {offer.pay_to}"
            )
        value = mpp.credential(chosen, spt)
        self.policy.pin(offer)
        return offer.paid(value, spt_fingerprint(spt))

    def attach(self, request: httpx.Request, proof: str) -> None:
        # The credential owns Authorization; an agent bearer moves to its own header (spec).
        current = request.headers.get(headers.AUTHORIZATION, "")
        if current.lower().startswith("bearer ") and AGENT_BEARER_HEADER not in request.headers:
            request.headers[AGENT_BEARER_HEADER] = current
        request.headers[headers.AUTHORIZATION] = proof


def refuse_foreign(resource: str, origin: str, what: str) -> None:
    """Nothing is paid for a resource on another origin than the request's (or none named)."""
    if resource and origin_of(resource) == origin:
        return
    named = origin_of(resource) if resource else "no resource"
    raise PaymentFailed(
        f"the 402 from {origin} asks to be paid for {named} ({what}), not for {origin}: a "
        "proof made for it could be spent there; nothing was paid",
        code="foreign_challenge",
        hint="only the server a request goes to is paid, for its own resource",
    )


def refuse_foreign_realm(realm: str, origin: str) -> None:
    """An MPP realm other than the request's host (with or without its port)."""
    parts = urlsplit(origin)
    if realm.lower() in {(parts.netloc or "").lower(), (parts.hostname or "").lower()}:
        return
    refuse_foreign(f"mpp://{realm}", origin, f"MPP realm {realm!r}")


def spt_fingerprint(spt: str) -> str:
    """Tells tokens apart in the ledger and `svc spend` without showing any part of one."""
    import hashlib

    return "spt:" + hashlib.sha256(spt.encode()).hexdigest()[:12]


# --- card ------------------------------------------------------------------------------------


class CardJournal(Protocol):
    def card_pending(self, offer: CardOffer, link: TrustedURL | None) -> None: ...

    def card_complete(self) -> None: ...

    def card_dead(self, code: str) -> None: ...

    @property
    def request_id(self) -> str: ...


class CardRail:
    """Pays a 402 through the hosted page; waits for a person, or saves it and exits 6."""

    name = CARD

    def __init__(self, policy: PaymentPolicy, checkout: CardCheckout, journal: CardJournal) -> None:
        self.policy = policy
        self.checkout = checkout
        self.journal = journal

    def pay(self, response: httpx.Response) -> Paid:
        offer = self.checkout.offer(_json_body(response))
        if offer is None:
            raise PaymentFailed(
                "the service offers no card payment for this call",
                code="card_unavailable",
                next=step(
                    "choose_rail",
                    "card needs a price of 0.50 USD or more; pay with ",
                    rails=rail_table.others(CARD),
                ),
            )
        decided = self.policy.decide([card_offer(offer)])
        link = self.checkout.start(offer)
        self.journal.card_pending(offer, link)
        paid = settle_card(self.checkout, self.journal, offer, link, check_first=False)
        self.policy.pin(decided)
        return paid

    def attach(self, request: httpx.Request, proof: str) -> None:
        request.headers[PAYMENT_ID_HEADER] = proof


def _json_body(response: httpx.Response) -> object:
    try:
        return load_json(response.content)
    except (ValueError, UnicodeDecodeError):
        return None


def settle_card(
    checkout: CardCheckout,
    journal: CardJournal,
    offer: CardOffer,
    link: TrustedURL,
    *,
    check_first: bool,
) -> Paid:
    """The one path from a started card payment to its proof (its id), for a first payment,
    `svc pay card` and `payment_incomplete` alike: wait for the person on a terminal, else
    leave it saved and exit 6. `check_first`: ask statusUrl before showing the page again."""

    state = checkout.status(offer) if check_first else "pending"
    if state == "dead":
        journal.card_dead("card_payment_failed")
        raise PaymentFailed(
            "the card payment failed or was cancelled; nothing was charged",
            code="card_payment_failed",
            next=step("start_card", "start over: "),
        )
    if state != "complete":
        amount = atomic_for_people(offer.amount_atomic)
        checkout.show(link, amount)
        if not checkout.interactive:
            raise HumanNeeded(
                f"a person must pay {amount} by card on the payment page: {link}",
                code="card_payment_pending",
                next=step(
                    "resume_card",
                    "then resume without paying twice: ",
                    request_id=journal.request_id,
                ),
                data={
                    "pay_url": str(link),  # the page a person opens (payUrl's checkout)
                    "status_url": str(offer.status_url),
                    "request_id": journal.request_id,
                    "payment_id": offer.payment_id,  # the id the page and the billing name
                },
            )
        checkout.wait(offer)
    journal.card_complete()
    return card_offer(offer).paid(offer.payment_id, CARD)


# --- the rails by name -----------------------------------------------------------------------


@dataclass(frozen=True)
class RailParts:
    """What a rail is built from for one request (`make_rail`): the policy it asks first, the
    request's journal, how a payment is announced, and each rail's own source, read only when
    that rail pays (the wallet's signer, the MPP token, the card checkout)."""

    policy: PaymentPolicy
    journal: CardJournal
    announce: Callable[[str], None]
    signer: Callable[[], PaymentSigner]
    spt: Callable[[], str]
    mpp_methods: Sequence[str]
    checkout: Callable[[], CardCheckout]
    spt_ready: Callable[[], None] | None = None  # no token could come: refused before asking
    bound_to: str | None = None  # a request to any origin (svc request): what it may pay for


def x402_rail(parts: RailParts) -> X402Rail:
    def on_pay(offer: Offer) -> None:
        amount = atomic_for_people(offer.amount_atomic)
        parts.announce(f"paying {amount} with {rail_table.title(X402)} to {offer.pay_to}")

    return X402Rail(parts.policy, parts.signer, PROOF_HEADERS["task"], on_pay)


def mpp_rail(parts: RailParts) -> MppRail:
    return MppRail(
        parts.policy,
        parts.spt,
        parts.mpp_methods,
        on_pay=parts.announce,
        ready=parts.spt_ready,
        bound_to=parts.bound_to,
    )


def card_rail(parts: RailParts) -> CardRail:
    return CardRail(parts.policy, parts.checkout(), parts.journal)


def part(reference: str) -> Any:
    """What a rail table row names as `module:attribute` (its factory, offer reader, header)."""
    module, _, name = reference.partition(":")
    return getattr(importlib.import_module(module), name)


def build_rail(name: str, parts: RailParts) -> Rail:
    """The rail `name` for one request, by its row's factory (an unknown name is a usage
    error: every face checks the name first, so this is the last guard)."""
    row = rail_table.BY_NAME.get(name)
    if row is None:
        raise UsageError(f"unknown payment rail {name!r} ({rail_table.in_words()})")
    rail: Rail = part(row.factory)(parts)
    return rail
