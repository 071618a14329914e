"""x402 on the submit route: challenge shape, real signature checks, settlement, idempotency."""

from __future__ import annotations

import time
import types
from typing import Any

import pytest
from eth_account import Account
from eth_account.messages import encode_typed_data
from eth_utils import keccak
from fastapi.testclient import TestClient
from sandbox_proofs import BODY, PRICE, TEST_KEY, b64json, sign_proof
from tests.x402_sdk import sdk_evm_helpers

from svc_sandbox.app import create_app
from svc_sandbox.payments import x402
from svc_sandbox.state.config import BASE_USDC, DEFAULT_PAY_TO, SEPOLIA_USDC
from svc_sandbox.state.sandbox import SandboxState

VECTOR_SIGNATURE = (
    "0x370c1c44c786b248ab9c8c0642d278fb46f9b64939b1b2ae9162771775b5598764d084cf4e9798db2b6"
    "72d0d90f72a8f5cd8f448b06fe6a9f1e685c889dc2d601b"
)
VECTOR_DIGEST = "0x199a12d5f09b11dc32a4feb1873f93dfc2f69d4036cafdad1cb1b71895bb7652"
VECTOR_SIGNER = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"


def _vector_proof() -> x402.Proof:
    return x402.Proof(
        version=2,
        scheme="exact",
        network="eip155:8453",
        asset=BASE_USDC,
        pay_to=DEFAULT_PAY_TO,
        amount="10000",
        domain_name="USD Coin",
        domain_version="2",
        signature=VECTOR_SIGNATURE,
        authorization=x402.Authorization(
            from_=VECTOR_SIGNER,
            to=DEFAULT_PAY_TO,
            value=10000,
            valid_after=1740671489,
            valid_before=1740672154,
            nonce="0x" + "ab" * 32,
        ),
    )


def test_public_test_vector_recovers_its_signer() -> None:
    proof = _vector_proof()
    message = x402.typed_data(proof, 8453)
    signable = encode_typed_data(full_message=message)
    digest = keccak(b"\x19" + signable.version + signable.header + signable.body)
    assert "0x" + digest.hex() == VECTOR_DIGEST
    assert x402.recover_signer(message, VECTOR_SIGNATURE) == VECTOR_SIGNER
    assert x402.verify_signature(proof) == VECTOR_SIGNER
    assert Account.from_key(TEST_KEY).address == VECTOR_SIGNER


def test_test_vector_with_wrong_domain_name_is_identity_invalid() -> None:
    proof = _vector_proof()
    wrong = x402.Proof(**{**proof.__dict__, "domain_name": "USDC"})
    with pytest.raises(x402.PaymentError) as caught:
        x402.verify_signature(wrong)
    assert caught.value.status == 401
    assert caught.value.body["error"] == "identity_invalid"


def test_unpaid_submit_gets_v2_challenge(client: TestClient) -> None:
    response = client.post("/svc/tasks", json=BODY)
    assert response.status_code == 402
    body = response.json()
    assert body["error"] == "payment_required"
    assert body["payment"]["amountUsd"] == "1.500000"
    assert body["payment"]["currency"] == "USD"
    assert body["payment"]["id"].startswith("pay_")
    assert set(body["card"]) == {"payUrl", "statusUrl"}
    required = b64json(response.headers["PAYMENT-REQUIRED"])
    assert required["x402Version"] == 2
    assert required["resource"]["url"].endswith("/svc/tasks")
    assert required["accepts"] == [
        {
            "scheme": "exact",
            "network": "eip155:84532",  # Base Sepolia: test money by default
            "amount": "1500000",
            "asset": SEPOLIA_USDC,
            "payTo": DEFAULT_PAY_TO,
            "maxTimeoutSeconds": 300,
            "extra": {"name": "USDC", "version": "2"},  # Sepolia USDC's own EIP-712 name
        }
    ]
    assert client.get("/_sandbox/books").json()["charges"] == []


