"""The sandbox's switchable configuration (`/_sandbox/config`): prices, terms, protocol modes.

Its own module, beside nothing else, so every layer (x402 terms, the 402 challenges, the
advisor, discovery and the store) can read it without importing the store.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

BASE_USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"
SEPOLIA_USDC = "0x036CbD53842c5426634e7929541eC2318f3dCF7e"
DEFAULT_PAY_TO = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"
# What the sandbox asks to be paid in: the test network by default, so an authorization signed
# against it can never move mainnet funds; `mainnet` keeps the production offer (fidelity tests).
NETWORKS: dict[str, tuple[str, str]] = {
    "testnet": ("eip155:84532", SEPOLIA_USDC),  # Base Sepolia and its USDC
    "mainnet": ("eip155:8453", BASE_USDC),
}
DEFAULT_NETWORK = "testnet"


@dataclass
class SandboxConfig:
    price_atomic: int = 1_500_000
    pay_to: str = DEFAULT_PAY_TO
    asset: str = SEPOLIA_USDC
    network: str = "eip155:84532"
    x402_version: int = 2
    require_agent: bool = False
    # Identity: bearer demanded on submit; registration switches; access token life.
    require_bearer: bool = False
    anonymous_registration: bool = True
    service_auth_registration: bool = True
    access_token_ttl_seconds: int = 300
    # Discovery (tests): pad /openapi.json with N marked sample operations; which next-page
    # pointers to send ("both", "x-next" only, "link" only).
    discovery_sample_operations: int = 0
    discovery_next: str = "both"
    # A replay carries the receipt of the settlement it replays (docs/sandbox-wire.md); False
    # answers replays without one, as a server that decided otherwise would (tests).
    replay_receipts: bool = True

    @classmethod
    def on(cls, network: str) -> SandboxConfig:
        """The defaults on `network` (a NETWORKS name; a reset goes back to these)."""
        chain, asset = NETWORKS[network]
        return cls(network=chain, asset=asset)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
