"""svc.telemetry's rules that need no collector: when the OTEL_ variables ask for traces,
what svc cannot send as asked, a payment's terms as attributes, and the last defence that
keeps a told secret out of every attribute value. tests/e2e/test_telemetry.py exports for real.
"""

from __future__ import annotations

import pytest

from svc import telemetry
from svc.redact import REDACTED, Vault

ENDPOINT = {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}


@pytest.mark.parametrize(
    ("env", "wanted"),
    [
        ({}, False),
        (ENDPOINT, True),
        ({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318/v1/traces"}, True),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": ""}, False),
        ({**ENDPOINT, "OTEL_SDK_DISABLED": "TRUE"}, False),
        ({**ENDPOINT, "OTEL_SDK_DISABLED": "false"}, True),
        ({**ENDPOINT, "OTEL_TRACES_EXPORTER": "none"}, False),
        ({**ENDPOINT, "OTEL_TRACES_EXPORTER": "otlp"}, True),
        ({"OTEL_SERVICE_NAME": "mine"}, False),  # a name alone sends nothing anywhere
    ],
)
def test_only_an_endpoint_asks_for_traces(env: dict[str, str], wanted: bool) -> None:
    assert telemetry.asked(env) is wanted


@pytest.mark.parametrize(
    ("env", "words"),
    [
        ({"OTEL_TRACES_EXPORTER": "console"}, "OTEL_TRACES_EXPORTER names no exporter"),
        ({"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, "OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not"),
        ({"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/json"}, "=http/json is not supported"),
    ],
)
def test_what_svc_cannot_send_is_named(env: dict[str, str], words: str) -> None:
    why = telemetry._unsupported({**ENDPOINT, **env})
    assert why is not None and words in why


def test_http_protobuf_is_what_svc_sends() -> None:
    grpc = {**ENDPOINT, "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}
    assert telemetry._unsupported(grpc)
    traces = {"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/protobuf"}
    assert telemetry._unsupported({**grpc, **traces}) is None  # the traces' own wins
    assert telemetry._unsupported(ENDPOINT) is None


def test_a_payments_amount_is_its_exact_decimal_string() -> None:
    assert telemetry.terms("x402", 1_500_000, network="eip155:8453", asset=None) == {
        "svc.payment.rail": "x402",
        "svc.payment.amount": "1.500000",
        "svc.payment.currency": "USD",
        "svc.payment.network": "eip155:8453",
        "svc.payment.asset": None,  # left out when the span takes it
    }
    assert telemetry.terms("mpp", 1)["svc.payment.amount"] == "0.000001"


def test_a_told_secret_never_stands_in_an_attribute(monkeypatch: pytest.MonkeyPatch) -> None:
    vault = Vault()
    vault.add("0192837465")
    monkeypatch.setattr(telemetry._STATE, "vaults", [vault])
    cleaned = telemetry._cleaned(
        {"a": "the code is 0192837465", "b": 192837465, "c": True, "d": None, "e": "x" * 999}
    )
    assert cleaned == {
        "a": f"the code is {REDACTED}",
        "b": REDACTED,  # the code folded back as a number is the code all the same
        "c": True,
        "e": "x" * telemetry.MAX_VALUE,
    }


def test_off_nothing_is_made() -> None:
    if telemetry.on():  # pragma: no cover - a test of this process started tracing
        pytest.skip("tracing was started in this process")
    with telemetry.span("x") as span, telemetry.payment("req_1") as paid:
        span.set({"a": 1})
        paid.failed("boom")
    assert span is telemetry.OFF and paid is telemetry.OFF
    assert telemetry.finish() is None
