"""Unit tests of the core parts: models, errors, policy, ledger, secret store, HTTP retries."""

from __future__ import annotations

import json
import os
import stat
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest
from pytest_httpx import HTTPXMock
from tests.fakes import MemoryPins

from svc.api.http import Http
from svc.api.models import InfoRequest, QuoteRequest, TaskDetail
from svc.api.response import expect_json, expect_status
from svc.api.retry import RetryPolicy
from svc.api.status import error_from_response
from svc.engines.asks import Asked, read_ask
from svc.engines.reply import body_for, check_field_values
from svc.errors import ExitCode, ProtocolError, SvcError, UsageError
from svc.origin import TrustedURL, configured
from svc.pay.offer import Offer, x402_offers
from svc.pay.policy import PaymentPolicy, PolicyRefusal
from svc.pay.x402 import PaymentRequirements
from svc.replies import Value
from svc.settings import positive_seconds, usd_amount
from svc.store.ledger import ACCEPTED, Ledger, PayState
from svc.store.secrets import FileBackend, SecretFileError


def url(text: str) -> TrustedURL:
    """A test URL through the origin gate, as every URL svc sends to."""
    return configured(text, "the test URL")


USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"


# --- models ---------------------------------------------------------------------------------


TASK_DOC: dict[str, Any] = {
    "id": "t",
    "state": "pending",
    "goal": "g",
    "flow": None,
    "max_budget_usd": None,
    "webhook_url": None,
    "result": None,
    "error": None,
    "created_at": "x",
    "updated_at": "x",
    "completed_at": None,
}


def test_task_detail_keeps_unknown_states_event_types_and_members() -> None:
    doc = {
        **TASK_DOC,
        "state": "paused_by_moon",
        "future_member": 1,
        "events": [{"id": "e", "type": "teleported", "created_at": "x", "payload": {}}],
    }
    task = TaskDetail.model_validate(doc)
    assert task.state == "paused_by_moon" and task.events[0].type == "teleported"
    assert task.model_extra == {"future_member": 1}


@pytest.mark.parametrize("budget", ["0", "1", "123456789", "1.5", "0.000001"])
def test_quote_budget_pattern_accepts(budget: str) -> None:
    QuoteRequest(goal="g", budgetUsd=budget)


@pytest.mark.parametrize("budget", ["01", "1234567890", "1.", "1.0000001", "-1", "1e3"])
def test_quote_budget_pattern_refuses(budget: str) -> None:
    with pytest.raises(ValueError):
        QuoteRequest(goal="g", budgetUsd=budget)


def test_quote_forbids_unknown_fields_and_out_of_range_integers() -> None:
    with pytest.raises(ValueError):
        QuoteRequest(goal="g", colour="red")  # type: ignore[call-arg]
    with pytest.raises(ValueError):
        QuoteRequest(goal="g", quantity=0)
    with pytest.raises(ValueError):
        QuoteRequest(goal="g", quantity=True)  # type: ignore[arg-type]


def test_info_request_required_keys_are_fields_then_questions() -> None:
    ask = InfoRequest(requested_fields=["a", "b"], questions=[{"key": "c"}, {"key": "a"}])  # type: ignore[list-item]
    assert ask.required_keys() == ["a", "b", "c"]
    asked = Asked("t", "blocked_on_user", plain=False, keys=tuple(ask.required_keys()))
    with pytest.raises(Exception, match="missing c"):
        check_field_values(asked, {"a": "1", "b": "2"})
    check_field_values(asked, {"a": "1", "b": "2", "c": "3"})


def test_plain_ask_reply_marks_the_value_sensitive_when_the_ask_says_so() -> None:
    task = TaskDetail.model_validate(
        {
            **TASK_DOC,
            "state": "blocked_on_user",
            "events": [
                {
                    "id": "e",
                    "type": "input_requested",
                    "created_at": "x",
                    "payload": {"field": "sms_code", "sensitive": True},
                }
            ],
        }
    )
    body = body_for(read_ask(task), Value("123456", "sms_code"))
    assert body == {"field": "sms_code", "value": "123456", "sensitive": True}


# --- errors ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "body", "exit_code", "code"),
    [
        (
            400,
            {"error": "invalid_request", "detail": "malformed e-mail address"},
            ExitCode.USAGE,
            "invalid_request",
        ),
        (
            401,
            {"error": "invalid_token", "reason": "token_expired"},
            ExitCode.AUTH,
            "invalid_token",
        ),
        (401, {"error": "bearer_required"}, ExitCode.AUTH, "bearer_required"),
        (
            402,
            {"error": "settlement_failed", "settlementReason": "insufficient_funds"},
            ExitCode.PAYMENT,
            "settlement_failed",
        ),
        (404, {"error": "not_found"}, ExitCode.NOT_FOUND, "not_found"),
        (409, {"error": "conflict"}, ExitCode.CONFLICT, "conflict"),
        (410, {"error": "ask_expired"}, ExitCode.CONFLICT, "ask_expired"),
        (
            422,
            {"detail": [{"loc": ["body", "task"], "msg": "too short", "type": "x"}]},
            ExitCode.USAGE,
            "validation_error",
        ),
        (
            429,
            {"error": "rate_limit_exceeded", "retry_after": 3},
            ExitCode.UNAVAILABLE,
            "rate_limit_exceeded",
        ),
        (503, None, ExitCode.UNAVAILABLE, "http_503"),
        (418, {"error": "teapot"}, ExitCode.ERROR, "teapot"),
    ],
)
def test_error_mapping(status: int, body: object, exit_code: ExitCode, code: str) -> None:
    err = error_from_response(status, json.dumps(body).encode() if body else b"<html>", "submit")
    assert err.exit_code == exit_code and err.code == code
    assert f"HTTP {status}" in err.message


