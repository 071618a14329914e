"""secp256k1 keys for x402: an address, a recoverable signature over a digest, a recovery.

eth-account did this for svc, at the price of importing eth_abi, eth_utils and eth_typing on
every paid call. The operations themselves are libsecp256k1's: through coincurve when it is
installed (the library eth-keys' own fast backend calls, so the signatures are the same bytes),
otherwise through eth-keys' pure-Python backend. Either is imported on first use only.

A signature is 65 bytes r || s || v with v = 27 or 28 and s in the lower half of the group
order (EIP-2: the high-s twin is refused by USDC's ECDSA library); signing checks that before
returning. A `SigningKey` keeps its library key object for the process, so a batch that signs
hundreds of authorizations derives the public key once; it never shows the key (repr, str,
pickling, error messages).
"""

from __future__ import annotations

import hashlib
from typing import Any, Final, Protocol

from svc.pay.eip712 import keccak256

__all__ = ["HALF_N", "SECP256K1_N", "SigningKey", "checksum_address", "key_for", "recover"]

# Order of the secp256k1 group: a private key is an integer in [1, n-1].
SECP256K1_N: Final = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
# Half of it: a canonical (low-s) signature has s <= HALF_N.
HALF_N: Final = SECP256K1_N // 2


class _Backend(Protocol):
    def public_key(self) -> bytes: ...  # 64 bytes: x || y
    def sign(self, digest: bytes) -> bytes: ...  # 65 bytes: r || s || recovery id (0 or 1)


class _Coincurve:
    __slots__ = ("_key",)

    def __init__(self, secret: bytes) -> None:
        from coincurve import PrivateKey

        self._key = PrivateKey(secret)

    def public_key(self) -> bytes:
        return bytes(self._key.public_key.format(compressed=False)[1:])

    def sign(self, digest: bytes) -> bytes:
        return bytes(self._key.sign_recoverable(digest, hasher=None))


class _EthKeys:
    __slots__ = ("_key",)

    def __init__(self, secret: bytes) -> None:
        from eth_keys.datatypes import PrivateKey

        self._key = PrivateKey(secret)

    def public_key(self) -> bytes:
        return bytes(self._key.public_key.to_bytes())

    def sign(self, digest: bytes) -> bytes:
        return bytes(self._key.sign_msg_hash(digest).to_bytes())


def _has_coincurve() -> bool:
    try:
        import coincurve  # noqa: F401
    except ImportError:
        return False
    return True


def _backend(secret: bytes) -> _Backend:
    return _Coincurve(secret) if _has_coincurve() else _EthKeys(secret)


def checksum_address(raw: bytes) -> str:
    """The EIP-55 mixed-case form of a 20-byte address."""
    lower = raw.hex()
    hashed = keccak256(lower.encode("ascii")).hex()
    return "0x" + "".join(
        c.upper() if int(h, 16) >= 8 else c for c, h in zip(lower, hashed[:40], strict=True)
    )


def _address_of_public(public: bytes) -> str:
    return checksum_address(keccak256(public)[-20:])


class SigningKey:
    """A secp256k1 private key held for signing; only its address is ever shown."""

    __slots__ = ("_backend", "address")

    def __init__(self, secret: bytes, backend: _Backend | None = None) -> None:
        if len(secret) != 32 or not 0 < int.from_bytes(secret, "big") < SECP256K1_N:
            raise ValueError("a secp256k1 private key is 32 bytes in [1, n-1]")
        self._backend = _backend(secret) if backend is None else backend
        self.address: str = _address_of_public(self._backend.public_key())

    def __repr__(self) -> str:
        return f"SigningKey(address={self.address})"

    def __str__(self) -> str:
        return repr(self)

    def __reduce__(self) -> Any:
        raise TypeError("a SigningKey cannot be pickled (it holds a private key).")

    def sign(self, digest: bytes) -> bytes:
        """r || s || v (v 27 or 28) over a 32-byte digest, low s."""
        if len(digest) != 32:
            raise ValueError("a digest to sign is 32 bytes")
        raw = self._backend.sign(digest)
        if len(raw) != 65 or raw[64] not in (0, 1) or int.from_bytes(raw[32:64], "big") > HALF_N:
            raise ValueError("the secp256k1 library gave a signature that is not canonical")
        return raw[:64] + bytes([raw[64] + 27])


# One SigningKey per key for the process, found by the key's sha256: a batch builds a signer
# per task, and deriving the public key again each time is what this spares.
_KEYS: dict[bytes, SigningKey] = {}


def key_for(secret: bytes) -> SigningKey:
    """The process's SigningKey for `secret` (derived on its first use)."""
    name = hashlib.sha256(secret).digest()
    key = _KEYS.get(name)
    if key is None:
        key = _KEYS[name] = SigningKey(secret)
    return key


def recover(digest: bytes, signature: bytes) -> str | None:
    """The checksummed address whose key made `signature` (r || s || v, v 27 or 28) over
    `digest`, or None when no key did (a point off the curve, r or s out of range)."""
    if len(digest) != 32 or len(signature) != 65 or signature[64] not in (27, 28):
        return None
    bare = signature[:64] + bytes([signature[64] - 27])
    try:
        if _has_coincurve():
            from coincurve import PublicKey

            public = PublicKey.from_signature_and_message(bare, digest, hasher=None)
            return _address_of_public(bytes(public.format(compressed=False)[1:]))
        from eth_keys.datatypes import Signature

        recovered = Signature(bare).recover_public_key_from_msg_hash(digest)
        return _address_of_public(bytes(recovered.to_bytes()))
    except Exception:  # each library raises its own family for a signature that recovers nothing
        return None
