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


# The sandbox's test network (Base Sepolia) and its USDC: money that is worth nothing. The
# policy accepts this pair from a loopback origin with no setting (the local sandbox), and from
# any other origin only when allowed_networks and allowed_assets name it.
TEST_NETWORK = "eip155:84532"
SEPOLIA_USDC = "0x036CbD53842c5426634e7929541eC2318f3dCF7e"
TEST_TERMS = ((TEST_NETWORK, SEPOLIA_USDC),)
