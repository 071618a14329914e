"""`svc doctor`'s look at an external signer: reachable, and holding the profile's address.

A program is asked to sign a probe (EIP-712 typed data with no chain, no contract and no
amount: it can authorise nothing) and its signature must recover to the address. A remote
signer is only asked for its accounts: clef or Frame would put a signature request in front of
the person, and a check should not.
"""

from __future__ import annotations

from typing import Any

from svc.pay.signers.external import ExternalSigner, SignerError, checked_signature
from svc.pay.signers.jsonrpc import JsonRpcSigner

PROBE: dict[str, Any] = {
    "types": {
        "EIP712Domain": [
            {"name": "name", "type": "string"},
            {"name": "version", "type": "string"},
        ],
        "Probe": [{"name": "purpose", "type": "string"}],
    },
    "primaryType": "Probe",
    "domain": {"name": "svc signer check", "version": "1"},
    "message": {"purpose": "svc checks that this signer holds the address; this moves no funds"},
}


def probe(signer: ExternalSigner) -> str:
    """What was checked, in words; a SignerError when the signer fails the check."""
    backend = signer.backend
    address = signer.address
    if isinstance(backend, JsonRpcSigner):
        accounts = backend.accounts()
        if address.lower() not in {a.lower() for a in accounts}:
            raise SignerError(
                f"the signer ({backend.where}) does not hold {address} "
                f"(its accounts: {', '.join(accounts) or 'none'})",
                code="signer_wrong_address",
                hint="signer_address must be one of the signer's accounts",
            )
        return f"reachable, and it holds {address}"
    answer = backend.sign_typed_data(address, PROBE)
    checked_signature(answer, PROBE, address, backend.where)
    return f"a probe signature recovers to {address}"
