"""x402 client side: read a 402 challenge, sign an EIP-3009 authorization, encode the proof.

Scheme ``exact`` (EIP-3009 ``TransferWithAuthorization``, USDC on Base), x402 v1 and v2.

Wire summary (see docs/protocols.md):

* challenge: v2 header ``PAYMENT-REQUIRED`` (standard base64 of JSON), else a v1 JSON body
  ``{x402Version, error, accepts}``;
* proof: standard base64 of compact JSON, v2 ``{x402Version, resource?, accepted, payload}``,
  v1 ``{x402Version, scheme, network, payload}``; which header carries it is the caller's choice;
* receipt: ``PAYMENT-RESPONSE`` / ``X-PAYMENT-RESPONSE``, standard base64 of JSON.

Start-up cost matters: the EIP-712 digest is computed by :mod:`svc.pay.eip712` and signed by
:mod:`svc.pay.secp256k1`, whose libraries (eth-hash, coincurve or eth-keys) load on the first
signature, never at module import time; eth-account is not imported at all.

Every malformed input raises :class:`X402Error` (a ``ValueError``) with one sentence that never
contains the private key.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from svc.address import is_address
from svc.api.headers import X402_CHALLENGE, X402_RECEIPT, X402_V1_RECEIPT
from svc.api.jsonsafe import load_json
from svc.money import UINT256_MAX as _UINT256_MAX
from svc.money import AmountError, parse_atomic
from svc.pay import eip712
from svc.pay.chains import caip2
from svc.pay.secp256k1 import SECP256K1_N as _SECP256K1_N
from svc.pay.secp256k1 import key_for

__all__ = [
    "HEADER_PAYMENT_REQUIRED",
    "HEADER_PAYMENT_RESPONSE",
    "HEADER_X_PAYMENT_RESPONSE",
    "PaymentRequirements",
    "X402Challenge",
    "X402Error",
    "X402Signer",
    "address_of",
    "build_authorization",
    "chain_id",
    "encode_proof",
    "generate_private_key",
    "parse_challenge",
    "proof_payload",
    "proof_version",
    "typed_data",
]

HEADER_PAYMENT_REQUIRED: Final = X402_CHALLENGE
HEADER_PAYMENT_RESPONSE: Final = X402_RECEIPT
HEADER_X_PAYMENT_RESPONSE: Final = X402_V1_RECEIPT

# Bounds on untrusted input. A real challenge is well under a kilobyte.
MAX_HEADER_CHARS: Final = 64 * 1024
MAX_BODY_BYTES: Final = 1024 * 1024
MAX_ACCEPTS: Final = 64
MAX_TIMEOUT_SECONDS: Final = 2**32
VALID_AFTER_SLACK_SECONDS: Final = 600

_CAIP2_EVM = re.compile(r"eip155:([1-9][0-9]{0,18})", re.ASCII)
_NONCE = re.compile(r"0x[0-9a-fA-F]{64}", re.ASCII)
_SIGNATURE = re.compile(r"0x[0-9a-fA-F]{130}", re.ASCII)
_PRIVATE_KEY = re.compile(r"(?:0x)?([0-9a-fA-F]{64})", re.ASCII)
_PAYMENT_ID = re.compile(r"[A-Za-z0-9_-]{16,128}", re.ASCII)
# The v2 extension by which a client names its payment, the same on every retry of a request,
# so a server that saw it settle answers again without charging (x402 `payment-identifier`).
PAYMENT_IDENTIFIER: Final = "payment-identifier"

_EIP712_DOMAIN_TYPE: Final = [
    {"name": "name", "type": "string"},
    {"name": "version", "type": "string"},
    {"name": "chainId", "type": "uint256"},
    {"name": "verifyingContract", "type": "address"},
]
_TRANSFER_WITH_AUTHORIZATION_TYPE: Final = [
    {"name": "from", "type": "address"},
    {"name": "to", "type": "address"},
    {"name": "value", "type": "uint256"},
    {"name": "validAfter", "type": "uint256"},
    {"name": "validBefore", "type": "uint256"},
    {"name": "nonce", "type": "bytes32"},
]
_AUTHORIZATION_FIELDS: Final = ("from", "to", "value", "validAfter", "validBefore", "nonce")


class X402Error(ValueError):
    """An x402 message could not be read, built or signed. The message is one sentence."""


# --------------------------------------------------------------------------- data


@dataclass(frozen=True)
class PaymentRequirements:
    """One entry of a challenge's ``accepts`` list.

    ``amount`` is in atomic units (v1 ``maxAmountRequired``, v2 ``amount``); ``raw`` is the entry
    exactly as the server sent it, echoed back as ``accepted`` in a v2 proof.
    """

    scheme: str
    network: str
    amount: int
    asset: str
    pay_to: str
    max_timeout_seconds: int
    extra: dict[str, Any] = field(default_factory=dict)
    raw: dict[str, Any] = field(default_factory=dict)

    def __hash__(self) -> int:
        return hash(
            (
                self.scheme,
                self.network,
                self.amount,
                self.asset,
                self.pay_to,
                self.max_timeout_seconds,
            )
        )

    @classmethod
    def from_entry(cls, entry: object, version: int) -> PaymentRequirements:
        """Validate one ``accepts`` entry of an x402 ``version`` (1 or 2) challenge."""
        if not isinstance(entry, dict):
            raise X402Error("an x402 accepts entry is not a JSON object.")
        amount_key = "maxAmountRequired" if version == 1 else "amount"
        extra = entry.get("extra")
        if extra is None:
            extra = {}
        elif isinstance(extra, str):
            # Some v1 servers send extra as a JSON-encoded string.
            extra = _loads(extra, "the accepts entry's extra")
        if not isinstance(extra, dict):
            raise X402Error("an x402 accepts entry has an 'extra' that is not a JSON object.")
        return cls(
            scheme=_required_str(entry, "scheme"),
            network=_required_str(entry, "network"),
            amount=_atomic_amount(entry.get(amount_key), amount_key),
            asset=_required_str(entry, "asset"),
            pay_to=_required_str(entry, "payTo"),
            max_timeout_seconds=_timeout(entry.get("maxTimeoutSeconds")),
            extra=extra,
            raw=entry,
        )


@dataclass(frozen=True)
class X402Challenge:
    """A parsed 402 challenge (``version`` 1 or 2)."""

    version: int
    accepts: list[PaymentRequirements]
    resource: dict[str, Any] | None = None
    error: str | None = None
    extensions: dict[str, Any] | None = None  # v2: what the server declares (payment-identifier)

    def declares(self, extension: str) -> bool:
        """The server declared `extension` (a v2 challenge's `extensions` names it)."""
        return self.version == 2 and isinstance((self.extensions or {}).get(extension), dict)


# --------------------------------------------------------------------------- parsing helpers


def _required_str(entry: Mapping[str, Any], key: str) -> str:
    value = entry.get(key)
    if not isinstance(value, str) or not value:
        raise X402Error(f"an x402 accepts entry lacks a non-empty string '{key}'.")
    return value


def _atomic_amount(value: object, key: str) -> int:
    """An atomic amount, read by svc.money's one parser: ASCII digits as a string (or a JSON
    integer), 0 <= n < 2**256."""
    return _uint256(value, f"the x402 accepts entry's '{key}'")


def _timeout(value: object) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and 0 < value <= MAX_TIMEOUT_SECONDS:
        return value
    raise X402Error("an x402 accepts entry has no valid 'maxTimeoutSeconds' (a positive integer).")


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _loads(text: str | bytes, what: str) -> Any:
    """Strict JSON: UTF-8 only, no NaN/Infinity; any failure is an X402Error."""
    try:
        if isinstance(text, bytes):
            text = text.decode("utf-8")
        return load_json(text, parse_constant=_reject_constant)
    except (ValueError, RecursionError):
        # UnicodeDecodeError and JSONDecodeError are ValueErrors; RecursionError is deep nesting.
        raise X402Error(f"{what} is not valid UTF-8 JSON.") from None


def _b64decode(value: str, what: str) -> bytes:
    """Standard base64 (alphabet ``+/``); missing ``=`` padding is tolerated."""
    text = value.strip()
    if len(text) > MAX_HEADER_CHARS:
        raise X402Error(f"{what} is too large ({len(text)} characters).")
    if not text:
        raise X402Error(f"{what} is empty.")
    text += "=" * (-len(text) % 4)
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise X402Error(f"{what} is not standard base64.") from None


def _b64encode_json(obj: Mapping[str, Any]) -> str:
    try:
        text = json.dumps(obj, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        raise X402Error("the x402 proof cannot be encoded as JSON.") from None
    return base64.b64encode(text.encode("utf-8")).decode("ascii")


def _header(headers: Mapping[str, str], name: str) -> str | None:
    wanted = name.lower()
    for key, value in headers.items():
        if isinstance(key, str) and key.lower() == wanted:
            if not isinstance(value, str):
                raise X402Error(f"the {name} header is not text.")
            return value
    return None


def _challenge_from_object(obj: object, source: str) -> X402Challenge:
    if not isinstance(obj, dict):
        raise X402Error(f"the x402 challenge in {source} is not a JSON object.")
    version = obj.get("x402Version")
    if isinstance(version, bool) or version not in (1, 2):
        raise X402Error(f"the x402 challenge in {source} has an unsupported x402Version.")
    accepts = obj.get("accepts")
    if not isinstance(accepts, list):
        raise X402Error(f"the x402 challenge in {source} has no 'accepts' list.")
    if not accepts:
        raise X402Error(f"the x402 challenge in {source} offers no way to pay.")
    if len(accepts) > MAX_ACCEPTS:
        raise X402Error(f"the x402 challenge in {source} has too many accepts entries.")
    resource = obj.get("resource")
    if resource is not None and not isinstance(resource, dict):
        raise X402Error(f"the x402 challenge in {source} has a 'resource' that is not an object.")
    error = obj.get("error")
    if error is not None and not isinstance(error, str):
        raise X402Error(f"the x402 challenge in {source} has an 'error' that is not a string.")
    extensions = obj.get("extensions")
    return X402Challenge(
        version=version,
        accepts=[PaymentRequirements.from_entry(entry, version) for entry in accepts],
        resource=resource,
        error=error,
        extensions=extensions if isinstance(extensions, dict) else None,
    )


# --------------------------------------------------------------------------- public: reading


def parse_challenge(headers: Mapping[str, str], body: bytes) -> X402Challenge | None:
    """Read the x402 challenge of a 402 response, or None when the response carries none.

    The ``PAYMENT-REQUIRED`` header (v2) wins; otherwise a JSON body with ``x402Version`` is
    read (v1, or v2 servers that put it in the body). A body that is not a JSON object, or has
    no ``x402Version``, is not a challenge. A challenge that is present but malformed raises
    :class:`X402Error`.
    """
    header = _header(headers, HEADER_PAYMENT_REQUIRED)
    if header is not None:
        what = f"the {HEADER_PAYMENT_REQUIRED} header"
        return _challenge_from_object(_loads(_b64decode(header, what), what), what)
    if not isinstance(body, bytes | bytearray | memoryview):
        raise X402Error("the 402 response body is not bytes.")
    body = bytes(body)
    if len(body) > MAX_BODY_BYTES:
        raise X402Error(f"the 402 response body is too large ({len(body)} bytes).")
    if not body.lstrip().startswith(b"{"):
        return None  # empty, HTML, plain text: not an x402 challenge
    obj = _loads(body, "the 402 response body")
    if not isinstance(obj, dict) or "x402Version" not in obj:
        return None
    return _challenge_from_object(obj, "the 402 response body")


def chain_id(network: str) -> int:
    """EVM chain id of a network: CAIP-2 ``eip155:<n>``, or v1 ``base`` / ``base-sepolia``."""
    if isinstance(network, str):
        match = _CAIP2_EVM.fullmatch(caip2(network))
        if match:
            return int(match.group(1))
    raise X402Error(f"unsupported x402 network {str(network)[:64]!r} (expected eip155:<chain id>).")


# --------------------------------------------------------------------------- public: signing


def _address(value: object, what: str) -> str:
    if not isinstance(value, str) or not is_address(value):
        raise X402Error(f"{what} is not a 0x-prefixed 20-byte hex address.")
    return value


def _check_exact_evm(requirements: PaymentRequirements) -> None:
    if not isinstance(requirements, PaymentRequirements):
        raise X402Error("payment requirements must be a PaymentRequirements.")
    if requirements.scheme != "exact":
        raise X402Error(
            f"x402 scheme {requirements.scheme[:32]!r} is not supported (only 'exact')."
        )
    if requirements.extra.get("assetTransferMethod", "eip3009") != "eip3009":
        raise X402Error("only EIP-3009 transfers are supported for x402 'exact' payments.")


def build_authorization(
    requirements: PaymentRequirements,
    payer_address: str,
    now: int,
    nonce: bytes | None = None,
    max_window: int | None = None,
) -> dict[str, str]:
    """The EIP-3009 authorization for ``requirements``, every value a string.

    ``validAfter = now - 600`` and ``validBefore = now + min(maxTimeoutSeconds, max_window)``:
    the server proposes the window, the client bounds it (an authorization can be settled by
    whoever holds it until then). Compute ``now`` immediately before signing. The nonce is 32
    fresh random bytes unless given; reuse a nonce only to re-send the very same payment.
    """
    _check_exact_evm(requirements)
    _address(payer_address, "the payer address")
    _address(requirements.pay_to, "the challenge's payTo")
    if isinstance(now, bool) or not isinstance(now, int) or now < 0:
        raise X402Error("now must be a non-negative integer Unix time.")
    if nonce is None:
        nonce = secrets.token_bytes(32)
    if not isinstance(nonce, bytes) or len(nonce) != 32:
        raise X402Error("an x402 nonce must be exactly 32 bytes.")
    return {
        "from": payer_address,
        "to": requirements.pay_to,
        "value": str(requirements.amount),
        "validAfter": str(max(0, now - VALID_AFTER_SLACK_SECONDS)),
        "validBefore": str(now + validity_window(requirements, max_window)),
        "nonce": "0x" + nonce.hex(),
    }


def _uint256(value: object, what: str) -> int:
    """A uint256 of the wire (an amount, a time), through the one amount parser."""
    try:
        number = parse_atomic(value, what)
    except AmountError as exc:
        raise X402Error(f"{exc}.") from None
    if number > _UINT256_MAX:
        raise X402Error(f"{what} is out of range.")
    return number


def typed_data(
    requirements: PaymentRequirements, authorization: Mapping[str, str]
) -> dict[str, Any]:
    """The full EIP-712 message (``TransferWithAuthorization``), as a wallet signs it.

    The domain comes from the challenge: ``name``/``version`` from ``extra``, ``chainId`` from
    the network, ``verifyingContract`` = ``asset``.
    """
    _check_exact_evm(requirements)
    name = requirements.extra.get("name")
    version = requirements.extra.get("version")
    if not isinstance(name, str) or not isinstance(version, str):
        raise X402Error("the challenge's extra lacks the EIP-712 domain 'name' and 'version'.")
    if not isinstance(authorization, Mapping):
        raise X402Error("the x402 authorization is not an object.")
    nonce = authorization.get("nonce")
    if not isinstance(nonce, str) or not _NONCE.fullmatch(nonce):
        raise X402Error("the authorization's nonce is not 0x followed by 32 bytes of hex.")
    return {
        "types": {
            "EIP712Domain": [dict(f) for f in _EIP712_DOMAIN_TYPE],
            "TransferWithAuthorization": [dict(f) for f in _TRANSFER_WITH_AUTHORIZATION_TYPE],
        },
        "primaryType": "TransferWithAuthorization",
        "domain": {
            "name": name,
            "version": version,
            "chainId": chain_id(requirements.network),
            "verifyingContract": _address(requirements.asset, "the challenge's asset"),
        },
        "message": {
            "from": _address(authorization.get("from"), "the authorization's from"),
            "to": _address(authorization.get("to"), "the authorization's to"),
            "value": _signed(authorization, "value"),
            "validAfter": _signed(authorization, "validAfter"),
            "validBefore": _signed(authorization, "validBefore"),
            "nonce": nonce,
        },
    }


def _signed(authorization: Mapping[str, str], key: str) -> int:
    """An authorization's number: the decimal string we built (a JSON int is not ours)."""
    value = authorization.get(key)
    if not isinstance(value, str):
        raise X402Error(f"the authorization's {key} is not a decimal integer string.")
    return _uint256(value, f"the authorization's {key}")


def _private_key_bytes(private_key_hex: object) -> bytes:
    # Never put the key (or any part of it) into a message.
    bad = X402Error("the x402 private key must be 32 bytes of hex (64 hex digits, optional 0x).")
    if not isinstance(private_key_hex, str):
        raise bad
    match = _PRIVATE_KEY.fullmatch(private_key_hex.strip())
    if not match:
        raise bad
    key = bytes.fromhex(match.group(1))
    if not 0 < int.from_bytes(key, "big") < _SECP256K1_N:
        raise X402Error("the x402 private key is outside the secp256k1 key range.")
    return key


def validity_window(requirements: PaymentRequirements, max_window: int | None) -> int:
    """Seconds the authorization stays valid: the challenge's, never more than ours."""
    window = requirements.max_timeout_seconds
    return window if max_window is None else max(1, min(window, max_window))


class X402Signer:
    """Signs x402 ``exact`` payments with a local secp256k1 key.

    The key never appears in ``repr``/``str`` or in error messages. The signing libraries load
    on first use of :attr:`address` or :meth:`sign`; the key object is the process's one for
    this key (:func:`svc.pay.secp256k1.key_for`), so a signer per task derives nothing again.
    """

    __slots__ = ("_address", "_key")

    def __init__(self, private_key_hex: str) -> None:
        self._key = _private_key_bytes(private_key_hex)
        self._address: str | None = None

    def __repr__(self) -> str:
        shown = self._address if self._address is not None else "<not derived yet>"
        return f"X402Signer(address={shown})"

    def __str__(self) -> str:
        return repr(self)

    def __reduce__(self) -> Any:
        raise TypeError("an X402Signer cannot be pickled (it holds a private key).")

    @property
    def address(self) -> str:
        """The checksummed address of the key."""
        if self._address is None:
            self._address = key_for(self._key).address
        return self._address

    def sign(
        self,
        requirements: PaymentRequirements,
        now: int | None = None,
        nonce: bytes | None = None,
        max_window: int | None = None,
    ) -> dict[str, Any]:
        """Sign a fresh authorization; returns the proof ``payload``: signature, authorization.

        ``now`` defaults to the current time, read here, right before signing.
        """
        when = int(time.time()) if now is None else now
        authorization = build_authorization(requirements, self.address, when, nonce, max_window)
        message = typed_data(requirements, authorization)
        try:
            signature = key_for(self._key).sign(eip712.digest(message))
        except Exception as exc:
            reason = str(exc).replace(self._key.hex(), "<redacted>")[:200]
            raise X402Error(f"could not sign the x402 authorization: {reason}") from None
        return proof_payload("0x" + signature.hex(), authorization)


def proof_payload(signature: str, authorization: dict[str, str]) -> dict[str, Any]:
    """The proof's `payload`, whoever signed: the signature and the authorization it signs."""
    return {"signature": signature, "authorization": authorization}


# --------------------------------------------------------------------------- public: proof


def encode_proof(
    challenge: X402Challenge,
    requirements: PaymentRequirements,
    payload: Mapping[str, Any],
    payment_id: str | None = None,
) -> str:
    """The proof header value for the version the challenge announced (standard base64 JSON).

    v2: ``{x402Version: 2, resource? (as the challenge sent it), accepted: <entry verbatim>,
    payload, extensions?}``; v1: ``{x402Version: 1, scheme, network, payload}``. `payment_id`
    goes in the ``payment-identifier`` extension, only when the challenge declared it.
    """
    if not isinstance(challenge, X402Challenge):
        raise X402Error("the x402 challenge must be an X402Challenge.")
    if not any(requirements is r or requirements == r for r in challenge.accepts):
        raise X402Error("the chosen payment requirements are not among the challenge's accepts.")
    if not isinstance(payload, Mapping):
        raise X402Error("the x402 payload is not an object.")
    proof: dict[str, Any]
    if challenge.version == 1:
        proof = {
            "x402Version": 1,
            "scheme": requirements.scheme,
            "network": requirements.network,
            "payload": dict(payload),
        }
    elif challenge.version == 2:
        proof = {"x402Version": 2}
        if challenge.resource is not None:
            proof["resource"] = challenge.resource
        proof["accepted"] = requirements.raw
        proof["payload"] = dict(payload)
        if payment_id is not None and challenge.declares(PAYMENT_IDENTIFIER):
            proof["extensions"] = {PAYMENT_IDENTIFIER: _identified(challenge, payment_id)}
    else:
        raise X402Error(f"x402Version {challenge.version!r} is not supported.")
    return _b64encode_json(proof)


def _identified(challenge: X402Challenge, request_id: str) -> dict[str, Any]:
    """The server's payment-identifier declaration with this request's payment id in `info`."""
    declared = dict((challenge.extensions or {})[PAYMENT_IDENTIFIER])
    info = declared.get("info")
    declared["info"] = {**(info if isinstance(info, dict) else {}), "id": payment_id(request_id)}
    return declared


def payment_id(request_id: str) -> str:
    """The request id as the extension's payment id (16-128 letters, digits, '-' or '_'), or,
    for one it does not allow (`order:2026-11-29`, a short one), a digest of it: the same on
    every retry of the request, as the server needs it to charge once."""
    if _PAYMENT_ID.fullmatch(request_id):
        return request_id
    return "svc_" + hashlib.sha256(request_id.encode()).hexdigest()[:40]


def proof_version(proof: str) -> int | None:
    """The x402Version a journaled proof was built for (None: not a proof we can read)."""
    try:
        obj = _loads(_b64decode(proof, "the proof"), "the proof")
    except X402Error:
        return None
    version = obj.get("x402Version") if isinstance(obj, dict) else None
    return version if version in (1, 2) and not isinstance(version, bool) else None


# --------------------------------------------------------------------------- public: keys


def generate_private_key() -> str:
    """A new random secp256k1 private key, ``0x`` + 64 hex digits."""
    while True:
        key = secrets.token_bytes(32)
        if 0 < int.from_bytes(key, "big") < _SECP256K1_N:
            return "0x" + key.hex()


def address_of(private_key_hex: str) -> str:
    """The checksummed address of a private key (loads the signing library)."""
    return X402Signer(private_key_hex).address
