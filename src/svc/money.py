"""Money in one place: the one reader of amounts, and exact USD <-> atomic conversions.

Every amount svc is given (an x402 `amount`, an MPP `request.amount`, a card `amountUsd`, the
svc-billing header, quote and manifest prices, approval amounts, the person's caps) is read by
`parse_usd` or `parse_atomic`: ASCII digits and at most one dot, at most
MAX_AMOUNT_CHARS characters, whole numbers only where the wire says atomic units. `int()`,
`float()` and `Decimal()` would read fullwidth or Arabic-Indic digits as ASCII ones and
`1_0.5` as 10.5, so nothing else in svc turns outside text into money.

USDC has 6 decimals; amounts are never floats and never rounded (a rounding would pay a
different sum than the one the user agreed to). Used by the payment rails, the policy, the
ledger views and the commands that print prices.
"""

from __future__ import annotations

import functools
import re
from decimal import Context, Decimal
from typing import Final

__all__ = [
    "MAX_AMOUNT_CHARS",
    "UINT256_MAX",
    "AmountError",
    "atomic_for_people",
    "atomic_to_usd",
    "for_people",
    "parse_atomic",
    "parse_usd",
    "usd_to_atomic",
]

UINT256_MAX: Final = 2**256 - 1
# 10**40 µUSD is far beyond any price; longer text is not an amount (and is never echoed whole).
MAX_AMOUNT_CHARS: Final = 40
# ASCII digits only, checked before any conversion: Decimal() and int() would accept every
# Unicode decimal digit and underscores; str.isdigit() is true for superscripts.
_PLAIN_DECIMAL = re.compile(r"[0-9]+(?:\.[0-9]+)?", re.ASCII)
_PLAIN_INTEGER = re.compile(r"[0-9]+", re.ASCII)
_MAX_BITS: Final = 140  # an int wider than this has more than MAX_AMOUNT_CHARS digits
_USD_SHAPE: Final = "a plain USD amount (ASCII digits, one dot at most)"
_ATOMIC_SHAPE: Final = "a whole number of units in ASCII digits"


class AmountError(ValueError):
    """A USD or atomic amount is malformed, negative, too precise or too large (one sentence);
    `field` names where it came from when a reader knows it."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


def parse_usd(value: object, field: str) -> Decimal:
    """The USD amount in `value`, exactly: text of ASCII digits with at most one dot, or a JSON
    number spelt that way (`1.5`); anything else is an AmountError naming `field`."""
    return Decimal(_plain_text(value, field, _PLAIN_DECIMAL, _USD_SHAPE))


def parse_atomic(value: object, field: str) -> int:
    """A whole number of atomic units (µUSD, token base units, cents): ASCII digits only, as
    text or a JSON integer; anything else is an AmountError naming `field`."""
    if isinstance(value, float):
        raise AmountError(f"{field} is not {_ATOMIC_SHAPE}: {value!r}", field)
    return int(_plain_text(value, field, _PLAIN_INTEGER, _ATOMIC_SHAPE))


def _plain_text(value: object, field: str, shape: re.Pattern[str], expected: str) -> str:
    """The text of an amount after the one check every amount passes."""
    if isinstance(value, bool) or value is None:
        raise AmountError(f"{field} is missing or not a number", field)
    if isinstance(value, int):
        if value.bit_length() > _MAX_BITS:  # str() of a huge int costs, or raises
            raise AmountError(f"{field} is too large to be an amount", field)
        text = str(value)
    elif isinstance(value, float):
        text = repr(value)  # a JSON number, by its shortest spelling: `1e-07` is refused
    elif isinstance(value, str):
        text = value
    else:
        raise AmountError(f"{field} is missing or not a number", field)
    if len(text) > MAX_AMOUNT_CHARS:
        raise AmountError(f"{field} is longer than {MAX_AMOUNT_CHARS} characters", field)
    if not shape.fullmatch(text):
        raise AmountError(f"{field} is not {expected}: {shown(text)}", field)
    return text


def shown(text: str) -> str:
    """What a refusal quotes of an amount: its start, escaped (repr), never all of it."""
    return repr(text[:16]) + ("…" if len(text) > 16 else "")


def usd_to_atomic(usd: Decimal | str, decimals: int = 6) -> int:
    """Exact dollars to atomic units (``"1.5"`` -> ``1500000``); no rounding, no floats."""
    if type(decimals) is int and _keyable(usd):
        return _usd_to_atomic_kept(usd, decimals)
    return _usd_to_atomic(usd, decimals)


def _keyable(usd: object) -> bool:
    """Whether a conversion of `usd` may be kept: text is keyed by its exact spelling; a
    Decimal by its value, so only one whose every check depends on the value alone (finite:
    an sNaN has no hash; at most 150 digits, the one check that reads its spelling)."""
    if type(usd) is str:
        return True
    return type(usd) is Decimal and usd.is_finite() and len(usd.as_tuple().digits) <= 150


# A paid request converts the same few amounts (its price, its cap, the 402's) several times:
# each conversion is kept, by its exact input (typed: "1.5" and Decimal("1.5") are two keys;
# Decimal("1.5") and Decimal("1.50") are one, and convert alike). Only conversions that
# succeed are kept; a refused amount is judged anew each time.
@functools.lru_cache(maxsize=256, typed=True)
def _usd_to_atomic_kept(usd: Decimal | str, decimals: int) -> int:
    return _usd_to_atomic(usd, decimals)


def _usd_to_atomic(usd: object, decimals: object) -> int:
    if isinstance(decimals, bool) or not isinstance(decimals, int) or not 0 <= decimals <= 77:
        raise AmountError("decimals must be an integer from 0 to 77.")
    if isinstance(usd, str):
        value = parse_usd(usd, "the USD amount")
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
    exact = Context(prec=300)  # the default 28 digits would round a long amount
    try:
        cents = usd.quantize(CENT, context=exact)
    except ArithmeticError:  # too large to quantize: all its digits
        return f"{usd.normalize(exact):f} USD"
    return f"{cents if cents == usd else usd.normalize(exact):f} USD"


def atomic_for_people(atomic: int, decimals: int = 6) -> str:
    """µUSD (or another token's atomic units) as `1.50 USD`."""
    return for_people(atomic_to_usd(atomic, decimals))
