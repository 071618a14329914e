"""The official payment clients pay the sandbox for a task (issue 17): x402's SDK and pympp.

Each client makes its own proof from the sandbox's 402 and the sandbox's books must show
exactly one charge for that request. The x402 SDK sends its v2 proof in PAYMENT-SIGNATURE;
the spec reads task proofs from `x-payment`, so the SDK's header is refused first (a 402 that
says which header to use, nothing charged), then the same proof goes in `x-payment`.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from pathlib import Path
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


SANDBOX_GUIDE = Path(__file__).resolve().parents[2] / "docs" / "guide" / "sandbox.md"


def guide_adapter() -> Callable[[Any, httpx.Response, str], dict[str, str]]:
    """The adapter exactly as the sandbox guide prints it ("Use the sandbox from other
    clients"): run from its text, so the guide's two lines cannot drift from what works."""
    text = SANDBOX_GUIDE.read_text(encoding="utf-8")
    section = text.split("\n## Use the sandbox from other clients\n")
    code = section[1].split("```python\n", 1)[1].split("```", 1)[0]
    scope: dict[str, Any] = {}
    exec(compile(code, "docs/guide/sandbox.md", "exec"), scope)  # our own page, nothing fetched
    return scope["task_payment_headers"]  # type: ignore[no-any-return]


def test_the_official_x402_v2_client_pays_through_the_guide_adapter(sandbox: Sandbox) -> None:
    """The stock v2 client, with the sandbox guide's adapter; the replay answers with the
    receipt of the one settlement, which the SDK reads like the first (issue 25.4)."""
    adapter = guide_adapter()
    account = Account.create()
    url = f"{sandbox.url}/svc/tasks"
    body, headers = _submission()
    with sdk_http_client(account) as sdk, httpx.Client(timeout=30) as http:
        challenge = http.post(url, json=body, headers=headers)
        paid_headers = adapter(sdk, challenge, url)
        assert list(paid_headers) == ["x-payment"]
        paid = http.post(url, json=body, headers={**headers, **paid_headers})
        assert paid.status_code == 202, paid.text
        again = http.post(url, json=body, headers={**headers, **paid_headers})
        first, replayed = (sdk.get_payment_settle_response(r.headers.get) for r in (paid, again))
    assert again.headers["svc-billing"].startswith("status=replayed; method=x402")
    assert replayed == first and first.success is True
    assert again.json()["id"] == paid.json()["id"]
    _one_charge(sandbox, headers["svc-request-id"], "x402", paid.json()["id"])


def test_the_official_x402_v1_client_pays_as_it_is(mainnet_sandbox: Sandbox) -> None:
    """A v1 challenge (the sandbox's x402_version=1): the v1 client's X-PAYMENT is the spec's
    header already; its replay carries the v1 receipt. On production terms (Base mainnet)."""
    sandbox = mainnet_sandbox
    sandbox.configure(x402_version=1)
    account = Account.create()
    url = f"{sandbox.url}/svc/tasks"
    body, headers = _submission()
    with sdk_http_client(account) as sdk, httpx.Client(timeout=30) as http:
        challenge = http.post(url, json=body, headers=headers)
        assert challenge.status_code == 402 and "PAYMENT-REQUIRED" not in challenge.headers
        paid_headers, _ = sdk.handle_402_response(dict(challenge.headers), challenge.content, url)
        assert [k.lower() for k in paid_headers] == ["x-payment"]
        paid = http.post(url, json=body, headers={**headers, **paid_headers})
        assert paid.status_code == 202, paid.text
        again = http.post(url, json=body, headers={**headers, **paid_headers})
        first, replayed = (sdk.get_payment_settle_response(r.headers.get) for r in (paid, again))
    assert "X-PAYMENT-RESPONSE" in again.headers and replayed == first
    assert first.success is True and first.network == "base"
    _one_charge(sandbox, headers["svc-request-id"], "x402", paid.json()["id"])


def test_the_official_x402_sdk_pays_for_a_task(mainnet_sandbox: Sandbox) -> None:
    """On production terms (a mainnet sandbox): what the SDK signs for the real service."""
    sandbox = mainnet_sandbox
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
