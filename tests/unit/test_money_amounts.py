"""One decimal for every amount (issue 29.6): the one parser, and every reader that uses it.

`int()`, `float()` and `Decimal()` read every Unicode decimal digit (fullwidth `150` is 150) and
skip underscores (`Decimal("1_0.5")` is 10.5); `str.isdigit()` is true for superscripts that
`int()` then refuses. So every amount from a rail, an answer or the person goes through
`svc.money.parse_usd` / `parse_atomic`: ASCII digits and at most one dot, 40 characters at most.
Each reader below is fed what an attacker would send and must refuse it naming the field, with
the contract's error (a payment refused: exit 5; a person's cap: exit 2), never an internal
error, never a number.
"""

from __future__ import annotations

import ast
import base64
import io
import json
import sys
import unicodedata
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.fakes import MemoryPins
from tests.hostile_peer import mpp_challenge

import svc
from svc import money
from svc.api.advisor import quote_shape
from svc.api.answers import Billing
from svc.api.discovery import task_price
from svc.engines.asks import summarize
from svc.errors import ExitCode, PaymentFailed, SvcError, UsageError
from svc.money import MAX_AMOUNT_CHARS, AmountError, parse_atomic, parse_usd, usd_to_atomic
from svc.origin import configured
from svc.pay import mpp
from svc.pay.card import parse_offer
from svc.pay.policy import PaymentPolicy
from svc.pay.rails import MppRail, X402Rail
from svc.pay.x402 import PaymentRequirements, X402Error
from svc.settings import usd_amount
from svc.ui import views
from svc.ui.output import Output
from svc.words import billing, usd

USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"

# Every character a person (or int()/Decimal()) may read as a digit that is not ASCII 0-9.
UNICODE_DIGITS = [
    ch
    for ch in map(chr, range(sys.maxunicode + 1))
    if unicodedata.category(ch) in ("Nd", "No", "Nl") and ch not in "0123456789"
]
WHITESPACE = [ch for ch in map(chr, range(0x3000 + 1)) if ch.isspace()] + ["\u200b", "\ufeff"]


def test_the_unicode_digit_table_covers_each_category() -> None:
    categories = {unicodedata.category(ch) for ch in UNICODE_DIGITS}
    assert categories == {"Nd", "No", "Nl"}
    assert {"１", "١", "¹", "⁵", "Ⅻ", "½", "߁"} <= set(UNICODE_DIGITS)


# --- strategies: honest amounts and what an attacker sends instead ----------------------------

HONEST_USD = st.from_regex(r"[0-9]{1,12}(\.[0-9]{1,6})?", fullmatch=True)
HONEST_ATOMIC = st.from_regex(r"[0-9]{1,30}", fullmatch=True)


# Built once: a strategy over a list labels itself by scanning the list (thousands of digits),
# which per draw was most of these tests' time; the values drawn are the same.
UNICODE_DIGIT = st.sampled_from(UNICODE_DIGITS)
DECORATION = st.sampled_from(["_", "+", "-", "e2", "E-1", ",", "..", "$", "\x00", "/", "'"])
DECORATION |= st.sampled_from(WHITESPACE)


@st.composite
def with_unicode_digit(draw: st.DrawFn, honest: st.SearchStrategy[str] = HONEST_USD) -> str:
    """An honest amount with one or more of its digits swapped for a non-ASCII digit."""
    text = list(draw(honest))
    spots = [i for i, ch in enumerate(text) if ch.isdigit()]
    for i in draw(st.lists(st.sampled_from(spots), min_size=1, unique=True)):
        text[i] = draw(UNICODE_DIGIT)
    return "".join(text)


@st.composite
def decorated(draw: st.DrawFn, honest: st.SearchStrategy[str] = HONEST_USD) -> str:
    """An honest amount with a sign, an exponent, an underscore, whitespace or a second dot."""
    text = draw(honest)
    at = draw(st.integers(0, len(text)))
    piece = draw(DECORATION)
    return text[:at] + piece + text[at:]


