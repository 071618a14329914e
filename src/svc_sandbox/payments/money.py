"""Amounts: the sandbox counts money in atomic units (µUSD, USDC's 6 decimals) everywhere.

One place for the conversions, so the x402 terms, the MPP/card fee, the billing header and the
discovery documents all write the same text for the same amount.
"""

from __future__ import annotations

ATOMIC_PER_USD = 1_000_000
ATOMIC_PER_CENT = 10_000


def usd(atomic: int, places: int = 6) -> str:
    """`1500000` -> `"1.500000"` (`"1.50"` with places=2: digits past `places` are cut)."""
    whole, fraction = divmod(atomic, ATOMIC_PER_USD)
    text = f"{whole}.{fraction:06d}"
    return text[: len(text) - (6 - places)]


def whole_cents(atomic: int) -> int | None:
    """The amount in cents, when it is a whole number of cents (card and MPP charge cents)."""
    cents, rest = divmod(atomic, ATOMIC_PER_CENT)
    return None if rest else cents
