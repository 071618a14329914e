"""An x402 signer whose key lives elsewhere: svc builds the authorization and its EIP-712 typed
data exactly as for its own key, asks the outside signer for the signature, and believes it only
once it recovers to the address the profile names. A wrong, malformed or non-canonical answer is
a SignerError (exit 5) before anything is journaled or sent."""

from __future__ import annotations

import re
import time
from typing import Any

from svc.errors import PaymentFailed
from svc.pay import eip712
from svc.pay.secp256k1 import HALF_N as _HALF_N
from svc.pay.secp256k1 import recover
from svc.pay.signers import TypedDataSigner
from svc.pay.x402 import PaymentRequirements, build_authorization, proof_payload, typed_data

_SIGNATURE = re.compile(r"0x[0-9a-fA-F]{130}", re.ASCII)
# A signature whose s is above half the group order (_HALF_N) is the malleable twin that EIP-2
# (and every USDC contract's ECDSA library) refuses.
PROTOCOL_HINT = "the signer protocol is in docs/signers.md; nothing was paid"


class SignerError(PaymentFailed):
    """An external signer could not give a usable signature: nothing was signed or sent."""

    default_code = "signer_failed"

    def __init__(self, message: str, **kwargs: Any) -> None:
        kwargs.setdefault("hint", PROTOCOL_HINT)
        super().__init__(message, **kwargs)


class ExternalSigner:
    """Signs x402 `exact` payments through `backend`, for `address` only."""

    def __init__(self, address: str, backend: TypedDataSigner) -> None:
        self._address = address
        self.backend = backend

    def __repr__(self) -> str:
        return f"ExternalSigner(address={self._address}, signer={self.backend.where})"

    @property
    def address(self) -> str:
        return self._address

    def sign(
        self,
        requirements: PaymentRequirements,
        now: int | None = None,
        nonce: bytes | None = None,
        max_window: int | None = None,
    ) -> dict[str, Any]:
        """The proof payload, as X402Signer.sign returns it, signed by the outside signer."""
        when = int(time.time()) if now is None else now
        authorization = build_authorization(requirements, self._address, when, nonce, max_window)
        message = typed_data(requirements, authorization)
        answer = self.backend.sign_typed_data(self._address, message)
        signature = checked_signature(answer, message, self._address, self.backend.where)
        return proof_payload(signature, authorization)


def checked_signature(answer: object, message: dict[str, Any], address: str, where: str) -> str:
    """The signature, canonical (v 27 or 28, low s), once it recovers to `address`."""
    if not isinstance(answer, str) or not _SIGNATURE.fullmatch(answer):
        raise SignerError(f"the signer ({where}) answered no 65-byte hex signature")
    raw = bytearray.fromhex(answer[2:])
    if raw[64] in (0, 1):
        raw[64] += 27  # some signers give the recovery id bare; the chain wants 27 or 28
    if raw[64] not in (27, 28) or int.from_bytes(raw[32:64], "big") > _HALF_N:
        raise SignerError(f"the signer ({where}) answered a signature that is not canonical")
    signature = "0x" + raw.hex()
    signer = recovered_address(message, signature)
    if signer is None or signer.lower() != address.lower():
        raise SignerError(
            f"the signer ({where}) signed for {signer or 'no address'}, not for {address}; "
            "nothing was sent",
            code="signer_wrong_address",
            hint="signer_address must be the address whose key the signer holds",
        )
    return signature


def recovered_address(message: dict[str, Any], signature: str) -> str | None:
    """The address whose key made `signature` over the typed data, or None if none does."""
    try:
        digest = eip712.digest(message)
        raw = bytes.fromhex(signature.removeprefix("0x"))
    except ValueError:
        return None
    return recover(digest, raw)
