"""The official payment clients pay the sandbox for a task (issue 17): x402's SDK and pympp.

Each client makes its own proof from the sandbox's 402 and the sandbox's books must show
exactly one charge for that request. The x402 SDK sends its v2 proof in PAYMENT-SIGNATURE;
the spec reads task proofs from `x-payment`, so the SDK's header is refused first (a 402 that
says which header to use, nothing charged), then the same proof goes in `x-payment`.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import httpx
import pytest
from eth_account import Account
from tests.conftest import Sandbox
from tests.x402_sdk import sdk_http_client

pytestmark = pytest.mark.e2e


def _submission() -> tuple[dict[str, str], dict[str, str]]:
    request_id = f"req_{uuid.uuid4().hex}"
    body = {"task": "Book a table for two #complete", "email": f"{uuid.uuid4().hex}@example.com"}
    return body, {"svc-request-id": request_id}


def _one_charge(sandbox: Sandbox, request_id: str, method: str, task_id: str) -> dict[str, Any]:
    charges = sandbox.charges_for(request_id)
    assert len(charges) == 1, charges
    [charge] = charges
    assert (charge["method"], charge["task_id"], charge["amount_atomic"]) == (
        method,
        task_id,
        1_500_000,
    )
    return charge


def test_the_official_x402_sdk_pays_for_a_task(sandbox: Sandbox) -> None:
    account = Account.create()
    url = f"{sandbox.url}/svc/tasks"
    body, headers = _submission()
    with sdk_http_client(account) as sdk, httpx.Client(timeout=30) as http:
        challenge = http.post(url, json=body, headers=headers)
        assert challenge.status_code == 402
        paid_headers, _ = sdk.handle_402_response(dict(challenge.headers), challenge.content, url)
        [(sdk_header, proof)] = paid_headers.items()
        assert sdk_header.upper() == "PAYMENT-SIGNATURE"
        # As the SDK sends it: not the header the spec names for tasks, so a fresh 402 says so
        refused = http.post(url, json=body, headers={**headers, sdk_header: proof})
        assert refused.status_code == 402
        assert "send it in the x-payment header" in refused.json()["detail"]
        assert sandbox.charges_for(headers["svc-request-id"]) == []
        # The same proof in the spec's header pays, and the SDK reads the receipt
        paid = http.post(url, json=body, headers={**headers, "x-payment": proof})
        assert paid.status_code == 202, paid.text
        receipt = sdk.get_payment_settle_response(paid.headers.get)
        # a retry of the same request id is the same task, not a second charge
        again = http.post(url, json=body, headers={**headers, "x-payment": proof})
    assert receipt.success is True and receipt.payer == account.address
    assert receipt.transaction.startswith("0x") and receipt.network == "eip155:8453"
    task_id = paid.json()["id"]
    assert again.status_code == 202 and again.json()["id"] == task_id
    charge = _one_charge(sandbox, headers["svc-request-id"], "x402", task_id)
    assert charge["payer"] == account.address
    assert paid.headers["svc-billing"].endswith(f"payment_id={charge['id']}")


async def _pay_with_pympp(url: str, body: dict[str, str], headers: dict[str, str], spt: str) -> Any:
    from mpp.client import Mpp
    from mpp.methods.stripe import client as stripe

    seen: list[str] = []

    async def create_token(params: Any) -> str:
        seen.append(f"{params.amount} {params.currency} {params.network_id}")
        return spt

    origin = str(httpx.URL(url).copy_with(path="/", query=None)).rstrip("/")
    method = stripe.charge(create_token=create_token, payment_method="pm_card_visa")
    async with Mpp(methods=[method], allowed_origins=[origin]) as mpp:
        response = await mpp.fetch(url, method="POST", json=body, headers=headers)
    return response, seen


def test_pympps_client_pays_for_a_task(sandbox: Sandbox) -> None:
    from mpp import Receipt

    url = f"{sandbox.url}/svc/tasks"
    body, headers = _submission()
    spt = f"spt_test_{uuid.uuid4().hex}"
    paid, seen = asyncio.run(_pay_with_pympp(url, body, headers, spt))
    assert paid.status_code == 202, paid.text
    assert seen == ["150 usd bn_sandbox"]  # pympp asked for one token, for the task fee
    receipt = Receipt.from_payment_receipt(paid.headers["Payment-Receipt"])
    assert receipt.status == "success" and receipt.method == "stripe"
    task_id = paid.json()["id"]
    charge = _one_charge(sandbox, headers["svc-request-id"], "mpp", task_id)
    assert charge["reference"] == receipt.reference
    assert paid.headers["svc-billing"].startswith("status=charged; method=mpp; amount_usd=1.500000")