SPECIAL = st.sampled_from(
    [
        "",
        ".",
        "1.",
        ".5",
        "NaN",
        "nan",
        "sNaN",
        "-NaN",
        "Infinity",
        "-Infinity",
        "inf",
        "+1.50",
        "-0",
        "0x10",
        "1e999999",
        "1.5.0",
        "1_0.5",
        "１５０",
        "١٥٠",
        "¹⁵⁰",
        "１.５０",
        "Ⅻ",
        "½",
        " 1.50",
        "1.50 ",
        "1.50\n",
    ]
)
TOO_LONG = st.integers(MAX_AMOUNT_CHARS + 1, 5000).map(lambda n: "1" * n)
HOSTILE = with_unicode_digit() | decorated() | SPECIAL | TOO_LONG
HOSTILE_ATOMIC = (
    with_unicode_digit(HONEST_ATOMIC)
    | decorated(HONEST_ATOMIC)
    | SPECIAL
    | TOO_LONG
    | HONEST_USD.filter(lambda s: "." in s)
)


def _names(exc: BaseException, field: str) -> bool:
    return field in str(exc)


# --- the parser -------------------------------------------------------------------------------


@settings(max_examples=300)
@given(HONEST_USD)
def test_an_honest_usd_amount_is_read_exactly(text: str) -> None:
    assert parse_usd(text, "the price") == Decimal(text)


@settings(max_examples=300)
@given(HONEST_ATOMIC)
def test_an_honest_atomic_amount_is_read_exactly(text: str) -> None:
    assert parse_atomic(text, "the amount") == int(text)


@settings(max_examples=600)
@given(HOSTILE)
def test_a_hostile_usd_amount_is_refused_naming_the_field(text: str) -> None:
    with pytest.raises(AmountError) as caught:
        parse_usd(text, "the quote's priceUsd")
    assert _names(caught.value, "the quote's priceUsd")
    assert caught.value.field == "the quote's priceUsd"
    assert len(str(caught.value)) < 200  # an over-long value is never echoed whole


@settings(max_examples=600)
@given(HOSTILE_ATOMIC)
def test_a_hostile_atomic_amount_is_refused_naming_the_field(text: str) -> None:
    with pytest.raises(AmountError) as caught:
        parse_atomic(text, "request.amount")
    assert _names(caught.value, "request.amount")


NOT_AMOUNTS = [None, True, False, [], {}, b"150", -1, 10**41, 2**20000]


@pytest.mark.parametrize("value", NOT_AMOUNTS, ids=[str(i) for i in range(len(NOT_AMOUNTS))])
def test_what_is_not_text_or_a_whole_number_is_refused(value: object) -> None:
    for parse in (parse_usd, parse_atomic):
        with pytest.raises(AmountError):
            parse(value, "the field")  # type: ignore[operator]


@pytest.mark.parametrize(
    ("value", "usd", "atomic"), [(150, Decimal(150), 150), (1.5, Decimal("1.5"), None)]
)
def test_a_json_number_is_read_by_its_plain_spelling(
    value: object, usd: Decimal, atomic: int | None
) -> None:
    assert parse_usd(value, "f") == usd
    if atomic is None:
        with pytest.raises(AmountError):
            parse_atomic(value, "f")  # an atomic amount is a whole number, never a float
    else:
        assert parse_atomic(value, "f") == atomic


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -1.5, 1e-7, 1e300, -0.0])
def test_a_json_float_that_is_not_plain_is_refused(value: float) -> None:
    with pytest.raises(AmountError):
        parse_usd(value, "f")


@settings(max_examples=300)
@given(HOSTILE)
def test_usd_to_atomic_reads_text_with_the_same_parser(text: str) -> None:
    with pytest.raises(AmountError):
        usd_to_atomic(text)


# --- x402: amount and maxAmountRequired -------------------------------------------------------


def _x402_entry(amount: object, version: int) -> dict[str, Any]:
    key = "maxAmountRequired" if version == 1 else "amount"
    return {
        "scheme": "exact",
        "network": "base" if version == 1 else "eip155:8453",
        key: amount,
        "asset": USDC,
        "payTo": "0x" + "11" * 20,
        "maxTimeoutSeconds": 300,
        "extra": {"name": "USD Coin", "version": "2"},
    }


