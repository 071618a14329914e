"""x402 `exact` on EVM: challenges, proof decoding, EIP-3009 signature checks, settlement terms.

Signatures are verified for real (EIP-712 recovery: eth_keys on the digest built by hand in
svc_sandbox.payments.eip712, eth_account for any form that does not handle). Validity windows
are checked against REAL wall time, as a chain would, never against the sandbox clock.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from svc_sandbox.errors import SandboxError
from svc_sandbox.state.config import BASE_USDC, SEPOLIA_USDC, SandboxConfig

# A token's EIP-712 domain is the contract's own: a signature made for another name recovers to
# another address on chain. Base USDC is "USD Coin", Base Sepolia USDC is "USDC".
USDC_DOMAIN = {"name": "USD Coin", "version": "2"}
TOKEN_DOMAINS = {
    BASE_USDC.lower(): USDC_DOMAIN,
    SEPOLIA_USDC.lower(): {"name": "USDC", "version": "2"},
}
MAX_TIMEOUT_SECONDS = 300
VALID_BEFORE_MARGIN_SECONDS = 6  # settlement must land before validBefore
CHAIN_IDS = {"eip155:8453": 8453, "eip155:84532": 84532, "base": 8453, "base-sepolia": 84532}
V1_NETWORK_NAMES = {8453: "base", 84532: "base-sepolia"}

# The headers an x402 proof travels in: the spec puts task proofs in `x-payment` (v1's name) and
# the free advisor's in `Payment-Signature` (v2's name, which the official SDK always sends).
TASK_PROOF_HEADER = "x-payment"
ADVISOR_PROOF_HEADER = "Payment-Signature"
PROOF_HEADERS = (TASK_PROOF_HEADER, ADVISOR_PROOF_HEADER)
# The receipt header per protocol version (the SDK reads both; each version names its own).
RECEIPT_HEADERS = {1: "X-PAYMENT-RESPONSE", 2: "PAYMENT-RESPONSE"}

_ADDRESS = re.compile(r"^0x[0-9a-fA-F]{40}$")
_NONCE = re.compile(r"^0x[0-9a-fA-F]{64}$")
_UINT = re.compile(r"^[0-9]{1,78}$")

TRANSFER_WITH_AUTHORIZATION_TYPES = {
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
}


class PaymentError(SandboxError):
    """A payment problem that becomes an HTTP error response."""


@dataclass(frozen=True)
class Authorization:
    from_: str
    to: str
    value: int
    valid_after: int
    valid_before: int
    nonce: str


@dataclass(frozen=True)
class Proof:
    """A decoded proof, v1 or v2, with the terms it was signed for and the header it came in."""

    version: int
    scheme: str
    network: str
    asset: str
    pay_to: str | None  # the accepted entry's payTo (v2)
    amount: str | None  # the accepted entry's amount (v2)
    domain_name: str
    domain_version: str
    signature: str
    authorization: Authorization
    header: str = TASK_PROOF_HEADER


# --- encoding ----------------------------------------------------------------------------


def b64json(value: dict[str, Any]) -> str:
    """Standard base64 of compact UTF-8 JSON (the x402 header encoding)."""
    raw = json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()
    return base64.b64encode(raw).decode("ascii")


def unb64json(text: str) -> Any:
    padded = text.strip() + "=" * (-len(text.strip()) % 4)
    return json.loads(base64.b64decode(padded, validate=True))


# --- challenges --------------------------------------------------------------------------


def token_domain(asset: str) -> dict[str, str]:
    """The EIP-712 domain of a token contract (an unknown one: Base USDC's)."""
    return dict(TOKEN_DOMAINS.get(asset.lower(), USDC_DOMAIN))


def accepts_entry(config: SandboxConfig, amount_atomic: int) -> dict[str, Any]:
    return {
        "scheme": "exact",
        "network": config.network,
        "amount": str(amount_atomic),
        "asset": config.asset,
        "payTo": config.pay_to,
        "maxTimeoutSeconds": MAX_TIMEOUT_SECONDS,
        "extra": token_domain(config.asset),
    }


def v1_accepts_entry(
    config: SandboxConfig, amount_atomic: int, resource_url: str, description: str
) -> dict[str, Any]:
    chain = CHAIN_IDS.get(config.network, 8453)
    return {
        "scheme": "exact",
        "network": V1_NETWORK_NAMES.get(chain, config.network),
        "maxAmountRequired": str(amount_atomic),
        "resource": resource_url,
        "description": description,
        "mimeType": "application/json",
        "payTo": config.pay_to,
        "maxTimeoutSeconds": MAX_TIMEOUT_SECONDS,
        "asset": config.asset,
        "extra": token_domain(config.asset),
    }


def challenge(
    config: SandboxConfig,
    *,
    amount_atomic: int,
    resource_url: str,
    description: str,
    payment: dict[str, Any] | None = None,
    card: dict[str, Any] | None = None,
    note: str | None = None,
) -> PaymentError:
    """The 402 for an unpaid call: v2 header, or v1 body, per the configured version.

    `note` (a proof sent in a header this endpoint does not read) is added to the detail.
    """
    detail = description if note is None else f"{description} {note}"
    body: dict[str, Any] = {"error": "payment_required", "detail": detail}
    if payment is not None:
        body["payment"] = payment
    if card is not None:
        body["card"] = card
    headers: dict[str, str] = {}
    if config.x402_version == 1:
        body["x402Version"] = 1
        body["accepts"] = [v1_accepts_entry(config, amount_atomic, resource_url, description)]
    else:
        headers["PAYMENT-REQUIRED"] = b64json(
            {
                "x402Version": 2,
                "error": "payment_required",
                "resource": {
                    "url": resource_url,
                    "description": description,
                    "mimeType": "application/json",
                },
                "accepts": [accepts_entry(config, amount_atomic)],
            }
        )
    return PaymentError(402, body, headers)


# --- proofs ------------------------------------------------------------------------------


def misplaced_proof_note(headers: Mapping[str, str], reads: str) -> str | None:
    """What to tell a caller whose proof came in a header this endpoint does not read.

    The proof is still ignored (the spec names one header per endpoint); the 402 says why.
    """
    if headers.get(reads):
        return None
    for other in PROOF_HEADERS:
        if other.lower() != reads.lower() and headers.get(other):
            return (
                f"A payment proof arrived in the {other} header, which this endpoint does not "
                f"read: send it in the {reads} header."
            )
    return None


def _bad(detail: str, header: str = TASK_PROOF_HEADER) -> PaymentError:
    return PaymentError(400, {"error": "invalid_request", "detail": f"{header}: {detail}"})


def _text(container: dict[str, Any], key: str) -> str:
    value = container.get(key)
    if not isinstance(value, str):
        raise _bad(f"{key} must be a string")
    return value


def _uint(container: dict[str, Any], key: str) -> int:
    value = _text(container, key)
    if not _UINT.match(value):
        raise _bad(f"{key} must be a decimal string")
    return int(value)


def decode_proof(header: str, config: SandboxConfig, name: str = TASK_PROOF_HEADER) -> Proof:
    """Parse a proof header (`name`); any structural problem is a 400 naming that header."""
    try:
        return replace(_decode_proof(header, config), header=name)
    except PaymentError as exc:
        if name == TASK_PROOF_HEADER:
            raise
        detail = str(exc.body.get("detail", "")).removeprefix(f"{TASK_PROOF_HEADER}: ")
        raise _bad(detail, name) from None


def _decode_proof(header: str, config: SandboxConfig) -> Proof:
    try:
        data = unb64json(header)
    except (binascii.Error, ValueError, UnicodeDecodeError) as exc:
        raise _bad("not base64-encoded JSON") from exc
    if not isinstance(data, dict):
        raise _bad("not a JSON object")
    payload = data.get("payload")
    if not isinstance(payload, dict) or not isinstance(payload.get("authorization"), dict):
        raise _bad("payload.authorization is missing")
    authorization = _authorization(payload["authorization"])
    signature = _text(payload, "signature")
    version = data.get("x402Version")
    if version == 2:
        return _v2_proof(data, signature, authorization)
    if version == 1:
        return Proof(
            version=1,
            scheme=_text(data, "scheme"),
            network=_text(data, "network"),
            asset=config.asset,  # v1 proofs do not echo the terms: the asset is ours
            pay_to=None,
            amount=None,
            domain_name=token_domain(config.asset)["name"],
            domain_version=token_domain(config.asset)["version"],
            signature=signature,
            authorization=authorization,
        )
    raise _bad("x402Version must be 1 or 2")


def _authorization(auth: dict[str, Any]) -> Authorization:
    authorization = Authorization(
        from_=_text(auth, "from"),
        to=_text(auth, "to"),
        value=_uint(auth, "value"),
        valid_after=_uint(auth, "validAfter"),
        valid_before=_uint(auth, "validBefore"),
        nonce=_text(auth, "nonce"),
    )
    if not (_ADDRESS.match(authorization.from_) and _ADDRESS.match(authorization.to)):
        raise _bad("authorization from/to must be 0x-prefixed 20-byte addresses")
    if not _NONCE.match(authorization.nonce):
        raise _bad("authorization nonce must be 0x + 32 bytes hex")
    return authorization


def _v2_proof(data: dict[str, Any], signature: str, authorization: Authorization) -> Proof:
    """A v2 proof echoes the accepts entry it chose: its terms and EIP-712 domain."""
    accepted = data.get("accepted")
    if not isinstance(accepted, dict):
        raise _bad("accepted (the chosen accepts entry) is missing")
    extra = accepted.get("extra") if isinstance(accepted.get("extra"), dict) else {}
    assert isinstance(extra, dict)
    domain = token_domain(_text(accepted, "asset"))
    return Proof(
        version=2,
        scheme=_text(accepted, "scheme"),
        network=_text(accepted, "network"),
        asset=_text(accepted, "asset"),
        pay_to=accepted.get("payTo") if isinstance(accepted.get("payTo"), str) else None,
        amount=accepted.get("amount") if isinstance(accepted.get("amount"), str) else None,
        domain_name=str(extra.get("name", domain["name"])),
        domain_version=str(extra.get("version", domain["version"])),
        signature=signature,
        authorization=authorization,
    )


def typed_data(proof: Proof, chain_id: int) -> dict[str, Any]:
    auth = proof.authorization
    return {
        "types": TRANSFER_WITH_AUTHORIZATION_TYPES,
        "primaryType": "TransferWithAuthorization",
        "domain": {
            "name": proof.domain_name,
            "version": proof.domain_version,
            "chainId": chain_id,
            "verifyingContract": proof.asset,
        },
        "message": {
            "from": auth.from_,
            "to": auth.to,
            "value": auth.value,
            "validAfter": auth.valid_after,
            "validBefore": auth.valid_before,
            "nonce": auth.nonce,
        },
    }


def recover_signer(message: dict[str, Any], signature: str) -> str:
    """The address that signed an EIP-712 message (raises ValueError if unrecoverable)."""
    from svc_sandbox.payments.eip712 import recover_transfer_signer

    signer = recover_transfer_signer(message, TRANSFER_WITH_AUTHORIZATION_TYPES, signature)
    return signer if signer is not None else recover_with_eth_account(message, signature)


def recover_with_eth_account(message: dict[str, Any], signature: str) -> str:
    """eth_account's recovery: any typed data, every form of signature it reads."""
    from eth_account import Account  # heavy import, only for a proof the fast path leaves
    from eth_account.messages import encode_typed_data

    try:
        signer: str = Account.recover_message(
            encode_typed_data(full_message=message), signature=signature
        )
    except Exception as exc:  # eth_account raises several unrelated types
        raise ValueError(str(exc)) from exc
    return signer


def verify_signature(proof: Proof) -> str:
    """Check the signature recovers `authorization.from`; returns the payer address."""
    if proof.scheme != "exact":
        raise _bad(f"unsupported scheme {proof.scheme!r}", proof.header)
    chain_id = CHAIN_IDS.get(proof.network)
    if chain_id is None:
        raise settlement_error("invalid_network", proof)
    if not _ADDRESS.match(proof.asset):
        raise _bad("asset must be a 0x-prefixed 20-byte address", proof.header)
    try:
        signer = recover_signer(typed_data(proof, chain_id), proof.signature)
    except ValueError:
        signer = ""
    if signer.lower() != proof.authorization.from_.lower():
        raise PaymentError(
            401,
            {
                "error": "identity_invalid",
                "detail": "the payment signature does not recover to authorization.from",
            },
        )
    domain = token_domain(proof.asset)
    if (proof.domain_name, proof.domain_version) != (domain["name"], domain["version"]):
        # The token contract only knows its own domain: on chain this signature would
        # recover to another address, whatever the echoed `extra` claims.
        raise PaymentError(
            401,
            {
                "error": "identity_invalid",
                "detail": f"signed for EIP-712 domain {proof.domain_name!r} version "
                f"{proof.domain_version!r}; the token's domain is "
                f"{domain['name']!r} version {domain['version']!r}",
            },
        )
    return proof.authorization.from_


def settlement_problem(
    proof: Proof, config: SandboxConfig, amount_atomic: int, now: float | None = None
) -> str | None:
    """The settlementReason this proof fails with, or None when it can settle."""
    now = time.time() if now is None else now
    auth = proof.authorization
    if CHAIN_IDS.get(proof.network) != CHAIN_IDS.get(config.network):
        return "invalid_network"
    if proof.asset.lower() != config.asset.lower():
        return "invalid_asset"
    if auth.to.lower() != config.pay_to.lower() or (
        proof.pay_to is not None and proof.pay_to.lower() != config.pay_to.lower()
    ):
        return "invalid_recipient"
    if auth.value != amount_atomic:
        return "invalid_amount"
    if not auth.valid_after < now:
        return "authorization_not_yet_valid"
    if not now + VALID_BEFORE_MARGIN_SECONDS < auth.valid_before:
        return "authorization_expired"
    return None


def settlement_error(reason: str, proof: Proof) -> PaymentError:
    return PaymentError(
        402,
        {
            "error": "settlement_failed",
            "settlementReason": reason,
            "detail": f"the signed payment did not settle: {reason}",
        },
        receipt(proof, success=False, error_reason=reason),
    )


def receipt(proof: Proof, *, success: bool, error_reason: str | None = None) -> dict[str, str]:
    """The settlement receipt header, named for the proof's protocol version.

    Shaped as the SDK's `SettleResponse`: `transaction` is always present (the SDK requires
    it), the empty string when nothing settled.
    """
    body: dict[str, Any] = {"success": success, "transaction": ""}
    if success:
        digest = hashlib.sha256(
            f"{proof.authorization.from_.lower()}:{proof.authorization.nonce.lower()}".encode()
        ).hexdigest()
        body["transaction"] = "0x" + digest
    else:
        body["errorReason"] = error_reason
    body["network"] = proof.network
    body["payer"] = proof.authorization.from_
    return {RECEIPT_HEADERS[proof.version]: b64json(body)}


def free_call_payer(
    headers: Mapping[str, str],
    config: SandboxConfig,
    *,
    reads: str,
    required: bool,
    resource_url: str,
    description: str,
) -> str | None:
    """The signer of a free call's zero-amount proof (None when anonymous and allowed).

    Free calls (poll, reply, the advisor) identify the caller without moving money: the proof
    goes through every check of a paid one with amount 0, and no nonce is consumed.
    """
    header = headers.get(reads)
    if header is None:
        if not required:
            return None
        raise challenge(
            config,
            amount_atomic=0,
            resource_url=resource_url,
            description=description,
            note=misplaced_proof_note(headers, reads),
        )
    proof = decode_proof(header, config, reads)
    payer = verify_signature(proof)
    problem = settlement_problem(proof, config, 0)
    if problem is not None:
        raise settlement_error(problem, proof)
    return payer
