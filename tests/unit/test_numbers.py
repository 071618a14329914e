"""Every header and field svc reads as a number, fed anything (issue 21.3): each reader gives a
sane value, "absent", or its own refusal (a payment error), never an internal error."""

from __future__ import annotations

import contextlib
import json
import math
from typing import Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from svc import numbers
from svc.api.answers import Billing
from svc.api.discovery import task_price
from svc.api.retry import RetryPolicy, retry_after_seconds
from svc.engines.asks import seconds_left
from svc.money import AmountError, usd_to_atomic
from svc.pay.x402 import X402Error, parse_challenge
from svc.words import usd

# Text a hostile server might send where a number belongs, beside arbitrary text.
NUMBERISH = st.sampled_from(
    [
        "nan",
        "NaN",
        "inf",
        "-inf",
        "Infinity",
        "1e999",
        "-5",
        "1e-999",
        "0x10",
        "1_000",
        "\u0661",
        "",
        " ",
        "3600",
        "0",
        "1.5",
        "99999999999999999999999",
        "Mon, 24 Nov 2026 12:00:00 GMT",
        "Mon, 99 Foo 99999 99:99:99 GMT",
        "0000-00-00T00:00:00Z",
        "9999-12-31T23:59:59-23:59",
    ]
)
TEXT = st.one_of(NUMBERISH, st.text(max_size=60))
JSON_SCALAR = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True),
    TEXT,
    st.integers(min_value=-(10**400), max_value=10**400),
)


def _sane_wait(value: float | None) -> bool:
    return value is None or (math.isfinite(value) and 0 <= value <= numbers.MAX_WAIT_SECONDS)


@settings(max_examples=400)
@given(JSON_SCALAR)
def test_seconds_is_a_sane_wait_or_absent(value: object) -> None:
    assert _sane_wait(numbers.seconds(value))


@settings(max_examples=400)
@given(st.one_of(st.none(), TEXT), JSON_SCALAR)
def test_retry_after_from_header_and_body(header: str | None, body: object) -> None:
    assert _sane_wait(numbers.retry_after(header, body, now=1_800_000_000.0))


@settings(max_examples=300)
@given(st.one_of(st.none(), TEXT), JSON_SCALAR)
def test_a_response_retry_after_never_raises_and_never_sleeps_long(
    header: str | None, body: object
) -> None:
    raw = (header or "").encode()  # as bytes on the wire: httpx decodes them itself
    headers = [(b"Retry-After", raw)] if raw and not set(raw) & {10, 13, 0} else []
    try:
        content = json.dumps({"retry_after": body}).encode()
    except ValueError:
        content = b"{}"
    wait = retry_after_seconds(httpx.Response(503, headers=headers, content=content))
    assert _sane_wait(wait)
    delay = RetryPolicy().delay(0, wait)
    assert math.isfinite(delay) and 0 <= delay <= 60


@pytest.mark.parametrize("value", [math.nan, math.inf, -1.0])
def test_the_retry_policy_ignores_a_non_finite_hint(value: float) -> None:
    """Belt and braces: even a NaN handed straight to the policy is no sleep of NaN."""
    delay = RetryPolicy().delay(0, value)
    assert math.isfinite(delay) and delay >= 0


@settings(max_examples=300)
@given(JSON_SCALAR, JSON_SCALAR)
def test_times_of_an_ask_are_a_time_or_absent(expires_at: object, updated_at: object) -> None:
    left = seconds_left({"updated_at": updated_at}, expires_at, now=1_800_000_000.0)  # type: ignore[arg-type]
    assert left is None or (isinstance(left, int) and left >= 0)
    stamp = numbers.instant(expires_at)
    assert stamp is None or math.isfinite(stamp)


@settings(max_examples=300)
@given(TEXT)
def test_http_dates_are_a_time_or_absent(text: str) -> None:
    stamp = numbers.http_date(text)
    assert stamp is None or math.isfinite(stamp)


@settings(max_examples=300)
@given(TEXT)
def test_a_billing_amount_is_money_or_absent(amount: str) -> None:
    atomic = Billing.parse(f"status=charged; amount_usd={amount}").amount_atomic
    assert atomic is None or (isinstance(atomic, int) and atomic >= 0)


@settings(max_examples=300)
@given(TEXT)
def test_usd_amounts_are_exact_or_refused(text: str) -> None:
    try:
        atomic = usd_to_atomic(text)
    except AmountError:
        return
    assert atomic >= 0


@settings(max_examples=300)
@given(JSON_SCALAR)
def test_an_amount_is_shown_short_whatever_it_is(amount: Any) -> None:
    assert len(usd(amount)) < 200


@settings(max_examples=300)
@given(JSON_SCALAR)
def test_a_manifest_price_is_a_price_or_absent(price: object) -> None:
    manifest = {"prices": [{"service": "tasks", "meter": "task", "priceUsd": price}]}
    found = task_price(manifest)
    assert found is None or (found.is_finite() and found >= 0 and found.adjusted() < 80)


@settings(max_examples=300)
@given(JSON_SCALAR, JSON_SCALAR)
def test_x402_amounts_are_integers_or_a_refused_challenge(amount: object, timeout: object) -> None:
    entry = {
        "scheme": "exact",
        "network": "eip155:8453",
        "amount": amount,
        "asset": "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
        "payTo": "0x" + "ab" * 20,
        "maxTimeoutSeconds": timeout,
        "extra": {"name": "USD Coin", "version": "2"},
    }
    doc = {"x402Version": 2, "accepts": [entry], "resource": {"url": "http://127.0.0.1/x"}}
    with contextlib.suppress(X402Error):  # a refused challenge: nothing signed
        parse_challenge({}, json.dumps(doc).encode())