def test_validation_body_is_described_in_words() -> None:
    body = {
        "detail": [
            {
                "loc": ["body", "email"],
                "msg": "String should have at least 3 characters",
                "type": "x",
            }
        ]
    }
    err = error_from_response(422, json.dumps(body).encode(), "submit")
    assert "email: String should have at least 3 characters" in err.message


# --- HTTP ------------------------------------------------------------------------------------


def _http() -> Http:
    return Http(retry=RetryPolicy(attempts=3, base=0), sleep=lambda _s: None)


def test_reads_retry_5xx_then_succeed(httpx_mock: HTTPXMock) -> None:
    httpx_mock.add_response(status_code=502)
    httpx_mock.add_response(json={"ok": True})
    assert _http().get_json(url("http://svc.test/x"), what="read") == {"ok": True}


def test_mutations_are_not_resent_after_an_ambiguous_failure(httpx_mock: HTTPXMock) -> None:
    httpx_mock.add_exception(httpx.ReadError("reset"))
    with pytest.raises(Exception, match="may or may not have been applied") as info:
        _http().send("POST", url("http://svc.test/reply"), what="reply", resend_safe=False)
    assert info.value.exit_code == ExitCode.UNAVAILABLE  # type: ignore[attr-defined]
    assert len(httpx_mock.get_requests()) == 1


def test_retry_after_header_is_honoured(httpx_mock: HTTPXMock) -> None:
    slept: list[float] = []
    http = Http(retry=RetryPolicy(attempts=2), sleep=slept.append)
    httpx_mock.add_response(status_code=429, headers={"Retry-After": "7"})
    httpx_mock.add_response(json={})
    http.get_json(url("http://svc.test/x"), what="read")
    assert slept == [7.0]


def test_malformed_json_and_wrong_content_type_are_one_clear_error(httpx_mock: HTTPXMock) -> None:
    httpx_mock.add_response(content=b'{"id": ', headers={"content-type": "application/json"})
    with pytest.raises(Exception, match="malformed JSON"):
        expect_json(
            _http().send("GET", url("http://svc.test/x"), what="poll", resend_safe=True), "poll"
        )
    httpx_mock.add_response(content=b"<html>", headers={"content-type": "text/html"})
    with pytest.raises(Exception, match="text/html instead of JSON"):
        expect_json(
            _http().send("GET", url("http://svc.test/x"), what="poll", resend_safe=True), "poll"
        )


def test_expect_status_returns_raises_the_contracts_error_or_calls_it_a_protocol_error() -> None:
    """One check of an expected status (issue 23.3): the expected one comes back; an error
    status is the contract's error for its code; any other status is not what the spec says."""
    request = httpx.Request("POST", "http://svc.test/svc/tasks")

    def answer(status: int, body: bytes = b"") -> httpx.Response:
        headers = {"content-type": "application/json"}
        return httpx.Response(status, content=body, headers=headers, request=request)

    challenge = answer(402)
    assert expect_status(challenge, "probe", ok=(402,)) is challenge
    with pytest.raises(SvcError) as refused:
        expect_status(answer(404, b'{"error": "payment_unknown"}'), "probe", ok=(402,))
    assert refused.value.exit_code == ExitCode.PAYMENT and refused.value.code == "payment_unknown"
    assert refused.value.message == "probe failed: HTTP 404 payment_unknown"
    with pytest.raises(ProtocolError) as odd:
        expect_status(answer(204), "manifest")
    assert odd.value.message == "manifest: the service answered 204, not 200"
    assert odd.value.exit_code == ExitCode.ERROR


# --- policy ---------------------------------------------------------------------------------


def offer(
    amount: int = 1_500_000,
    network: str = "eip155:8453",
    asset: str = USDC,
    pay_to: str = "0x" + "11" * 20,
) -> Offer:
    raw = {
        "scheme": "exact",
        "network": network,
        "amount": str(amount),
        "asset": asset,
        "payTo": pay_to,
        "maxTimeoutSeconds": 300,
        "extra": {"name": "USD Coin", "version": "2"},
    }
    return x402_offers([PaymentRequirements.from_entry(raw, 2)])[0]


def policy(pins: MemoryPins | None = None, cap: str = "1.50") -> PaymentPolicy:
    return PaymentPolicy(Decimal(cap), ["eip155:8453"], [USDC], pins or MemoryPins())


