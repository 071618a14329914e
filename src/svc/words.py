"""Numbers, money, booleans and times as people read them, in one place.

JSON keeps the exact values (amounts as 6-decimal strings, timestamps); these are only for
text on a terminal or stderr. Money is never rounded away: two decimals when that is exact
("1.50 USD"), all the digits it has when it is not ("0.000001 USD").
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING

from svc import numbers
from svc.money import (
    MAX_AMOUNT_CHARS,
    AmountError,
    atomic_for_people,
    for_people,
    parse_usd,
    shown,
)
from svc.sanitize import clean

if TYPE_CHECKING:
    from svc.api.answers import Billing


def usd(amount: object) -> str:
    """`1.50 USD`; an int is taken as dollars (use `usd_atomic` for µUSD). An amount with
    more decimals keeps them all (a form must never show a sum other than the one asked).
    Text from a server is read by the one amount parser: anything that is not a plain amount
    (`1_0.5`, fullwidth or superscript digits, NaN, an exponent) is shown as unreadable, its
    text quoted and cut, never as a sum a person could take for the real one."""
    if amount is None:
        return "-"
    if isinstance(amount, Decimal) and _bounded(amount):
        return for_people(amount)  # already a number (svc's own: a Billing, a setting)
    try:
        return for_people(parse_usd(amount, "the amount"))
    except AmountError:
        text = amount if isinstance(amount, str) else str(amount)
        return f"an unreadable amount ({clean(shown(text), 40, single_line=True)})"


def _bounded(amount: Decimal) -> bool:
    """A finite Decimal short enough to print (`1E+999999` would be a million digits)."""
    return amount.is_finite() and -MAX_AMOUNT_CHARS <= amount.adjusted() <= MAX_AMOUNT_CHARS


def price(amount: object) -> str:
    """A catalog price: `free` for zero, else `1.50 USD` (the manifest's and the services'
    `priceUsd` is a 6-decimal string, `1.500000`, which no other line of svc shows)."""
    if amount is None or amount == "":
        return ""
    try:
        if parse_usd(amount, "the price") == 0:
            return "free"
    except AmountError:
        pass  # shown as unreadable by usd()
    return usd(amount)


def usd_atomic(atomic: int | None) -> str:
    """µUSD (the ledger's unit) as `1.50 USD`."""
    if atomic is None:
        return "-"

    return atomic_for_people(atomic)


def yes_no(value: object) -> str:
    return "yes" if value else "no"


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """`1 task`, `2 tasks`, `0 tasks` (`nouns` for irregular plurals)."""
    return f"{count} {noun if count == 1 else nouns or noun + 's'}"


def counted(count: int, noun: str, verb: str, verbs: str) -> str:
    """`1 payment waits`, `2 payments wait`: the count, the noun and the verb agreeing."""
    return f"{plural(count, noun)} {verb if count == 1 else verbs}"


def ago(then: float, now: float) -> str:
    """`just now`, `3 min ago`, `2 h ago`, `5 days ago`; a time ahead of now: `in 3 min`."""
    seconds = now - then
    if abs(seconds) < 45:
        return "just now"
    span = _span(abs(seconds))
    return f"{span} ago" if seconds > 0 else f"in {span}"


def when(stamp: object, now: float | None = None) -> str:
    """An instant a server gave, for people: `2026-11-26T05:20:44.768Z (in 10 min)`, the
    stamp as it came (cleaned, its case kept); only the stamp when it is not one."""
    import time

    shown = clean(stamp, 40, single_line=True)
    then = numbers.instant(stamp)
    if then is None:
        return shown or "no time given"
    return f"{shown} ({ago(then, time.time() if now is None else now)})"


def not_charged(amount_usd: object, until: object) -> str:
    """`3.00 USD signed but not charged counts until 14:05 UTC, when it expires`: exposure
    the server did not charge, in words (the cap, `svc spend`, `svc budget` say it alike)."""
    then = numbers.instant(until)
    if then is None:
        return f"{usd(amount_usd)} signed but not charged counts until it is known spent or void"
    import time

    clock = time.strftime("%H:%M UTC", time.gmtime(then))
    if time.gmtime(then)[:3] != time.gmtime()[:3]:
        clock = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(then))
    return f"{usd(amount_usd)} signed but not charged counts until {clock}, when it expires"


def budget_standing(used_atomic: int, limit_atomic: int) -> str:
    """Where a budget at or past its warning share stands, in words that match its
    percentage: `svc budget`, `svc spend`, `svc doctor` and a payment's warning say it alike."""
    if used_atomic > limit_atomic:
        return "over its limit"
    if used_atomic == limit_atomic:
        return "at its limit"
    return "near its limit"


def source(where: str | None) -> str:
    """Where a setting's value came from (`Settings.sources`), for people."""
    if not where or where == "default":
        return "built-in default"
    if where.startswith("env "):
        return "environment " + where.removeprefix("env ")
    if where.startswith("profile "):
        return "the config file, profile " + where.removeprefix("profile ")
    return where  # `flag`


def _span(seconds: float) -> str:
    minutes = round(seconds / 60)
    if minutes < 60:
        return f"{max(1, minutes)} min"
    hours = round(seconds / 3600)
    if hours < 48:
        return f"{hours} h"
    return plural(round(seconds / 86400), "day")


BILLING_VERBS = {
    "charged": "charged",
    "replayed": "already paid, not charged again",
    "refunded": "refunded",
}


def billing(parsed: Billing) -> str:
    """The `svc-billing` header (as api.answers read it) in words: `charged 1.50 USD by x402
    (payment pay_1)`."""
    status = parsed.status or "billed"
    words = [BILLING_VERBS.get(status, status)]
    if parsed.amount_usd is not None and status != "replayed":
        words.append(usd(parsed.amount_usd))
    method = parsed.fields.get("method")
    if method:
        words.append(f"by {method}")
    payment_id = parsed.fields.get("payment_id")
    if payment_id:
        words.append(f"(payment {payment_id})")
    return " ".join(words)
