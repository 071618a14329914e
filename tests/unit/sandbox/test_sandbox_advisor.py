"""The sandbox's free advisor: statuses from goal tags, the zero-amount proof, 503, the guide."""

from __future__ import annotations

from typing import Any

import pytest
from eth_account.signers.local import LocalAccount
from fastapi.testclient import TestClient
from sandbox_proofs import b64json, sign_proof

QUOTE = "/svc/agent/quote"


def _quote(client: TestClient, payer: LocalAccount, body: dict[str, Any], **sign: Any) -> Any:
    proof = sign_proof(payer, value=0, **sign)
    return client.post(QUOTE, json=body, headers={"Payment-Signature": proof})


def test_unpaid_quote_is_a_zero_amount_402(client: TestClient) -> None:
    response = client.post(QUOTE, json={"goal": "Book a table"})
    assert response.status_code == 402
    challenge = b64json(response.headers["PAYMENT-REQUIRED"])
    assert challenge["accepts"][0]["amount"] == "0"


@pytest.mark.parametrize(
    ("goal", "status"),
    [
        ("Book a table", "quoted"),
        ("Book a table #quoted", "quoted"),
        ("Book a table #ready", "ready"),
        ("Book a table #needs-input", "needs_input"),
        ("Book a table #BLOCKED", "blocked"),
        ("Book a table #unknown", "unknown"),
        ("Book a table #unsupported", "unsupported"),
        ("Book a table #unavailable", "unavailable"),
    ],
)
def test_statuses_follow_goal_tags(
    client: TestClient, payer: LocalAccount, goal: str, status: str
) -> None:
    response = _quote(client, payer, {"goal": goal})
    assert response.status_code == 200, response.text
    body = response.json()
    assert set(body) == {"status", "priceUsd", "guide", "guideUrl"}
    assert body["status"] == status and body["priceUsd"] == "0"
    assert body["guide"].startswith(f"# Quote: {status}")
    assert body["guideUrl"].startswith("http://testserver/svc/agent/guide?goal=")


def test_short_budget_blocks(client: TestClient, payer: LocalAccount) -> None:
    body = {"goal": "Renew books", "quantity": 2, "budgetUsd": "2.5"}
    assert _quote(client, payer, body).json()["status"] == "blocked"
    exact = {"goal": "Renew books", "quantity": 2, "budgetUsd": "3"}
    assert _quote(client, payer, exact).json()["status"] == "quoted"
    exclusive = {**exact, "budgetExclusive": True}
    assert _quote(client, payer, exclusive).json()["status"] == "blocked"


def test_a_quote_charges_nothing_and_consumes_no_nonce(
    client: TestClient, payer: LocalAccount
) -> None:
    nonce = "0x" + "11" * 32
    for _ in range(2):
        assert _quote(client, payer, {"goal": "x"}, nonce=nonce).status_code == 200
    books = client.get("/_sandbox/books").json()
    assert books == {"charges": [], "refunds": [], "settlement_failures": []}


def test_a_non_zero_proof_does_not_settle(client: TestClient, payer: LocalAccount) -> None:
    proof = sign_proof(payer, value=10)
    response = client.post(QUOTE, json={"goal": "x"}, headers={"Payment-Signature": proof})
    assert response.status_code == 402
    assert response.json()["settlementReason"] == "invalid_amount"


def test_garbage_proof_is_400_naming_the_header(client: TestClient) -> None:
    response = client.post(QUOTE, json={"goal": "x"}, headers={"Payment-Signature": "!!"})
    assert response.status_code == 400
    assert "Payment-Signature" in response.json()["detail"]