def test_policy_checks_price_network_asset_and_pins_recipient() -> None:
    pins = MemoryPins()
    chosen = policy(pins).decide([offer()])
    policy(pins).pin(chosen)
    with pytest.raises(PolicyRefusal, match="above the limit"):
        policy(pins).decide([offer(amount=1_500_001)])
    with pytest.raises(PolicyRefusal, match="network eip155:1 is not allowed"):
        policy(pins).decide([offer(network="eip155:1")])
    with pytest.raises(PolicyRefusal, match="is not an allowed asset"):
        policy(pins).decide([offer(asset="0x" + "99" * 20)])
    with pytest.raises(PolicyRefusal, match="recipient changed"):
        policy(pins).decide([offer(pay_to="0x" + "22" * 20)])


def test_policy_picks_the_first_acceptable_offer() -> None:
    chosen = policy().decide([offer(network="eip155:1"), offer(amount=1_000_000)])
    assert chosen.amount_atomic == 1_000_000


# --- ledger and secrets -----------------------------------------------------------------------


def test_ledger_journals_a_proof_and_survives_reopening(tmp_path: Path) -> None:
    path = tmp_path / "ledger.sqlite3"
    ledger = Ledger(path)
    ledger.journal("req_1", "http://s:80", "a@b.c", {"task": "t", "email": "a@b.c"})
    ledger.record_signature(
        "req_1",
        rail="x402",
        proof="P",
        fingerprint="fp",
        amount_atomic=1,
        pay_to="0x",
        payer="0x",
        network="n",
        asset="a",
        valid_before=None,
        origin="http://s:80",
    )
    ledger.close()
    again = Ledger(path)
    row = again.get("req_1")
    assert row is not None and row.status == PayState.SIGNED and row.proof == "P"
    again.mark_accepted(
        "req_1",
        task_id="t1",
        state="pending",
        http_status=202,
        billing=None,
        receipt=None,
        usage_error=None,
    )
    updated = again.get("req_1")
    assert updated is not None and updated.task_id == "t1" and updated.status == ACCEPTED
    assert [a.status for a in again.authorizations()] == ["spent"]
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600


def test_file_secret_store_is_private_and_refuses_loose_permissions(tmp_path: Path) -> None:
    store = FileBackend(tmp_path / "secrets.json")
    store.set("wallet_key", "0xsecret")
    assert stat.S_IMODE(os.stat(store.path).st_mode) == 0o600
    assert store.get("wallet_key") == "0xsecret"
    os.chmod(store.path, 0o644)
    with pytest.raises(SecretFileError, match="readable by other users"):
        store.get("wallet_key")
    os.chmod(store.path, 0o600)
    link = tmp_path / "link.json"
    link.symlink_to(store.path)
    with pytest.raises(SecretFileError, match="symbolic link"):
        FileBackend(link).get("wallet_key")


@pytest.mark.parametrize("raw", ["1.50", "2", "0", 1.5, 20])
def test_usd_amount_accepts_finite_non_negative_amounts(raw: object) -> None:
    assert usd_amount("cap", raw) == Decimal(str(raw).strip())


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("much", "cap must be a USD amount like 1.50, got 'much'"),
        ("1e2", "cap must be a USD amount like 1.50, got '1e2'"),  # issue 29.6: no exponent
        ("1_0", "cap must be a USD amount like 1.50, got '1_0'"),
        (True, "cap must be a USD amount like 1.50, got True"),
        ("nan", "cap must be a non-negative USD amount, got 'nan'"),
        ("-Infinity", "cap must be a non-negative USD amount, got '-Infinity'"),
        ("-0.01", "cap must be a non-negative USD amount, got '-0.01'"),
    ],
)
def test_usd_amount_refuses_with_one_clear_message(raw: object, message: str) -> None:
    with pytest.raises(UsageError) as caught:
        usd_amount("cap", raw)
    assert caught.value.message == message
    assert caught.value.exit_code == ExitCode.USAGE


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("soon", "every must be a number of seconds, got 'soon'"),
        ("0", "every must be positive seconds, got '0'"),
        (-1.0, "every must be positive seconds, got -1.0"),
        ("nan", "every must be positive seconds, got 'nan'"),
        ("inf", "every must be positive seconds, got 'inf'"),
    ],
)
def test_positive_seconds_refuses_with_one_clear_message(raw: object, message: str) -> None:
    assert positive_seconds("every", " 2.5 ") == 2.5
    with pytest.raises(UsageError) as caught:
        positive_seconds("every", raw)
    assert caught.value.message == message


def test_a_task_id_from_the_server_must_be_an_id() -> None:
    from svc.api.answers import require_task_shape
    from svc.errors import ProtocolError

    for bad in ("..", ".", "a/b", "", "x" * 300, "task\x1b]0;t\x07"):
        with pytest.raises(ProtocolError):
            require_task_shape({"id": bad, "state": "pending"}, "submit")
    assert require_task_shape({"id": "task_1", "state": "pending"}, "submit")["id"] == "task_1"


def test_help_format_install_is_idempotent() -> None:
    """main() may run twice in one process: the help patch must not wrap itself."""
    from typer.core import _TyperParameter

    from svc.cli.help_format import install

    install()
    first = _TyperParameter.display_type
    install()
    assert _TyperParameter.display_type is first
