"""x402's `payment-identifier` extension on the client side: a v2 proof names the request's
payment id only when the 402 declared the extension, in the shape the official SDK reads back
(`extract_and_validate_payment_identifier`), and a journaled proof tells its version."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from svc.pay.x402 import (
    PAYMENT_IDENTIFIER,
    X402Signer,
    encode_proof,
    parse_challenge,
    payment_id,
    proof_version,
)

KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"
ENTRY = {
    "scheme": "exact",
    "network": "eip155:84532",
    "amount": "10000",
    "asset": "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
    "payTo": "0x209693Bc6afc0C5328bA36FaF03C514EF312287C",
    "maxTimeoutSeconds": 60,
    "extra": {"name": "USDC", "version": "2"},
}
RID = "req_0123456789abcdef0123456789abcdef"


def challenge(extensions: dict[str, Any] | None) -> Any:
    body: dict[str, Any] = {"x402Version": 2, "resource": {"url": "https://x.test/"}}
    body["accepts"] = [ENTRY]
    if extensions is not None:
        body["extensions"] = extensions
    header = base64.b64encode(json.dumps(body).encode()).decode()
    return parse_challenge({"PAYMENT-REQUIRED": header}, b"")


def proof_for(extensions: dict[str, Any] | None, payment_id: str | None = RID) -> str:
    found = challenge(extensions)
    terms = found.accepts[0]
    return encode_proof(found, terms, X402Signer(KEY).sign(terms), payment_id)


def decoded(proof: str) -> dict[str, Any]:
    value = json.loads(base64.b64decode(proof))
    assert isinstance(value, dict)
    return value


def test_a_declared_extension_gets_the_request_id_and_the_sdk_reads_it() -> None:
    from x402.extensions.payment_identifier import (
        declare_payment_identifier_extension,
        extract_and_validate_payment_identifier,
    )
    from x402.http.utils import decode_payment_signature_header

    declared = {PAYMENT_IDENTIFIER: declare_payment_identifier_extension()}
    proof = proof_for(declared)
    assert decoded(proof)["extensions"][PAYMENT_IDENTIFIER]["info"]["id"] == RID
    found, validation = extract_and_validate_payment_identifier(
        decode_payment_signature_header(proof)
    )
    assert found == RID and validation.valid, validation


def test_no_declaration_no_extension() -> None:
    assert "extensions" not in decoded(proof_for(None))
    assert "extensions" not in decoded(proof_for({"other": {}}))


@pytest.mark.parametrize("request_id", ["short", "order:2026-11-29", "a.b.c.d.e.f.g.h.i"])
def test_a_request_id_the_extension_does_not_allow_is_sent_as_its_digest(
    request_id: str,
) -> None:
    """Any request id svc accepts names its payment, the same on every retry, in the shape
    the SDK validates (it raised after the wallet had signed)."""
    from x402.extensions.payment_identifier import extract_and_validate_payment_identifier
    from x402.http.utils import decode_payment_signature_header

    declared = {PAYMENT_IDENTIFIER: {"info": {"required": False}}}
    proof = proof_for(declared, request_id)
    found, validation = extract_and_validate_payment_identifier(
        decode_payment_signature_header(proof)
    )
    assert validation.valid, validation
    assert found == payment_id(request_id) == payment_id(request_id) != request_id
    assert found is not None and found.startswith("svc_")


def test_a_journaled_proof_tells_its_version() -> None:
    assert proof_version(proof_for(None)) == 2
    v1 = base64.b64encode(json.dumps({"x402Version": 1}).encode()).decode()
    assert proof_version(v1) == 1
    assert proof_version("not base64 json") is None