@settings(max_examples=300)
@given(HOSTILE_ATOMIC, st.sampled_from([1, 2]))
def test_an_x402_entry_with_a_hostile_amount_is_refused(text: str, version: int) -> None:
    with pytest.raises(X402Error) as caught:
        PaymentRequirements.from_entry(_x402_entry(text, version), version)
    key = "maxAmountRequired" if version == 1 else "amount"
    assert _names(caught.value, key)


def _policy() -> PaymentPolicy:
    return PaymentPolicy(Decimal("1000"), ["eip155:8453"], [USDC], MemoryPins())


def _x402_402(amount: str) -> httpx.Response:
    doc = {"x402Version": 2, "accepts": [_x402_entry(amount, 2)]}
    header = base64.b64encode(json.dumps(doc).encode()).decode()
    return httpx.Response(402, headers={"PAYMENT-REQUIRED": header}, content=b"{}")


@pytest.mark.parametrize("amount", ["１５００００", "١٥٠٠٠٠", "¹⁵⁰⁰⁰⁰⁰", "1_500_000", "1500000.0"])
def test_the_x402_rail_refuses_a_hostile_amount_before_loading_the_key(amount: str) -> None:
    def no_signer() -> Any:
        raise AssertionError("the key was loaded for a payment that must be refused")

    rail = X402Rail(_policy(), no_signer, "x-payment")
    with pytest.raises(PaymentFailed) as caught:
        rail.pay(_x402_402(amount))
    assert caught.value.exit_code == ExitCode.PAYMENT
    assert "amount" in caught.value.message and "nothing was paid" in caught.value.message


# --- MPP: request.amount ----------------------------------------------------------------------


def _mpp(amount: str) -> mpp.MppChallenge:
    return mpp.MppChallenge(
        id="c1",
        realm="peer.example",
        method="stripe",
        intent="charge",
        request_b64="e30",
        request={"amount": amount, "currency": "usd"},
        expires=None,
        digest=None,
        description=None,
        opaque_b64=None,
        header=None,
    )


@settings(max_examples=300)
@given(HOSTILE_ATOMIC)
def test_an_mpp_challenge_with_a_hostile_amount_is_unusable_naming_the_field(text: str) -> None:
    challenge = _mpp(text)
    why = mpp.why_unusable(challenge)
    assert why is not None and "request.amount" in why
    with pytest.raises(PaymentFailed) as caught:
        mpp.choose([challenge], ["stripe"])
    assert caught.value.exit_code == ExitCode.PAYMENT
    assert "request.amount" in caught.value.message
    assert "nothing was paid" in caught.value.message
    with pytest.raises(mpp.MppError):
        challenge.amount_atomic  # the amount itself refuses too


@pytest.mark.parametrize("amount", ["１５０", "١٥٠", "¹⁵⁰", "1_50", "1.50", "+150"])
def test_the_mpp_rail_refuses_a_hostile_amount_before_reading_the_token(amount: str) -> None:
    def no_token() -> str:
        raise AssertionError("the token was read for a payment that must be refused")

    response = httpx.Response(402, headers={"WWW-Authenticate": mpp_challenge("p.ex", amount)})
    with pytest.raises(PaymentFailed) as caught:
        MppRail(_policy(), no_token).pay(response)
    assert caught.value.exit_code == ExitCode.PAYMENT and "amount" in caught.value.message


def test_an_honest_mpp_challenge_is_still_read() -> None:
    response = httpx.Response(402, headers={"WWW-Authenticate": mpp_challenge("p.ex")})
    [challenge] = mpp.parse_challenges(response.headers.get_list("WWW-Authenticate"))
    assert challenge.amount_atomic == 1_500_000 and mpp.why_unusable(challenge) is None


# --- card: payment.amountUsd -----------------------------------------------------------------

BASE = configured("http://127.0.0.1:8402", "the base URL")


