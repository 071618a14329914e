"""One entry of an export: a charge or a refund, as `engines/export` reads it from the ledger
and every writer of `engines/export_formats` takes it (its own module, so neither imports the
other)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from svc.pay.chains import TEST_NETWORK, V1_NAMES, caip2
from svc.rail_table import X402
from svc.store.spend import day_of

CURRENCY = "USD"
# Money on a test network is worth nothing: booked as USD it would add to real spending in
# every report an accountant runs. Its own commodity keeps it apart; the symbol is one that
# beancount, hledger and ledger all read unquoted (letters, digits and `_` only).
TEST_CURRENCY = "USDC_TEST"
_TEST_CHAINS = frozenset(
    {TEST_NETWORK, *(V1_NAMES[name] for name in ("sepolia", "polygon-amoy", "avalanche-fuji"))}
)
# Test networks svc has no table for (x402 v1 names such as `solana-devnet`), by their name.
_TEST_WORDS = re.compile(r"sepolia|testnet|devnet|fuji|amoy", re.IGNORECASE)


def is_test_network(network: str | None) -> bool:
    """A chain whose money is test money (Base Sepolia, what the sandbox charges)."""
    if not network:
        return False
    return caip2(network) in _TEST_CHAINS or bool(_TEST_WORDS.search(network))


@dataclass(frozen=True)
class Entry:
    """One charge (a positive amount) or refund (negative): what left, or came back."""

    kind: str  # "charge" | "refund"
    at: float
    rail: str
    amount_atomic: int
    request_id: str
    task_id: str | None
    reference: str | None  # the rail's settlement reference (svc.engines.settlement)
    payment_id: str | None
    runner: str | None
    payer: str | None
    recipient: str | None
    network: str | None
    asset: str | None
    task: str  # the task's text as journaled (outside text: each writer escapes it)
    origin: str | None = None  # the service paid (`scheme://host:port`): the books' payee
    profile: str | None = None  # the profile whose wallet paid (from its authorization)

    @property
    def day(self) -> str:
        return day_of(self.at)

    @property
    def currency(self) -> str:
        """USD, or TEST_CURRENCY for x402 money on a test network (cards and MPP are USD)."""
        return TEST_CURRENCY if self.rail == X402 and is_test_network(self.network) else CURRENCY