def test_v1_config_puts_the_challenge_in_the_body(client: TestClient) -> None:
    client.post("/_sandbox/config", json={"x402_version": 1})
    response = client.post("/svc/tasks", json=BODY)
    assert response.status_code == 402
    assert "PAYMENT-REQUIRED" not in response.headers
    body = response.json()
    assert body["x402Version"] == 1
    (entry,) = body["accepts"]
    assert entry["network"] == "base-sepolia"
    assert entry["maxAmountRequired"] == "1500000"
    assert entry["payTo"] == DEFAULT_PAY_TO
    assert entry["resource"].endswith("/svc/tasks")
    assert entry["extra"] == {"name": "USDC", "version": "2"}
    assert {"description", "mimeType", "maxTimeoutSeconds", "asset"} <= set(entry)


def test_v1_proof_is_accepted(submit: Any, payer: Any) -> None:
    response = submit(x402_version=1, network="base-sepolia")
    assert response.status_code == 202, response.text
    # v1 names its receipt header X-PAYMENT-RESPONSE; v2's name is not sent beside it
    assert b64json(response.headers["X-PAYMENT-RESPONSE"])["success"] is True
    assert "PAYMENT-RESPONSE" not in response.headers


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({"task": "", "email": "ada@example.com"}, 422),
        ({"task": "x" * 100_001, "email": "ada@example.com"}, 422),
        ({"task": "hi", "email": "ada@"}, 400),
        ({"task": "hi", "email": "ab"}, 422),
        ({"task": "hi", "email": "not-an-address"}, 400),
        ({"email": "ada@example.com"}, 422),
    ],
)
def test_validation_comes_before_payment(client: TestClient, body: Any, status: int) -> None:
    response = client.post("/svc/tasks", json=body)
    assert response.status_code == status
    if status == 400:
        assert response.json() == {"error": "invalid_request", "detail": "malformed e-mail address"}
    else:
        (item,) = response.json()["detail"]
        assert {"loc", "msg", "type"} <= set(item)


def test_signed_payment_is_charged_once(
    client: TestClient, submit: Any, payer: Any, state: SandboxState
) -> None:
    response = submit(request_id="req-1")
    assert response.status_code == 202, response.text
    task = response.json()
    assert task["state"] == "pending"
    assert task["goal"] == BODY["task"]
    assert task["max_budget_usd"] is None and task["webhook_url"] is None
    assert task["result"] is None and task["error"] is None and task["completed_at"] is None
    receipt = b64json(response.headers["PAYMENT-RESPONSE"])
    assert receipt["success"] is True
    assert receipt["payer"] == payer.address
    assert receipt["network"] == "eip155:84532"
    assert receipt["transaction"].startswith("0x") and len(receipt["transaction"]) == 66
    billing = response.headers["svc-billing"]
    assert billing.startswith("status=charged; method=x402; amount_usd=1.500000; payment_id=pay_")
    (charge,) = client.get("/_sandbox/books").json()["charges"]
    assert charge["task_id"] == task["id"]
    assert charge["request_id"] == "req-1"
    assert charge["payer"] == payer.address
    assert charge["amount_atomic"] == PRICE
    assert charge["method"] == "x402"
    assert billing.endswith(charge["id"])
    assert state.balance(payer.address) == 1_000_000_000 - PRICE
    assert state.balance(DEFAULT_PAY_TO) == 1_000_000_000 + PRICE


def test_retry_with_same_request_id_replays_without_a_second_charge(
    client: TestClient, submit: Any, payer: Any
) -> None:
    proof = sign_proof(payer)
    first = submit(request_id="req-7", proof=proof)
    again = submit(request_id="req-7", proof=proof)  # lost response: same id, same proof
    fresh_nonce = submit(request_id="req-7")  # even a freshly signed retry is not charged
    assert first.status_code == again.status_code == fresh_nonce.status_code == 202
    assert again.json()["id"] == first.json()["id"] == fresh_nonce.json()["id"]
    assert again.headers["svc-billing"].startswith("status=replayed; method=x402")
    assert len(client.get("/_sandbox/books").json()["charges"]) == 1


def test_replay_succeeds_after_the_proof_expired(client: TestClient, submit: Any) -> None:
    now = int(time.time())
    first = submit(request_id="req-old")
    expired = submit(request_id="req-old", valid_after=now - 900, valid_before=now - 60)
    assert expired.status_code == 202
    assert expired.json()["id"] == first.json()["id"]


def test_same_request_id_from_another_payer_is_a_mismatch(
    client: TestClient, submit: Any, other_payer: Any
) -> None:
    assert submit(request_id="req-9").status_code == 202
    response = submit(request_id="req-9", account=other_payer)
    assert response.status_code == 409
    assert response.json()["error"] == "payment_request_mismatch"
    assert len(client.get("/_sandbox/books").json()["charges"]) == 1