def _card_body(amount: object) -> dict[str, Any]:
    return {
        "payment": {"id": "pay_1", "amountUsd": amount, "currency": "USD"},
        "card": {
            "payUrl": "http://127.0.0.1:8402/svc/payments/pay_1/pay",
            "statusUrl": "http://127.0.0.1:8402/svc/payments/pay_1/status",
        },
    }


def _no_trust(origin: str, host: str, what: str) -> bool:
    return False


@settings(max_examples=300)
@given(HOSTILE | st.sampled_from([None, True, [1], {"usd": 1}]))
def test_a_card_offer_with_a_hostile_amount_is_a_payment_refusal(amount: object) -> None:
    with pytest.raises(PaymentFailed) as caught:
        parse_offer(_card_body(amount), BASE, _no_trust)
    assert caught.value.exit_code == ExitCode.PAYMENT
    assert "payment.amountUsd" in caught.value.message
    assert "nothing was paid" in caught.value.message


def test_an_honest_card_offer_is_still_read() -> None:
    offer = parse_offer(_card_body("1.500000"), BASE, _no_trust)
    assert offer is not None and offer.amount_atomic == 1_500_000


# --- the other answers: billing header, quote, manifest, approval amounts -------------------


@settings(max_examples=300)
@given(HOSTILE.filter(lambda s: ";" not in s and "=" not in s))
def test_a_hostile_billing_amount_is_no_amount(text: str) -> None:
    parsed = Billing.parse(f"status=charged; method=mpp; amount_usd={text}")
    if parse_ok(text.strip()):
        return  # whitespace around a value is the header syntax's, not the amount's
    assert parsed.amount_atomic is None
    assert "USD" not in billing(parsed)


def parse_ok(text: str) -> bool:
    try:
        parse_usd(text, "x")
    except AmountError:
        return False
    return True


@settings(max_examples=100)
@given(HOSTILE)
def test_a_quote_with_a_hostile_price_shows_it_unreadable(text: str) -> None:
    doc = {"status": "quoted", "priceUsd": text, "guide": "g", "guideUrl": "http://x/guide"}
    out = io.StringIO()
    views.quote(Output(stdout=out, stderr=io.StringIO()), quote_shape(doc))
    assert "Price of this quote: an unreadable amount" in out.getvalue()
    assert "USD" not in out.getvalue()


@settings(max_examples=300)
@given(HOSTILE | st.sampled_from([float("nan"), -1, 1e300]))
def test_a_manifest_with_a_hostile_price_states_no_price(price: object) -> None:
    manifest = {"prices": [{"service": "tasks", "meter": "task", "priceUsd": price}]}
    assert task_price(manifest) is None


@settings(max_examples=300)
@given(HOSTILE)
def test_an_approval_amount_that_is_not_plain_is_never_shown_as_money(text: str) -> None:
    task = {
        "id": "task_1",
        "state": "blocked_on_user",
        "info_request": {"amount_usd": text, "merchant_name": "Shop", "payment_status": "x"},
    }
    what = summarize(task).what
    assert "unreadable amount" in what, what
    assert "USD" not in usd(text)


@pytest.mark.parametrize(("amount", "shown"), [("1_0.5", "1_0.5"), ("１５０", "１５０")])
def test_a_person_sees_the_servers_text_marked_unreadable(amount: str, shown: str) -> None:
    text = usd(amount)
    assert text.startswith("an unreadable amount") and shown in text
    assert "10.50" not in text and "150" not in text.replace(shown, "")


# --- the person's own caps: flags, environment, config ----------------------------------------


@settings(max_examples=300)
@given(HOSTILE.filter(lambda s: not parse_ok(s)))
def test_a_hostile_cap_is_a_usage_error_naming_the_setting(text: str) -> None:
    with pytest.raises(UsageError) as caught:
        usd_amount("--max-price", text)
    assert caught.value.exit_code == ExitCode.USAGE
    assert caught.value.message.startswith("--max-price must be")


