"""Money, counts, times and the billing line for people (issue 15.4), and what a hostile
server's amount or billing header does to them: shown inert and short, never as money."""

from __future__ import annotations

from decimal import Decimal

import pytest

from svc.api.answers import Billing
from svc.words import ago, billing, counted, plural, usd, usd_atomic


@pytest.mark.parametrize(
    ("amount", "shown"),
    [
        ("1.5", "1.50 USD"),
        (Decimal("42.500000"), "42.50 USD"),
        ("0.000001", "0.000001 USD"),  # sub-cent money is shown, not rounded away
        (3, "3.00 USD"),
        (None, "-"),
    ],
)
def test_money_has_two_decimals_when_exact_and_every_digit_otherwise(
    amount: object, shown: str
) -> None:
    assert usd(amount) == shown


@pytest.mark.parametrize("hostile", ["1e999999", "1e-999999", "NaN", "-Infinity", "9" * 41])
def test_a_hostile_amount_is_shown_cut_and_never_as_a_million_digits(hostile: str) -> None:
    shown = usd(hostile)
    assert len(shown) <= 60 and shown.startswith("an unreadable amount")  # issue 29.6


def test_the_longest_plain_amount_is_shown_whole_not_rounded() -> None:
    assert usd("9" * 40) == "9" * 40 + ".00 USD"  # 40 characters: the parser's bound


def test_an_amount_carrying_escapes_is_inert() -> None:
    shown = usd("1.50\x1b]0;pwned\x07")
    assert "\x1b" not in shown and "\x07" not in shown


def test_atomic_amounts_counts_and_verbs() -> None:
    assert usd_atomic(1_500_000) == "1.50 USD" and usd_atomic(None) == "-"
    assert plural(1, "task") == "1 task" and plural(0, "task") == "0 tasks"
    assert counted(1, "card payment", "waits", "wait") == "1 card payment waits"
    assert counted(2, "card payment", "waits", "wait") == "2 card payments wait"


@pytest.mark.parametrize(
    ("seconds", "shown"),
    [(10, "just now"), (180, "3 min ago"), (7200, "2 h ago"), (5 * 86400, "5 days ago")],
)
def test_times_are_relative(seconds: float, shown: str) -> None:
    assert ago(1_000_000 - seconds, 1_000_000) == shown
    assert ago(1_000_000 + 600, 1_000_000) == "in 10 min"


def test_the_billing_line_in_words() -> None:
    raw = "status=charged; method=x402; amount_usd=1.500000; payment_id=pay_1"
    assert billing(Billing.parse(raw)) == "charged 1.50 USD by x402 (payment pay_1)"
    replayed = Billing.parse("status=replayed; amount_usd=1.500000")
    assert billing(replayed) == "already paid, not charged again"
    assert billing(Billing.parse("status=refunded; amount_usd=NaN")) == "refunded"  # not money
    assert billing(Billing.parse("junk")) == "billed"


def test_catalog_prices_and_server_times_read_as_people_read_them() -> None:
    """Issue 30.10: `1.500000` became `1.50 USD`; a claim link's time kept its case."""
    from svc.words import price, source, when

    assert price("1.500000") == "1.50 USD" and price("0") == "free" and price(None) == ""
    stamp = "2026-11-26T05:20:44.768Z"
    assert when(stamp, now=1795670444.768 - 600) == f"{stamp} (in 10 min)"
    assert when("soon") == "soon"
    assert source("default") == "built-in default" and source("env SVC_NOTIFY").endswith("NOTIFY")