def test_reusing_a_nonce_for_another_request_fails(
    client: TestClient, submit: Any, payer: Any
) -> None:
    proof = sign_proof(payer)
    assert submit(request_id="a", proof=proof).status_code == 202
    response = submit(request_id="b", proof=proof)
    assert response.status_code == 402
    assert response.json()["settlementReason"] == "nonce_already_used"
    assert len(client.get("/_sandbox/books").json()["charges"]) == 1


def _insufficient(client: TestClient, payer: Any) -> dict[str, Any]:
    client.post(f"/_sandbox/wallets/{payer.address}", json={"balance_atomic": PRICE - 1})
    return {}


NOW = int(time.time())
SETTLEMENT_CASES = {
    "invalid_amount": lambda c, p: {"value": PRICE - 1},
    "invalid_recipient": lambda c, p: {"to": "0x" + "11" * 20},
    "invalid_asset": lambda c, p: {"asset": BASE_USDC, "name": "USD Coin"},
    "invalid_network": lambda c, p: {"network": "eip155:8453"},
    "authorization_expired": lambda c, p: {"valid_after": NOW - 900, "valid_before": NOW - 1},
    "authorization_not_yet_valid": lambda c, p: {"valid_after": NOW + 3600},
    "insufficient_funds": _insufficient,
}


@pytest.mark.parametrize("reason", sorted(SETTLEMENT_CASES))
def test_each_settlement_reason(client: TestClient, submit: Any, payer: Any, reason: str) -> None:
    sign = SETTLEMENT_CASES[reason](client, payer)
    response = submit(request_id=f"req-{reason}", **sign)
    assert response.status_code == 402, response.text
    body = response.json()
    assert body["error"] == "settlement_failed"
    assert body["settlementReason"] == reason
    receipt = b64json(response.headers["PAYMENT-RESPONSE"])
    assert receipt == {
        "success": False,
        "transaction": "",  # the SDK's SettleResponse requires it: empty, nothing settled
        "errorReason": reason,
        "network": receipt["network"],
        "payer": payer.address,
    }
    books = client.get("/_sandbox/books").json()
    assert books["charges"] == []
    assert [f["reason"] for f in books["settlement_failures"]] == [reason]
    # nothing was consumed: the request id is still free
    assert submit(request_id=f"req-{reason}").status_code == (
        402 if reason == "insufficient_funds" else 202
    )


def test_wrong_domain_name_is_identity_invalid(client: TestClient, payer: Any) -> None:
    proof = sign_proof(payer, name="USD Coin", accepted_overrides={"extra": {"name": "USDC"}})
    response = client.post("/svc/tasks", json=BODY, headers={"x-payment": proof})
    assert response.status_code == 401
    assert response.json()["error"] == "identity_invalid"


def test_tampered_value_is_identity_invalid(client: TestClient, payer: Any) -> None:
    def raise_value(proof: dict[str, Any]) -> None:
        proof["payload"]["authorization"]["value"] = "999999999"

    response = client.post(
        "/svc/tasks", json=BODY, headers={"x-payment": sign_proof(payer, tamper=raise_value)}
    )
    assert response.status_code == 401
    assert client.get("/_sandbox/books").json()["charges"] == []


@pytest.mark.parametrize(
    "header",
    [
        "not base64!",
        "e30=",  # {}
        "WzFd",  # [1]
        sign_proof(Account.create(), tamper=lambda p: p.update(x402Version=3)),
        sign_proof(Account.create(), tamper=lambda p: p["payload"].pop("signature")),
        sign_proof(
            Account.create(),
            tamper=lambda p: p["payload"]["authorization"].update(value="1.5"),
        ),
    ],
)
def test_undecodable_proof_is_invalid_request(client: TestClient, header: str) -> None:
    response = client.post("/svc/tasks", json=BODY, headers={"x-payment": header})
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_request"


