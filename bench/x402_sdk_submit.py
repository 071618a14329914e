"""The same paid submit as `svc submit`, made with the official x402 SDK's sync client.

Usage: x402_sdk_submit.py BASE_URL TASK EMAIL  (key in SVC_WALLET_KEY)

The SDK's `x402.mechanisms.evm` package imports web3 for its RPC signers, which the client
side of `exact` does not use, and web3 is not installed here. As in tests/x402_sdk.py, a
stand-in package object lets the client modules load; the signer is the SDK's own
`EthAccountSigner` logic (eth_account's sign_typed_data) without the web3 import. This makes
the SDK side lighter than a stock install (≈ 700 ms with web3), never heavier.
"""

from __future__ import annotations

import importlib
import os
import sys
import types
import uuid
from pathlib import Path
from typing import Any


def _load_evm_client() -> Any:
    import x402.mechanisms as mechanisms

    try:
        importlib.import_module("x402.mechanisms.evm")
    except ImportError:
        stand_in = types.ModuleType("x402.mechanisms.evm")
        stand_in.__path__ = [str(Path(next(iter(mechanisms.__path__))) / "evm")]
        stand_in.__package__ = "x402.mechanisms.evm"
        sys.modules["x402.mechanisms.evm"] = stand_in
    return importlib.import_module("x402.mechanisms.evm.exact.register")


def main() -> int:
    base, task, email = sys.argv[1:4]
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the checkout's tests/
    import httpx
    from eth_account import Account
    from tests.x402_sdk import SdkSigner as Signer  # the one stand-in for the SDK's signer
    from x402 import x402ClientSync
    from x402.http import x402HTTPClientSync

    register = _load_evm_client()
    client = x402ClientSync()
    # The SDK caps a payment at $1 by default; svc's default cap is the task fee, 1.50.
    client.set_spend_controls({"max_amount_per_payment": "$1.50"})
    register.register_exact_evm_client(
        client, Signer(Account.from_key(os.environ["SVC_WALLET_KEY"]))
    )
    http = x402HTTPClientSync(client)
    url = f"{base}/svc/tasks"
    headers = {"svc-request-id": f"req_{uuid.uuid4().hex}"}
    body = {"task": task, "email": email}
    with httpx.Client() as session:
        first = session.post(url, json=body, headers=headers)
        if first.status_code != 402:
            print(first.text)
            return 1
        paid, _ = http.handle_402_response(dict(first.headers), first.content, url)
        # The spec carries the v2 proof in `x-payment` for task calls (the SDK names it
        # PAYMENT-SIGNATURE); the value is the same.
        proof = next(iter(paid.values()))
        second = session.post(url, json=body, headers={**headers, "x-payment": proof})
    print(second.text)
    return 0 if second.status_code == 202 else 1


if __name__ == "__main__":
    sys.exit(main())
