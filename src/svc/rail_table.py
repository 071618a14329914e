"""The payment rails, one row each: the only module that spells a rail's name.

The policy, `make_rail`, the settings (`pay`, `allowed_rails`), the CLI's `--pay` choices, the
MCP schemas, the Client and the journal read the rails from here; a rule test
(tests/unit/test_rail_names.py) fails when a rail's name appears as a literal anywhere else.

Plain data, no imports: the settings read it at every start. A row names its heavy parts (the
offer reader, the rail factory, the proof header) as `module:attribute`, imported only when a
payment needs them (`svc.pay.rails.part`), as the command table names its commands.

Adding a rail is one row here, its reader and factory in svc.pay, and its name in the
service's `svc-billing` answers.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

X402 = "x402"
MPP = "mpp"
CARD = "card"
# The rails as a type, for the library's models (a test holds it to NAMES).
RailName = Literal["x402", "mpp", "card"]


class Rail(NamedTuple):
    name: str  # as the flag, the config, the ledger, the MCP schema and `svc-billing` spell it
    title: str  # as a sentence names it ("paying 1.50 USD with MPP")
    offers: str  # module:function reading what the rail's challenge offers into Offers
    factory: str  # module:function building the rail for one request (svc.pay.rails.RailParts)
    proof_header: str  # module:constant: the header its proof travels in (to task endpoints)
    proof_is_secret: bool  # the proof itself is a secret (kept in the secret store, not the ledger)
    # An authorization that may still settle counts against the daily cap until its own
    # deadline even once proven void (x402's validBefore); the others are freed at once.
    counts_until_deadline: bool
    free_proof: bool  # can sign a free call's zero-amount proof (a card cannot: 0.50 minimum)
    min_atomic: int = 0  # the smallest price it may pay, in µUSD (the spec: card 0.50 USD)


RAILS: tuple[Rail, ...] = (
    Rail(
        X402,
        "x402",
        offers="svc.pay.offer:x402_offers",
        factory="svc.pay.rails:x402_rail",
        proof_header="svc.api.headers:X402_TASK_PROOF",
        proof_is_secret=False,
        counts_until_deadline=True,
        free_proof=True,
    ),
    Rail(
        MPP,
        "MPP",
        offers="svc.pay.offer:mpp_offer",
        factory="svc.pay.rails:mpp_rail",
        proof_header="svc.api.headers:AUTHORIZATION",
        proof_is_secret=True,  # the MPP credential carries the shared payment token
        counts_until_deadline=False,
        free_proof=True,
    ),
    Rail(
        CARD,
        "card",
        offers="svc.pay.offer:card_offer",
        factory="svc.pay.rails:card_rail",
        proof_header="svc.api.headers:PAYMENT_ID",
        proof_is_secret=False,
        counts_until_deadline=False,
        free_proof=False,
        min_atomic=500_000,
    ),
)

NAMES: tuple[str, ...] = tuple(rail.name for rail in RAILS)
BY_NAME: dict[str, Rail] = {rail.name: rail for rail in RAILS}
DEFAULT = X402  # the rail a person pays with when they name none
FREE_PROOF_NAMES: tuple[str, ...] = tuple(rail.name for rail in RAILS if rail.free_proof)
SECRET_PROOF_NAMES = frozenset(rail.name for rail in RAILS if rail.proof_is_secret)


def in_words(names: tuple[str, ...] = NAMES, *, last: str = "or") -> str:
    """`x402, mpp or card`: the names as a sentence lists them."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} {last} {names[-1]}"


def others(name: str) -> str:
    """`x402,mpp`: every rail but `name`, as a next step lists the ones to try instead."""
    return ",".join(other for other in NAMES if other != name)


def title(name: str) -> str:
    """How a sentence names the rail `name` (the name itself if it is none of ours)."""
    rail = BY_NAME.get(name)
    return rail.title if rail else name
