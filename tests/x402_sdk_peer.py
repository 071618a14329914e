"""A real peer for `svc request`: a tiny FastAPI app protected by the official x402 SDK's own
payment middleware, its resource server and its facilitator in-process, on loopback.

Everything that reads the payment is the SDK's: the middleware answers the 402
(`PAYMENT-REQUIRED`) and reads the proof, the resource server matches it to the route's
requirements, the facilitator (`ExactEvmScheme`) verifies the EIP-3009 signature (its own
EIP-712 hashing and recovery). Only the chain is stubbed: no contract code at the payer (an
EOA), and settlement books the transfer here (each nonce once, as the token contract would)
instead of broadcasting `transferWithAuthorization`.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from fastapi import Request
from tests.x402_sdk import sdk_evm_helpers

NETWORK = "eip155:84532"
PAY_TO = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"
PRICE = "$0.01"
SEPOLIA_USDC = "0x036CbD53842c5426634e7929541eC2318f3dCF7e"  # the SDK's default asset there


class StubChain:
    """The facilitator signer's chain calls: the token is a deployed contract, every other
    address an EOA (no code)."""

    def get_addresses(self) -> list[str]:
        return ["0x0000000000000000000000000000000000000001"]

    def get_code(self, address: str) -> bytes:
        return b"\x60\x80" if address.lower() == SEPOLIA_USDC.lower() else b""


@dataclass
class Settled:
    """What the stubbed chain settled: one transfer per (payer, nonce)."""

    transfers: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


def _facilitator_scheme(sdk: Any, settled: Settled) -> Any:
    """The SDK's `ExactEvmScheme`, verifying with its own code; settle books the transfer
    instead of sending it (the one call that would need a chain)."""
    from x402.schemas import SettleResponse, VerifyResponse

    class StubbedSettlement(sdk.Facilitator):  # type: ignore[misc, name-defined]
        def verify(self, payload: Any, requirements: Any, context: Any = None) -> VerifyResponse:
            result, _ = self._verify(payload, requirements, simulate=False)
            return result  # type: ignore[no-any-return]

        def settle(self, payload: Any, requirements: Any, context: Any = None) -> SettleResponse:
            result, _ = self._verify(payload, requirements, simulate=False)
            network = str(requirements.network)
            if not result.is_valid:
                return SettleResponse(
                    success=False, error_reason=result.invalid_reason, network=network,
                    payer=result.payer, transaction="",
                )  # fmt: skip
            auth = payload.payload["authorization"]
            key = (auth["from"].lower(), auth["nonce"].lower())
            with settled.lock:
                if any(t["key"] == key for t in settled.transfers):
                    return SettleResponse(
                        success=False, error_reason="invalid_exact_evm_nonce_already_used",
                        network=network, payer=result.payer, transaction="",
                    )  # fmt: skip
                tx = "0x" + hashlib.sha256(repr(key).encode()).hexdigest()
                settled.transfers.append({"key": key, "value": auth["value"], "tx": tx})
            return SettleResponse(success=True, transaction=tx, network=network, payer=result.payer)

    return StubbedSettlement(StubChain())


def build_app(sdk: Any, settled: Settled) -> Any:
    """The app; `sdk`: the SDK's EVM helpers, loaded without web3 (tests/x402_sdk.py), which
    stay loaded while the app serves."""
    from fastapi import FastAPI
    from x402 import x402Facilitator, x402ResourceServer
    from x402.http.middleware.fastapi import payment_middleware
    from x402.mechanisms.evm.exact.server import ExactEvmScheme as ExactEvmServerScheme

    facilitator = x402Facilitator()
    facilitator.register([NETWORK], _facilitator_scheme(sdk, settled))
    server = x402ResourceServer(facilitator)
    server.register(NETWORK, ExactEvmServerScheme())
    routes = {
        "POST /paid": {
            "accepts": {"scheme": "exact", "payTo": PAY_TO, "price": PRICE, "network": NETWORK},
            "description": "a paid echo",
        }
    }
    guard = payment_middleware(routes, server)

    app = FastAPI()

    @app.middleware("http")
    async def x402(request: Request, call_next: Any) -> Any:
        return await guard(request, call_next)

    @app.post("/paid")
    async def paid(request: Request) -> dict[str, Any]:
        return {"paid": True, "body": (await request.body()).decode()}

    return app


@dataclass
class SdkPeer:
    url: str
    settled: Settled


@contextmanager
def serving() -> Iterator[SdkPeer]:
    """The app on an ephemeral loopback port, in a thread of this process."""
    settled = Settled()
    with sdk_evm_helpers() as sdk:
        yield from _served(build_app(sdk, settled), settled)


def _served(app: Any, settled: Settled) -> Iterator[SdkPeer]:
    import socket

    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(app, log_level="warning", lifespan="off")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.01)
    try:
        yield SdkPeer(f"http://127.0.0.1:{sock.getsockname()[1]}", settled)
    finally:
        server.should_exit = True
        thread.join(5)
        sock.close()
