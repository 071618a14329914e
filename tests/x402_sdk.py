"""The official x402 SDK's EVM helpers for peer checks, loaded without web3.

`x402.mechanisms.evm` imports web3 for its RPC signers; the hashing, verification and
facilitator modules we check against do not need it. When the package can't import, a stand-in
package object lets its submodules load, and is removed afterwards.
"""

from __future__ import annotations

import importlib
import sys
import types
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


@contextmanager
def sdk_evm_helpers() -> Iterator[types.SimpleNamespace]:
    import x402.mechanisms as mechanisms  # a dev dependency: missing it is a failure, not a skip

    before = set(sys.modules)
    stand_in_used = False
    try:
        importlib.import_module("x402.mechanisms.evm")
    except ImportError:
        stand_in_used = True
        stand_in = types.ModuleType("x402.mechanisms.evm")
        stand_in.__path__ = [str(Path(next(iter(mechanisms.__path__))) / "evm")]
        stand_in.__package__ = "x402.mechanisms.evm"
        sys.modules["x402.mechanisms.evm"] = stand_in
    mod = {
        name: importlib.import_module(f"x402.mechanisms.evm.{name}")
        for name in ("eip712", "verify", "types", "exact.facilitator", "exact.v1.facilitator")
    }
    register = importlib.import_module("x402.mechanisms.evm.exact.register")
    try:
        yield types.SimpleNamespace(
            hash_eip3009_authorization=mod["eip712"].hash_eip3009_authorization,
            verify_eoa_signature=mod["verify"].verify_eoa_signature,
            Authorization=mod["types"].ExactEIP3009Authorization,
            TypedDataDomain=mod["types"].TypedDataDomain,
            Facilitator=mod["exact.facilitator"].ExactEvmScheme,
            FacilitatorV1=mod["exact.v1.facilitator"].ExactEvmSchemeV1,
            register_exact_evm_client=register.register_exact_evm_client,
        )
    finally:
        if stand_in_used:
            for name in set(sys.modules) - before:
                if name.startswith("x402.mechanisms.evm"):
                    sys.modules.pop(name, None)


class SdkSigner:
    """The SDK's EthAccountSigner (eth_account's sign_typed_data), minus its web3 import.

    bench/x402_sdk_submit.py uses it too: the signing is eth_account's, and the SDK
    builds every message it signs.
    """

    def __init__(self, account: Any) -> None:
        self._account = account

    @property
    def address(self) -> str:
        return str(self._account.address)

    def sign_typed_data(self, domain: Any, types_: Any, primary_type: str, message: Any) -> bytes:
        fields = {
            name: [{"name": f.name, "type": f.type} if hasattr(f, "name") else f for f in items]
            for name, items in types_.items()
        }
        if not isinstance(domain, dict):
            domain = {
                "name": domain.name,
                "version": domain.version,
                "chainId": domain.chain_id,
                "verifyingContract": domain.verifying_contract,
            }
        signed = self._account.sign_typed_data(
            domain_data=domain, message_types=fields, message_data=message
        )
        return bytes(signed.signature)


@contextmanager
def sdk_http_client(account: Any, max_usd: str = "$1.50") -> Iterator[Any]:
    """The official SDK's sync HTTP client, paying with `account` through the `exact` scheme."""
    from x402 import x402ClientSync
    from x402.http import x402HTTPClientSync

    with sdk_evm_helpers() as sdk:
        client = x402ClientSync()
        # The SDK caps a payment at $1 by default; the task fee is 1.50.
        client.set_spend_controls({"max_amount_per_payment": max_usd})
        sdk.register_exact_evm_client(client, SdkSigner(account))
        yield x402HTTPClientSync(client)
