"""The one paid path (issue 17): every rail billed alike, SDK-shaped receipts, misplaced proofs.

In-process against the sandbox app; proofs and credentials are made with the payment
protocols' own client code (pympp's stripe client method, the x402 SDK's models), not ours.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sandbox_proofs import BODY, PRICE, sign_proof

Submit = Callable[..., Any]
_BILLING = re.compile(
    r"^status=(charged|replayed|refunded); method=(x402|mpp|card); amount_usd=(\d+\.\d{6}); "
    r"payment_id=(pay_[0-9a-f]{16})$"
)


def _unpaid(client: TestClient, task: str = BODY["task"], **headers: str) -> Any:
    return client.post("/svc/tasks", json={**BODY, "task": task}, headers=headers)


def _mpp_credential(challenge_402: Any, spt: str) -> str:
    """pympp's own stripe client method answers the 402's Payment challenge."""
    from mpp import Challenge
    from mpp.methods.stripe.client import StripeMethod

    async def token(_params: Any) -> str:
        return spt

    challenge = Challenge.from_www_authenticate(challenge_402.headers["WWW-Authenticate"])
    method = StripeMethod(create_token=token, payment_method="pm_card_visa")
    return asyncio.run(method.create_credential(challenge)).to_authorization()


def _paid_headers(
    client: TestClient, rail: str, payer: Any, task: str, request_id: str
) -> dict[str, str]:
    """The headers of a paid submit on `rail`, as its client would make them."""
    headers = {"svc-request-id": request_id}
    if rail == "x402":
        headers["x-payment"] = sign_proof(payer)
    elif rail == "mpp":
        spt = f"spt_test_{request_id}"
        headers["Authorization"] = _mpp_credential(_unpaid(client, task), spt)
    else:
        payment_id = _unpaid(client, task).json()["payment"]["id"]
        client.post(f"/_sandbox/payments/{payment_id}", json={"status": "paid"})
        headers["svc-payment-id"] = payment_id
    return headers


def _pay(client: TestClient, rail: str, payer: Any, task: str, request_id: str) -> Any:
    headers = _paid_headers(client, rail, payer, task, request_id)
    return client.post("/svc/tasks", json={**BODY, "task": task}, headers=headers)


RAILS = ["x402", "mpp", "card"]


@pytest.mark.parametrize("rail", RAILS)
def test_every_rail_bills_and_replays_through_the_same_header(
    client: TestClient, payer: Any, rail: str
) -> None:
    headers = _paid_headers(client, rail, payer, BODY["task"], f"req-bill-{rail}")
    first = client.post("/svc/tasks", json=BODY, headers=headers)
    assert first.status_code == 202, first.text
    status, method, amount, payment_id = _BILLING.match(first.headers["svc-billing"]).groups()  # type: ignore[union-attr]
    assert (status, method, amount) == ("charged", rail, "1.500000")
    [charge] = client.get("/_sandbox/books").json()["charges"]
    assert charge["id"] == payment_id and charge["method"] == rail
    assert charge["task_id"] == first.json()["id"] and charge["amount_atomic"] == PRICE
    again = client.post("/svc/tasks", json=BODY, headers=headers)  # a retry: the same proof
    assert again.status_code == 202 and again.json()["id"] == first.json()["id"]
    assert again.headers["svc-billing"] == first.headers["svc-billing"].replace(
        "status=charged", "status=replayed"
    )
    assert len(client.get("/_sandbox/books").json()["charges"]) == 1


@pytest.mark.parametrize("rail", RAILS)
def test_a_usage_error_fault_marks_a_served_answer_on_every_rail(
    client: TestClient, payer: Any, rail: str
) -> None:
    client.post("/_sandbox/payment-faults", json={"faults": [{"code": "usage_error"}]})
    response = _pay(client, rail, payer, BODY["task"], f"req-usage-{rail}")
    assert response.status_code == 202, response.text
    assert response.headers["svc-usage-error"] == "invalid_usage_header"
    assert client.get("/_sandbox/payment-faults").json() == {"faults": []}


@pytest.mark.parametrize(("rail", "refunded"), [("x402", False), ("mpp", True), ("card", True)])
def test_fail_delivery_refunds_the_card_rails_only(
    client: TestClient, payer: Any, rail: str, refunded: bool
) -> None:
    task = "Fragile #fail-delivery"
    headers = _paid_headers(client, rail, payer, task, f"req-fragile-{rail}")
    response = client.post("/svc/tasks", json={**BODY, "task": task}, headers=headers)
    books = client.get("/_sandbox/books").json()
    # docs/guide/sandbox.md: MPP and card (an on-chain refund would be a new transfer)
    if not refunded:
        assert response.status_code == 202 and books["refunds"] == []
        return
    assert response.status_code == 502 and response.json()["error"] == "upstream_error"
    assert response.headers["svc-billing"].startswith(f"status=refunded; method={rail}; ")
    [charge], [refund] = books["charges"], books["refunds"]
    assert refund["charge_id"] == charge["id"] and charge["task_id"] is None
    again = client.post("/svc/tasks", json={**BODY, "task": task}, headers=headers)
    assert (again.status_code, again.headers["svc-billing"]) == (
        502,
        response.headers["svc-billing"],
    )
    assert len(client.get("/_sandbox/books").json()["charges"]) == 1


def test_a_spent_card_payment_is_consumed_and_cannot_pay_again(
    client: TestClient, payer: Any
) -> None:
    payment_id = _unpaid(client).json()["payment"]["id"]
    client.post(f"/_sandbox/payments/{payment_id}", json={"status": "paid"})
    paid = {"svc-payment-id": payment_id}
    first = client.post("/svc/tasks", json=BODY, headers={**paid, "svc-request-id": "req-c1"})
    assert first.status_code == 202
    assert client.get(f"/_sandbox/payments/{payment_id}").json()["status"] == "consumed"
    other = client.post("/svc/tasks", json=BODY, headers={**paid, "svc-request-id": "req-c2"})
    assert (other.status_code, other.json()["error"]) == (402, "payment_consumed")


# --- receipts, as the official x402 SDK reads them -----------------------------------------


def _sdk_receipt(response: Any) -> Any:
    from x402 import x402ClientSync
    from x402.http import x402HTTPClientSync

    http = x402HTTPClientSync(x402ClientSync())
    return http.get_payment_settle_response(response.headers.get)


@pytest.mark.parametrize("version", [1, 2])
def test_receipts_parse_with_the_official_sdk(
    client: TestClient, submit: Submit, payer: Any, version: int
) -> None:
    from x402.http.utils import decode_payment_response_header

    network = "base-sepolia" if version == 1 else "eip155:84532"  # the sandbox's test network
    ours, other = ("X-PAYMENT-RESPONSE", "PAYMENT-RESPONSE")[:: 1 if version == 1 else -1]
    ok = submit(x402_version=version, network=network, request_id=f"req-r-ok-{version}")
    assert ok.status_code == 202, ok.text
    failed = submit(
        x402_version=version, network=network, value=PRICE - 1, request_id=f"req-r-no-{version}"
    )
    assert failed.status_code == 402 and failed.json()["settlementReason"] == "invalid_amount"
    for response in (ok, failed):
        assert ours in response.headers and other not in response.headers
        assert decode_payment_response_header(response.headers[ours]) == _sdk_receipt(response)
    settled, refused = _sdk_receipt(ok), _sdk_receipt(failed)
    assert settled.success is True and re.fullmatch(r"0x[0-9a-f]{64}", settled.transaction)
    assert (settled.payer, settled.network) == (payer.address, network)
    assert refused.success is False and refused.transaction == ""
    assert (refused.error_reason, refused.payer) == ("invalid_amount", payer.address)


# --- a proof in a header this endpoint does not read -----------------------------------------


def test_a_task_proof_in_payment_signature_is_refused_with_the_header_to_use(
    client: TestClient, payer: Any
) -> None:
    response = _unpaid(client, **{"PAYMENT-SIGNATURE": sign_proof(payer)})
    assert response.status_code == 402
    detail = response.json()["detail"]
    assert detail.startswith("Task fee: 1.500000 USD per submitted task.")
    assert "Payment-Signature header, which this endpoint does not read" in detail
    assert detail.endswith("send it in the x-payment header.")
    assert "PAYMENT-REQUIRED" in response.headers  # still a genuine, payable challenge
    assert client.get("/_sandbox/books").json()["charges"] == []  # strict: nothing charged
    plain = _unpaid(client).json()["detail"]
    assert plain == "Task fee: 1.500000 USD per submitted task."


def test_a_free_call_proof_in_the_wrong_header_is_named_on_poll_and_advisor(
    client: TestClient, submit: Submit, payer: Any
) -> None:
    task_id = submit().json()["id"]
    client.post("/_sandbox/config", json={"require_agent": True})
    zero = sign_proof(payer, value=0)
    poll = client.get(f"/svc/tasks/{task_id}", headers={"Payment-Signature": zero})
    assert poll.status_code == 402
    assert poll.json()["detail"].endswith("send it in the x-payment header.")
    assert client.get(f"/svc/tasks/{task_id}", headers={"x-payment": zero}).status_code == 200
    quote = {"goal": "Book a table", "quantity": 1}
    advisor = client.post("/svc/agent/quote", json=quote, headers={"x-payment": zero})
    assert advisor.status_code == 402
    assert advisor.json()["detail"].endswith("send it in the Payment-Signature header.")
    right = client.post("/svc/agent/quote", json=quote, headers={"Payment-Signature": zero})
    assert right.status_code == 200, right.text


# --- the fault queues: one model per fault kind --------------------------------------------


@pytest.mark.parametrize(
    ("path", "fault"),
    [
        ("/faults", {"kind": "status", "nope": 1}),
        ("/faults", {"kind": "earthquake"}),
        ("/faults", {"kind": "status", "count": 0}),
        ("/faults", {"kind": "status", "status": 99}),
        ("/payment-faults", {"code": "payment_lost"}),
        ("/payment-faults", {"code": "payment_failed", "rail": "cash"}),
        ("/payment-faults", {"code": "payment_failed", "extra": True}),
    ],
)
def test_fault_admin_refuses_what_the_fault_model_does_not_allow(
    client: TestClient, path: str, fault: dict[str, Any]
) -> None:
    response = client.post(f"/_sandbox{path}", json={"faults": [fault]})
    assert response.status_code == 422, response.text
    assert client.get(f"/_sandbox{path}").json() == {"faults": []}


def test_fault_admin_lists_faults_with_their_defaults_and_uses_them_up(
    client: TestClient, payer: Any
) -> None:
    fault = {"code": "payment_failed", "rail": "x402", "count": 2}
    listed = client.post("/_sandbox/payment-faults", json={"faults": [fault]}).json()
    assert listed == {"faults": [{**fault, "reason": None, "retry_after": None}]}
    for n in range(2):
        answer = _pay(client, "x402", payer, BODY["task"], f"req-pf-{n}")
        assert (answer.status_code, answer.json()["error"]) == (402, "payment_failed")
    assert _pay(client, "x402", payer, BODY["task"], "req-pf-3").status_code == 202
    transport = client.post("/_sandbox/faults", json={"faults": [{"kind": "delay"}]}).json()
    assert transport["faults"][0] == {
        "kind": "delay",
        "method": None,
        "path": None,
        "count": 1,
        "status": None,
        "retry_after": None,
        "seconds": None,
        "header": None,
        "size_bytes": None,
        "detail": None,
        "code": None,
        "reason": None,
    }
