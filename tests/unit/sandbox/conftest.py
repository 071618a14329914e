"""Fixtures for the sandbox's unit tests: an in-process app, a payer, proof signing."""

from __future__ import annotations

import base64
import json
import secrets
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

try:
    import svc_sandbox  # noqa: F401
except ImportError:  # not installed: run from the source tree
    sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "src"))

from eth_account import Account
from eth_account.signers.local import LocalAccount
from fastapi.testclient import TestClient

from svc_sandbox.app import create_app
from svc_sandbox.state import BASE_USDC, DEFAULT_PAY_TO, SandboxState

TEST_KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"
PRICE = 1_500_000
BODY = {"task": "Book a table for two #complete", "email": "ada@example.com"}

Signer = Callable[..., str]


def sign_proof(
    account: LocalAccount,
    *,
    value: int = PRICE,
    to: str = DEFAULT_PAY_TO,
    network: str = "eip155:8453",
    chain_id: int | None = None,
    asset: str = BASE_USDC,
    name: str = "USD Coin",
    version: str = "2",
    valid_after: int | None = None,
    valid_before: int | None = None,
    nonce: str | None = None,
    x402_version: int = 2,
    accepted_overrides: dict[str, Any] | None = None,
    tamper: Callable[[dict[str, Any]], None] | None = None,
) -> str:
    """An `x-payment` header value, signed independently of the sandbox's code."""
    now = int(time.time())
    authorization = {
        "from": account.address,
        "to": to,
        "value": str(value),
        "validAfter": str(now - 600 if valid_after is None else valid_after),
        "validBefore": str(now + 300 if valid_before is None else valid_before),
        "nonce": nonce or "0x" + secrets.token_hex(32),
    }
    chain = chain_id or {"eip155:8453": 8453, "base": 8453, "eip155:84532": 84532}[network]
    typed = {
        "types": {
            "EIP712Domain": [
                {"name": "name", "type": "string"},
                {"name": "version", "type": "string"},
                {"name": "chainId", "type": "uint256"},
                {"name": "verifyingContract", "type": "address"},
            ],
            "TransferWithAuthorization": [
                {"name": "from", "type": "address"},
                {"name": "to", "type": "address"},
                {"name": "value", "type": "uint256"},
                {"name": "validAfter", "type": "uint256"},
                {"name": "validBefore", "type": "uint256"},
                {"name": "nonce", "type": "bytes32"},
            ],
        },
        "primaryType": "TransferWithAuthorization",
        "domain": {
            "name": name,
            "version": version,
            "chainId": chain,
            "verifyingContract": asset,
        },
        "message": {
            **authorization,
            "value": int(authorization["value"]),
            "validAfter": int(authorization["validAfter"]),
            "validBefore": int(authorization["validBefore"]),
        },
    }
    signature = account.sign_typed_data(full_message=typed).signature.hex()
    if not signature.startswith("0x"):
        signature = "0x" + signature
    payload = {"signature": signature, "authorization": authorization}
    proof: dict[str, Any]
    if x402_version == 1:
        proof = {"x402Version": 1, "scheme": "exact", "network": network, "payload": payload}
    else:
        accepted = {
            "scheme": "exact",
            "network": network,
            "amount": str(value),
            "asset": asset,
            "payTo": to,
            "maxTimeoutSeconds": 300,
            "extra": {"name": name, "version": version},
            **(accepted_overrides or {}),
        }
        proof = {"x402Version": 2, "accepted": accepted, "payload": payload}
    if tamper is not None:
        tamper(proof)
    raw = json.dumps(proof, separators=(",", ":")).encode()
    return base64.b64encode(raw).decode()


def b64json(header: str) -> Any:
    return json.loads(base64.b64decode(header))


@pytest.fixture
def state() -> SandboxState:
    return SandboxState()


@pytest.fixture
def client(state: SandboxState) -> Iterator[TestClient]:
    with TestClient(create_app(state)) as test_client:
        yield test_client


@pytest.fixture
def payer() -> LocalAccount:
    account: LocalAccount = Account.create()
    return account


@pytest.fixture
def other_payer() -> LocalAccount:
    account: LocalAccount = Account.create()
    return account


@pytest.fixture
def submit(client: TestClient, payer: LocalAccount) -> Callable[..., Any]:
    """Pay for and submit a task; returns the response."""

    def _submit(
        task: str = BODY["task"],
        *,
        account: LocalAccount | None = None,
        request_id: str | None = None,
        proof: str | None = None,
        **sign: Any,
    ) -> Any:
        headers = {"x-payment": proof or sign_proof(account or payer, **sign)}
        if request_id is not None:
            headers["svc-request-id"] = request_id
        return client.post(
            "/svc/tasks", json={"task": task, "email": BODY["email"]}, headers=headers
        )

    return _submit


@pytest.fixture
def new_task(submit: Callable[..., Any]) -> Callable[[str], dict[str, Any]]:
    """Submit a paid task with this text and return its task object."""

    def _new(text: str) -> dict[str, Any]:
        response = submit(text)
        assert response.status_code == 202, response.text
        task: dict[str, Any] = response.json()
        return task

    return _new