def test_advisor_down_tag_is_503_before_any_proof(client: TestClient) -> None:
    response = client.post(QUOTE, json={"goal": "x #advisor-down"})
    assert response.status_code == 503
    assert response.json()["error"] == "advisor_unavailable"


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"goal": ""},
        {"goal": "x" * 2001},
        {"goal": "x", "quantity": 0},
        {"goal": "x", "quantity": 1_000_001},
        {"goal": "x", "quantity": "5"},
        {"goal": "x", "quantity": 1.5},
        {"goal": "x", "reviewAfterCalls": 0},
        {"goal": "x", "budgetUsd": "01"},
        {"goal": "x", "budgetUsd": "1.1234567"},
        {"goal": "x", "budgetUsd": 1},
        {"goal": "x", "requirements": ""},
        {"goal": "x", "requirements": "r" * 301},
        {"goal": "x", "payment": "cash"},
        {"goal": "x", "humanAvailable": "yes"},
        {"goal": "x", "budgetExclusive": 1},
        {"goal": "x", "extra": 1},
    ],
)
def test_invalid_bodies_are_422(client: TestClient, body: dict[str, Any]) -> None:
    response = client.post(QUOTE, json=body)
    assert response.status_code == 422
    assert isinstance(response.json()["detail"], list)


def test_integral_floats_count_as_integers(client: TestClient, payer: LocalAccount) -> None:
    assert _quote(client, payer, {"goal": "x", "quantity": 3.0}).status_code == 200


def test_guide_get_post_and_markdown(client: TestClient) -> None:
    got = client.get("/svc/agent/guide", params={"goal": "Book a table #ready"})
    assert got.status_code == 200 and got.json()["status"] == "ready"
    posted = client.post("/svc/agent/guide", json={"goal": "y" * 5000})
    assert posted.status_code == 200
    assert posted.json()["guideUrl"] == "http://testserver/svc/agent/guide"
    markdown = client.get(
        "/svc/agent/guide", params={"goal": "x"}, headers={"accept": "text/markdown"}
    )
    assert markdown.headers["content-type"].startswith("text/markdown")
    assert markdown.text.startswith("# Quote: quoted")
    assert client.post("/svc/agent/guide", json={"goal": "x", "more": 1}).status_code == 422


# --- a zero-amount MPP proof (issue 30.17) -------------------------------------------------


def _mpp_credential(response: Any, spt: str = "spt_test_quote") -> str:
    from svc.pay import mpp

    [challenge] = mpp.parse_challenges(response.headers.get_list("www-authenticate"))
    return mpp.credential(challenge, spt)


def test_the_quote_402_offers_mpp_for_zero_and_takes_its_credential(
    client: TestClient,
) -> None:
    body = {"goal": "Renew my books #ready"}
    first = client.post(QUOTE, json=body)
    assert first.status_code == 402 and "payment-required" in first.headers  # x402 too
    from svc.pay import mpp

    [challenge] = mpp.parse_challenges(first.headers.get_list("www-authenticate"))
    assert challenge.amount_cents == 0 and challenge.method == "stripe"
    paid = client.post(QUOTE, json=body, headers={"authorization": _mpp_credential(first)})
    assert paid.status_code == 200, paid.text
    assert paid.json()["status"] == "ready"
    books = client.get("/_sandbox/books").json()
    assert books["charges"] == [] and books["settlement_failures"] == []


def test_a_bad_mpp_credential_on_the_quote_is_refused(client: TestClient) -> None:
    body = {"goal": "x"}
    first = client.post(QUOTE, json=body)
    good = _mpp_credential(first)
    other_body = client.post(QUOTE, json={"goal": "y"}, headers={"authorization": good})
    assert (
        other_body.status_code == 409 and other_body.json()["error"] == "payment_request_mismatch"
    )
    task_402 = client.post("/svc/tasks", json={"task": "t", "email": "a@b.co"})
    fee = _mpp_credential(task_402)  # made for the 1.50 USD task fee, not for 0
    assert client.post(QUOTE, json=body, headers={"authorization": fee}).status_code == 409
    bad_token = _mpp_credential(first, spt="not_a_token")
    refused = client.post(QUOTE, json=body, headers={"authorization": bad_token})
    assert refused.status_code == 401 and refused.json()["error"] == "identity_invalid"
    malformed = client.post(QUOTE, json=body, headers={"authorization": "Payment !!!"})
    assert malformed.status_code == 400