def test_price_and_recipient_follow_config(client: TestClient, submit: Any) -> None:
    new_pay_to = "0x" + "22" * 20
    client.post("/_sandbox/config", json={"price_atomic": 10_000, "pay_to": new_pay_to})
    required = b64json(client.post("/svc/tasks", json=BODY).headers["PAYMENT-REQUIRED"])
    assert required["accepts"][0]["amount"] == "10000"
    assert required["accepts"][0]["payTo"] == new_pay_to
    assert "card" not in client.post("/svc/tasks", json=BODY).json()  # below 0.50 USD
    assert submit(value=10_000, to=new_pay_to).status_code == 202


def test_poll_and_reply_are_scoped_to_the_payer(
    client: TestClient, new_task: Any, payer: Any, other_payer: Any
) -> None:
    task = new_task("scoped #2fa")
    url = f"/svc/tasks/{task['id']}"
    assert client.get(url).status_code == 200  # anonymous polls are allowed by default
    owner_proof = sign_proof(payer, value=0)
    stranger_proof = sign_proof(other_payer, value=0)
    assert client.get(url, headers={"x-payment": owner_proof}).status_code == 200
    response = client.get(url, headers={"x-payment": stranger_proof})
    assert response.status_code == 404
    assert response.json()["error"] == "not_found"
    reply = client.post(
        f"{url}/reply", json={"message": "hi"}, headers={"x-payment": stranger_proof}
    )
    assert reply.status_code == 404


def test_require_agent_makes_free_calls_ask_for_a_zero_proof(
    client: TestClient, new_task: Any, payer: Any
) -> None:
    task = new_task("agent only")
    client.post("/_sandbox/config", json={"require_agent": True})
    url = f"/svc/tasks/{task['id']}"
    response = client.get(url)
    assert response.status_code == 402
    assert b64json(response.headers["PAYMENT-REQUIRED"])["accepts"][0]["amount"] == "0"
    assert client.get(url, headers={"x-payment": sign_proof(payer, value=0)}).status_code == 200
    bad = client.get(url, headers={"x-payment": sign_proof(payer, value=0, name="USD Coin")})
    assert bad.status_code == 401
    assert client.get("/_sandbox/books").json()["charges"][0]["task_id"] == task["id"]
    assert len(client.get("/_sandbox/books").json()["charges"]) == 1


def test_official_sdk_agrees_with_the_sandbox(payer: Any) -> None:
    """Peer check: a signature over the official x402 SDK's digest settles in the sandbox, on
    the production terms (a mainnet sandbox: Base, Base USDC, "USD Coin")."""
    with sdk_evm_helpers() as sdk, TestClient(create_app(network="mainnet")) as client:
        _check_sdk_against_sandbox(client, payer, sdk)


def _check_sdk_against_sandbox(client: TestClient, payer: Any, sdk: Any) -> None:
    eip712 = types.SimpleNamespace(hash_eip3009_authorization=sdk.hash_eip3009_authorization)
    types_module = types.SimpleNamespace(ExactEIP3009Authorization=sdk.Authorization)
    vector = _vector_proof().authorization
    vector_digest = eip712.hash_eip3009_authorization(
        types_module.ExactEIP3009Authorization(
            from_address=vector.from_,
            to=vector.to,
            value=str(vector.value),
            valid_after=str(vector.valid_after),
            valid_before=str(vector.valid_before),
            nonce=vector.nonce,
        ),
        8453,
        BASE_USDC,
        "USD Coin",
        "2",
    )
    assert "0x" + vector_digest.hex() == VECTOR_DIGEST

    now = int(time.time())
    authorization = types_module.ExactEIP3009Authorization(
        from_address=payer.address,
        to=DEFAULT_PAY_TO,
        value=str(PRICE),
        valid_after=str(now - 600),
        valid_before=str(now + 300),
        nonce="0x" + "cd" * 32,
    )
    digest = eip712.hash_eip3009_authorization(authorization, 8453, BASE_USDC, "USD Coin", "2")
    signature = "0x" + bytes(payer.unsafe_sign_hash(digest).signature).hex()

    def use_sdk_signature(proof: dict[str, Any]) -> None:
        proof["payload"]["signature"] = signature
        proof["payload"]["authorization"].update(
            validAfter=authorization.valid_after,
            validBefore=authorization.valid_before,
            nonce=authorization.nonce,
        )

    header = sign_proof(
        payer, network="eip155:8453", asset=BASE_USDC, name="USD Coin", tamper=use_sdk_signature
    )
    response = client.post("/svc/tasks", json=BODY, headers={"x-payment": header})
    assert response.status_code == 202, response.text