@pytest.mark.parametrize("value", ["1.50", "0", "100", 2, 1.5])
def test_an_honest_cap_is_read(value: object) -> None:
    assert usd_amount("cap", value) == Decimal(str(value))


@pytest.mark.parametrize("value", [" 2", "2 ", " 2 ", "2\n", "\t1.50", "1.00 "])
def test_a_cap_with_whitespace_around_it_is_refused(value: str) -> None:
    """A cap is plain digits wherever it is written: `--max-price "1.00 "` is exit 2."""
    with pytest.raises(UsageError) as caught:
        usd_amount("--max-price", value)
    assert caught.value.exit_code == ExitCode.USAGE


def test_a_cap_given_to_an_mcp_tool_uses_the_same_parser() -> None:
    from svc.mcp.tools.submit import _cap
    from svc.settings import Settings

    with pytest.raises(SvcError) as caught:
        _cap(Settings(), "1_0")
    assert caught.value.exit_code == ExitCode.USAGE
    assert _cap(Settings(), "0.50") == Decimal("0.50")


# --- the one parser stays the only one ---------------------------------------------------------


def _decimal_calls(path: Path) -> list[str]:
    """`Decimal(x)` calls whose argument is not a literal: text turned into money."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
        literal = len(node.args) == 1 and isinstance(node.args[0], ast.Constant)
        if name == "Decimal" and not literal:
            found.append(f"{path.name}:{node.lineno}")
    return found


def test_no_module_but_money_turns_anything_into_a_decimal() -> None:
    root = Path(svc.__file__).parent
    offenders = [
        call
        for path in sorted(root.rglob("*.py"))
        if path != root / "money.py"
        for call in _decimal_calls(path)
    ]
    assert offenders == [], "read amounts with svc.money.parse_usd / parse_atomic"


@pytest.mark.parametrize("amount", [True, "1_0.5", "１５０", "NaN", "1e2"])
def test_the_reply_form_shows_a_hostile_approval_amount_unreadable(amount: object) -> None:
    from svc.api.models import InfoRequest
    from svc.ui.reply_form import _header

    ask = InfoRequest.model_validate({"amount_usd": amount, "merchant_name": "Shop"})
    [line] = _header(ask)  # a bool was coerced to 1.0 and shown as 1.00 USD
    assert line.startswith("Payment: an unreadable amount"), line


@pytest.mark.parametrize("typed", ["¹", "١", "１", "²"])
def test_a_non_ascii_digit_at_a_numbered_choice_names_no_option(typed: str) -> None:
    """`str.isdigit()` is true for a superscript that `int()` refuses: the form's numbered
    choices read ASCII digits only (a superscript was an internal error)."""
    from svc.ui import form

    assert form.pick(typed, ["window", "aisle"]) is None


def test_a_kept_conversion_is_the_conversion_and_a_refusal_is_never_kept() -> None:
    """usd_to_atomic keeps what it converted (a batch converts the same price many times):
    the kept answer equals the one worked out anew, for every spelling of a value, and a
    refused amount is refused again each time, with its own words."""
    values: list[object] = ["1.5", "1.500000", "0", "0.000001", "12345.678901"]
    values += [Decimal("1.5"), Decimal("1.50"), Decimal("-0"), Decimal("1E+2")]
    for value in values * 2:
        assert money.usd_to_atomic(value) == money._usd_to_atomic(value, 6)  # type: ignore[arg-type]
        assert money.usd_to_atomic(value, 18) == money._usd_to_atomic(value, 18)  # type: ignore[arg-type]
    assert money.usd_to_atomic(Decimal("1")) == 1_000_000
    long_one = Decimal("1." + "0" * 200)  # equal to Decimal("1"), but over the digits' bound
    bad_ones: list[object] = ["1.0000001", "-1", long_one, Decimal("sNaN"), Decimal("NaN"), 1.5]
    for bad in bad_ones:
        words = set()
        for _ in range(2):
            with pytest.raises(AmountError) as caught:
                money.usd_to_atomic(bad)  # type: ignore[arg-type]
            words.add(str(caught.value))
        assert len(words) == 1
