"""Networks as CAIP-2 chain ids: the x402 v1 names (`base`, ...) are the same chains as v2's.

The policy, the probe and `svc spend` compare and show chains through `caip2`, so a standard
v1 challenge on `base` is the allowed `eip155:8453`, not a foreign network.
"""

from __future__ import annotations

# x402 v1 network names and the EVM chains they stand for.
V1_NAMES: dict[str, str] = {
    "base": "eip155:8453",
    "base-sepolia": "eip155:84532",
    "ethereum": "eip155:1",
    "sepolia": "eip155:11155111",
    "polygon": "eip155:137",
    "polygon-amoy": "eip155:80002",
    "avalanche": "eip155:43114",
    "avalanche-fuji": "eip155:43113",
}


def caip2(network: str) -> str:
    """The CAIP-2 id of a network name (`base` -> `eip155:8453`); other values as they are
    (a near miss such as `eip155:8453 ` stays a different, refused, network)."""
    name = str(network)
    return V1_NAMES.get(name, name)
