"""Test helpers: x402 proofs signed independently of the sandbox's own code."""

from __future__ import annotations

import base64
import json
import secrets
import time
from collections.abc import Callable
from typing import Any

from eth_account.signers.local import LocalAccount

BASE_USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"
# The sandbox's default terms: Base Sepolia and its USDC, whose EIP-712 name is "USDC".
SEPOLIA_USDC = "0x036CbD53842c5426634e7929541eC2318f3dCF7e"
DEFAULT_PAY_TO = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"

TEST_KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"
PRICE = 1_500_000
BODY = {"task": "Book a table for two #complete", "email": "ada@example.com"}


def sign_proof(
    account: LocalAccount,
    *,
    value: int = PRICE,
    to: str = DEFAULT_PAY_TO,
    network: str = "eip155:84532",
    chain_id: int | None = None,
    asset: str = SEPOLIA_USDC,
    name: str = "USDC",
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
    chain = (
        chain_id
        or {
            "eip155:8453": 8453,
            "base": 8453,
            "eip155:84532": 84532,
            "base-sepolia": 84532,
        }[network]
    )
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
