"""Money in one place: exact conversions between USD text/Decimal and atomic token units.

USDC has 6 decimals; amounts are never floats and never rounded (a rounding would pay a
different sum than the one the user agreed to). Used by the payment rails, the policy, the
ledger views and the commands that print prices.
"""

from __future__ import annotations

import re
from decimal import Context, Decimal
from typing import Final

__all__ = [
    "UINT256_MAX",
    "AmountError",
    "atomic_for_people",
    "atomic_to_usd",
    "for_people",
    "usd_to_atomic",
]

UINT256_MAX: Final = 2**256 - 1
# ASCII digits only: Decimal() would accept Arabic-Indic digits and underscores.
_USD = re.compile(r"[0-9]+(?:\.[0-9]*)?|\.[0-9]+", re.ASCII)


class AmountError(ValueError):
    """A USD or atomic amount is malformed, negative, too precise or too large (one sentence)."""


def usd_to_atomic(usd: Decimal | str, decimals: int = 6) -> int:
    """Exact dollars to atomic units (``"1.5"`` -> ``1500000``); no rounding, no floats."""
    if isinstance(decimals, bool) or not isinstance(decimals, int) or not 0 <= decimals <= 77:
        raise AmountError("decimals must be an integer from 0 to 77.")
    if isinstance(usd, str):
        text = usd.strip()
        if len(text) > 100:
            raise AmountError("the USD amount is too long.")
        if text.startswith("-") and _USD.fullmatch(text[1:]):
            raise AmountError("the USD amount is negative.")
        if not _USD.fullmatch(text):
            raise AmountError(f"{text[:32]!r} is not a plain decimal USD amount.")
        value = Decimal(text)
    elif isinstance(usd, Decimal):
        value = usd
    else:
        raise AmountError("a USD amount must be a Decimal or a string, never a float.")
    if not value.is_finite():
        raise AmountError("the USD amount is not a finite number.")
    if value.is_zero():
        return 0
    if value.is_signed():
        raise AmountError("the USD amount is negative.")
    if value.adjusted() > 77 or len(value.as_tuple().digits) > 150:
        raise AmountError("the USD amount is too large or too long.")
    exact = Context(prec=300)
    scaled = value.scaleb(decimals, context=exact)
    if scaled != scaled.to_integral_value(context=exact):
        raise AmountError(f"the USD amount has more than {decimals} decimal places.")
    atomic = int(scaled)
    if atomic > UINT256_MAX:
        raise AmountError("the USD amount is too large.")
    return atomic


def atomic_to_usd(atomic: int, decimals: int = 6) -> Decimal:
    """Atomic units to exact dollars (``1500000`` -> ``Decimal("1.500000")``)."""
    if isinstance(atomic, bool) or not isinstance(atomic, int) or atomic < 0:
        raise AmountError("an atomic amount must be a non-negative integer.")
    if isinstance(decimals, bool) or not isinstance(decimals, int) or not 0 <= decimals <= 77:
        raise AmountError("decimals must be an integer from 0 to 77.")
    return Decimal(atomic).scaleb(-decimals, context=Context(prec=200))


CENT: Final = Decimal("0.01")


def for_people(usd: Decimal) -> str:
    """`1.50 USD`: two decimals when that is exact, else every digit it has (`0.000001 USD`):
    money shown to a person is never rounded into a different sum."""
    try:
        cents = usd.quantize(CENT)
    except ArithmeticError:  # too large to quantize: all its digits
        return f"{usd.normalize():f} USD"
    return f"{cents if cents == usd else usd.normalize():f} USD"


def atomic_for_people(atomic: int, decimals: int = 6) -> str:
    """µUSD (or another token's atomic units) as `1.50 USD`."""
    return for_people(atomic_to_usd(atomic, decimals))
